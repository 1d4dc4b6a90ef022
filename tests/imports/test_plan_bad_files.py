"""Plans through the pipeline's reading rules (issue 20 "Wrong today: Plans"): a binary file on the CLI, a
100,000-deep JSON or YAML, and a binary file over 2 MB to the API each get a clear message (exit 2 on the CLI, a
form error on the web, a JSON 400 on the API), never a traceback or a 500; nothing is stored."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from stormwater.review.models import Review

pytestmark = pytest.mark.django_db

DEEP_JSON = "{\"a\":" + "[" * 100_000 + "]" * 100_000 + "}"
DEEP_YAML = "a: " + "[" * 100_000 + "]" * 100_000 + "\n"


def run_cli(path, capsys):
    with pytest.raises(SystemExit) as e:
        call_command("review_run", str(path))
    return e.value.code, capsys.readouterr().err


def test_a_binary_file_on_the_cli_is_a_message(tmp_path, capsys):
    f = tmp_path / "plan.yaml"
    f.write_bytes(b"%PDF-1.4\n\xe2\xe3\xcf\xd3" + bytes(range(256)) * 10)
    code, err = run_cli(f, capsys)
    assert code == 2 and "plan.yaml: this is a PDF document, not a text file" in err
    assert Review.objects.count() == 0


@pytest.mark.parametrize("name, text", [("deep.json", DEEP_JSON), ("deep.yaml", DEEP_YAML)])
def test_a_100000_deep_plan_on_the_cli_is_a_message(tmp_path, capsys, name, text):
    f = tmp_path / name
    f.write_text(text)
    code, err = run_cli(f, capsys)
    assert code == 2 and "nested" in err
    assert Review.objects.count() == 0


@pytest.mark.parametrize("name, text", [("deep.json", DEEP_JSON), ("deep.yaml", DEEP_YAML)])
def test_a_100000_deep_plan_on_the_web_is_a_form_error(personas, client_for, tmp_path, name, text):
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["staff"])
    r = c.post("/reviews/new/", {"plan_file": SimpleUploadedFile(name, text.encode()), "title": "x"})
    assert r.status_code == 400 and "nested" in r.content.decode()
    assert Review.objects.count() == 0


def test_a_binary_file_over_2mb_to_the_api_is_a_json_400(personas, client_for):
    c = client_for(personas["staff"])
    r = c.post("/api/reviews/", data=b"\x00\x01\xff" * 1_000_000, content_type="application/octet-stream")
    assert r.status_code == 400 and r["Content-Type"].startswith("application/json")
    assert "file" in r.json()["error"]


def test_a_binary_file_on_the_web_is_a_form_error(personas, client_for):
    from django.core.files.uploadedfile import SimpleUploadedFile

    c = client_for(personas["staff"])
    r = c.post("/reviews/new/", {"plan_file": SimpleUploadedFile("plan.yaml", b"%PDF-1.4\n" + bytes(range(256)) * 10),
                                 "title": "x"})
    assert r.status_code == 400 and "plan.yaml: this is a PDF document, not a text file" in r.content.decode()
    assert Review.objects.count() == 0
