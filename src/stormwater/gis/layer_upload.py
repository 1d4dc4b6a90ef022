"""GIS layers uploaded in one request (the JSON API, issue 20) → an impervious survey through the import pipeline.

The web's import keeps its uploads in a folder of a ``GisImport`` and runs the check and the import as jobs; an
API caller sends the files and the layer choices at once and gets the report back. Both end in the one
``services.survey_import`` (read → validate the whole input → dry run with the bill comparison → apply all or
nothing → import record). Here the files live in a temporary folder for the request only: a dry run, or a file that
cannot be used, leaves nothing behind but (for a refused import) its ``ImportRecord``.

Layers are named ``FILE[:LAYER]`` as on the CLI (``stormwater gis import --parcels town.gpkg:parcels``), FILE being
an uploaded file's name (a zip's members by their path inside it: ``parcels.shp``, ``Town.gdb``); with a single
source, ``LAYER`` alone is enough. Every message names the uploaded file, never a path on the server.
"""
from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from . import overlay
from .services import (ERR_SUFFIX, GIS_SUFFIXES, ArchiveLimits, LayerSpec, SurveyOutcome, SurveySpec, survey_import,
                       unzip_checked)

LAYER_SUFFIXES = GIS_SUFFIXES - {".csv", ".xlsx", ".xlsm", ".txt"}
ERR_NO_FILE = "file: required (one or more GIS files as the multipart field \"file\")"
ERR_DUP_FILE = "file: two uploads are both named {name!r}: give them different names"
ERR_LAYER_SUFFIX = ("file: {name}: upload a GeoPackage, GeoJSON, zipped Shapefile or zipped File Geodatabase "
                    "(assessor tables go to /api/imports/assessor/)")
ERR_UNKNOWN_SOURCE = "{field}: {value!r} is not an uploaded layer file (the files: {sources})"
ERR_UNKNOWN_LAYER = "{field}: {source} has no layer {layer!r} (its layers: {layers})"
ERR_WHICH_LAYER = "{field}: {source} holds several layers ({layers}): name one as {source}:LAYER"
ERR_NO_SOURCES = "file: no GIS layer file among the uploads ({names})"


@dataclass
class LayerUpload:
    """What the caller chose: ``FILE[:LAYER]`` references to the uploaded files, as on the CLI."""

    parcels: str
    id_field: str
    impervious: list[str]
    right_of_way: list[str] = field(default_factory=list)
    row_where: dict[str, list[str]] = field(default_factory=dict)
    source_crs: str | None = None
    name: str = ""
    surveyed_on: date | None = None


def _resolve(ref: str, field_name: str, sources: dict[str, Path]) -> LayerSpec:
    """``FILE[:LAYER]`` (or ``LAYER`` when one source was uploaded) → a LayerSpec on the temporary copy. Checked
    here, naming the upload, so that GDAL's messages never carry the server's temporary path."""
    name, sep, layer = ref.rpartition(":")
    if not sep:
        name, layer = ref, ""
    if name not in sources:
        if len(sources) == 1 and not sep:  # only one file: the reference is its layer
            name, layer = next(iter(sources)), ref
        else:
            raise ValueError(ERR_UNKNOWN_SOURCE.format(field=field_name, value=ref, sources=", ".join(sources)))
    path = str(sources[name])
    layers = [n for n, g in overlay.list_layers(path)]  # a file GDAL cannot open: LayerError naming it
    if layer and layer not in layers:
        raise ValueError(ERR_UNKNOWN_LAYER.format(field=field_name, source=name, layer=layer,
                                                  layers=", ".join(layers) or "none"))
    if not layer and len(layers) > 1:
        raise ValueError(ERR_WHICH_LAYER.format(field=field_name, source=name, layers=", ".join(layers)))
    return LayerSpec(path, layer or None, layer or Path(name).stem)


def layers_upload_import(*, files: list, choice: LayerUpload, acting_user, dry_run: bool = True) -> SurveyOutcome:
    """Store ``files`` (uploaded files: name, ``chunks()``) in a temporary folder (zips unpacked within the town's
    ``ArchiveLimits``), resolve the chosen layers and run ``survey_import`` on them: a dry run (the report with the
    survey's effect on the bill) unless ``dry_run`` is False. Any error — an unreadable file (named), a layer or
    field that is not there, a finding of severity "error" — raises ``ValueError``/``ImportRefused`` and nothing
    is written but the refused import's record. In a dry run a finding of severity "error" refuses as well (the
    caller learns now that the import would be refused)."""
    from stormwater.imports.pipeline import ImportRefused

    if not files:
        raise ValueError(ERR_NO_FILE)
    names = [Path(f.name).name for f in files]
    for n in names:
        if Path(n).suffix.lower() not in LAYER_SUFFIXES:
            raise ValueError(ERR_LAYER_SUFFIX.format(name=n) if Path(n).suffix.lower() in GIS_SUFFIXES
                             else "file: " + ERR_SUFFIX.format(name=n))
    if len(set(names)) != len(names):
        raise ValueError(ERR_DUP_FILE.format(name=next(n for n in names if names.count(n) > 1)))
    limits = ArchiveLimits.from_town()
    with tempfile.TemporaryDirectory(prefix="gis-upload-") as tmp:
        folder = Path(tmp)
        try:
            sources: set[str] = set()
            for f, name in zip(files, names):
                dest = folder / name
                with dest.open("wb") as out:
                    for chunk in f.chunks():
                        out.write(chunk)
            for name in names:  # zips after the plain files (unzip_checked lists every usable file of the folder)
                dest = folder / name
                if dest.suffix.lower() == ".zip":
                    sources |= set(unzip_checked(dest, folder, limits=limits))
                    dest.unlink()
                else:
                    sources.add(name)
            by_name = {s: folder / s for s in sorted(sources)
                       if Path(s).suffix.lower() in LAYER_SUFFIXES - {".zip"} or s.lower().endswith(".gdb")}
            if not by_name:
                raise ValueError(ERR_NO_SOURCES.format(names=", ".join(names)))
            spec = SurveySpec(
                parcels=_resolve(choice.parcels, "parcels", by_name), id_field=choice.id_field,
                impervious=[_resolve(r, "impervious", by_name) for r in choice.impervious],
                right_of_way=[_resolve(r, "right_of_way", by_name) for r in choice.right_of_way],
                row_where=choice.row_where, source_crs=choice.source_crs)
            on = choice.surveyed_on or date.today()
            out = survey_import(spec=spec, name=choice.name or f"Impervious survey {on}", surveyed_on=on,
                                acting_user=acting_user, source="API upload: " + ", ".join(names), dry_run=dry_run)
        except ImportRefused:
            raise
        except ValueError as e:  # LayerError and the rest: never the server's temporary path in a message
            raise ValueError(str(e).replace(str(folder) + "/", "").replace(str(folder), "")) from None
    if dry_run and any(p.get("severity") == "error" for p in out.report.get("problems", [])):
        raise ImportRefused("API upload: " + ", ".join(names),
                            [overlay.Problem(p["code"], p["layer"], p["message"], p.get("ids", []), p["severity"])
                             for p in out.report["problems"]])
    return out
