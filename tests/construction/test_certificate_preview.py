"""Issue 16 "Preview, confirm, undo": the certificate of completion (§ 380-18) previews as its PDF, marked as
a preview, before it is issued; the preview issues nothing (the mechanism, cases/preview.py, is tested on the
relief and permit decisions). A preview refused names what is missing."""


def test_the_certificate_preview_is_refused_naming_what_is_missing(client_for, personas, project):
    n = project.case.number
    d = client_for(personas["director"])
    assert f'formaction="/construction/{n}/certificate/preview/"' in d.get(f"/construction/{n}/").content.decode()
    r = d.post(f"/construction/{n}/certificate/preview/", follow=True)
    assert r.status_code == 200 and "as-built drawings" in r.content.decode()
    project.refresh_from_db()
    assert project.certificate_on is None

