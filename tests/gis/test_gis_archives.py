"""GIS zips are unpacked within limits (issue 14: a 299 KB zip expanded to 300 MB on disk): the expanded size, the
expansion ratio and the number of files are bounded by the town configuration, no member may land outside the
import's folder, and a refused zip leaves nothing behind — each with a message that says what to do."""
from __future__ import annotations

import io
import os
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.gis import archives, services
from stormwater.gis.models import GisImport
from stormwater.rules.town import TownConfig

GEOJSON = b'{"type": "FeatureCollection", "features": []}'


@pytest.fixture(autouse=True)
def _media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


def _zip(members: dict[str, bytes], compression=zipfile.ZIP_DEFLATED) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return buf.getvalue()


def _upload(client, data: bytes, name="layers.zip"):
    return client.post("/gis/imports/new/", {"kind": "layers", "files": SimpleUploadedFile(name, data)})


def _town(monkeypatch, **limits):
    monkeypatch.setattr(archives, "town_config", lambda: replace(TownConfig(), **limits))


def _on_disk(settings) -> list[str]:
    root = Path(settings.MEDIA_ROOT)
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()) if root.exists() else []


def test_a_zip_bomb_is_refused_before_it_fills_the_disk(client_for, personas, db, settings):
    bomb = _zip({"parcels.geojson": GEOJSON, "impervious.geojson": b"\0" * (64 * 1024 * 1024)})
    assert len(bomb) < 200 * 1024  # a small upload ...
    r = _upload(client_for(personas["staff"]), bomb)
    html = r.content.decode()
    assert r.status_code == 400 and "layers.zip: the zip would expand to 64 MB" in html  # ... refused, with why
    assert "more than 100 times its own size" in html
    assert not GisImport.objects.exists() and _on_disk(settings) == []


def test_the_expanded_size_is_limited_by_the_town_configuration(client_for, personas, db, settings, monkeypatch):
    _town(monkeypatch, gis_archive_max_mb=1)
    data = _zip({"parcels.geojson": GEOJSON, "big.geojson": os.urandom(1024 * 1024 + 1)})
    html = _upload(client_for(personas["staff"]), data).content.decode()
    assert "layers.zip: the zip would expand to more than the limit of 1 MB" in html
    assert "gis_archive_max_mb" in html
    assert not GisImport.objects.exists() and _on_disk(settings) == []


def test_the_number_of_files_is_limited(client_for, personas, db, settings, monkeypatch):
    _town(monkeypatch, gis_archive_max_members=5)
    data = _zip({f"layer{i}.geojson": GEOJSON for i in range(6)})
    html = _upload(client_for(personas["staff"]), data).content.decode()
    assert "layers.zip: the zip holds 6 files, more than the limit of 5 (gis_archive_max_members" in html
    assert not GisImport.objects.exists() and _on_disk(settings) == []
    r = _upload(client_for(personas["staff"]), _zip({f"layer{i}.geojson": GEOJSON for i in range(5)}))
    assert r.status_code == 302 and len(GisImport.objects.get().files) == 5


def test_the_limits_are_inclusive_and_counted_on_what_is_written(tmp_path):
    folder = tmp_path / "import-1"
    folder.mkdir()
    z = tmp_path / "x.zip"
    z.write_bytes(_zip({"a.geojson": b"x" * 4096}, compression=zipfile.ZIP_STORED))
    names = services.unzip_checked(z, folder, limits=services.ArchiveLimits(max_bytes=4096, max_members=1,
                                                                             max_ratio=100))
    assert names == ["a.geojson"] and (folder / "a.geojson").stat().st_size == 4096
    with pytest.raises(ValueError, match="x.zip: the zip would expand to more than the limit of 0 MB"):
        services.unzip_checked(z, folder, limits=services.ArchiveLimits(max_bytes=4095, max_members=1,
                                                                        max_ratio=100))


@pytest.mark.parametrize("member", ["../evil.geojson", "../import-10/evil.geojson", "/tmp/evil.geojson",
                                    "a/../../evil.geojson"])
def test_no_member_lands_outside_the_import_folder(tmp_path, member):
    """``import-10`` starts with ``import-1``: a prefix test on the path string let a member into a sibling."""
    folder = tmp_path / "gis" / "import-1"
    folder.mkdir(parents=True)
    z = tmp_path / "x.zip"
    z.write_bytes(_zip({member: GEOJSON}))
    with pytest.raises(ValueError, match="outside its folder"):
        services.unzip_checked(z, folder, limits=services.ArchiveLimits(max_bytes=10 ** 6, max_members=10,
                                                                        max_ratio=100))
    assert [p for p in tmp_path.rglob("*.geojson")] == []


def test_a_file_that_is_not_a_zip_is_refused_with_a_message(client_for, personas, db, settings):
    html = _upload(client_for(personas["staff"]), b"this is not a zip").content.decode()
    assert "layers.zip: not a readable zip file" in html
    assert not GisImport.objects.exists() and _on_disk(settings) == []


def test_the_upload_page_states_the_limits(client_for, personas, db):
    html = client_for(personas["staff"]).get("/gis/imports/new/").content.decode()
    assert "1,024 MB" in html and "2,000 files" in html


def test_a_zip_bomb_named_on_the_command_line_is_refused_saying_so(tmp_path):
    """Issue 26: `stormwater gis impervious --impervious bomb.zip` said only "cannot be read as GIS data" (GDAL's
    /vsizip/); the command holds a zip to the upload's limits and says which was passed."""
    from django.core.management import CommandError, call_command

    parcels = tmp_path / "parcels.geojson"
    parcels.write_bytes(GEOJSON)
    bomb = tmp_path / "bomb.zip"
    bomb.write_bytes(_zip({"impervious.geojson": b"\0" * (64 * 1024 * 1024)}))
    with pytest.raises(CommandError, match=r"bomb\.zip: the zip would expand to 64 MB, more than 100 times"):
        call_command("gis", "impervious", "--parcels", str(parcels), "--id", "PID", "--impervious", str(bomb),
                     "--out", str(tmp_path / "out.csv"))
    assert not (tmp_path / "out.csv").exists()
