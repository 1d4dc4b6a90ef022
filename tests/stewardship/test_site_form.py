"""Issue 16 "Forms": the new-site form on the shared pattern: refused, it comes back with what was typed, an error
summary and the error at its field (it used to open an "Unnamed site" when the name was left blank)."""
from stormwater.stewardship.models import Site


def test_a_new_site_without_a_name_is_refused_keeping_the_address(personas, client_for):
    d = client_for(personas["staff"])
    r = d.post("/stewardship/new/", {"name": "  ", "address": "12 Laurel St"})
    html = r.content.decode()
    assert r.status_code == 400 and not Site.objects.exists()
    assert 'class="error-summary"' in html and 'href="#id_site-name"' in html
    assert 'id="id_site-name_error"' in html and "Enter the site&#x27;s name." in html
    assert 'value="12 Laurel St"' in html and 'aria-invalid="true"' in html
    r = d.post("/stewardship/new/", {"name": "Laurel St basin", "address": "12 Laurel St"})
    site = Site.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/stewardship/{site.case.number}/"
    assert (site.name, site.address) == ("Laurel St basin", "12 Laurel St")
