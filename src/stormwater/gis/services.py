"""State changes of the GIS app: uploads, assessor imports, impervious surveys. Each atomic, each audited.

It holds three families of acts, each under its own banner below (uploads, assessor records, impervious surveys); the
limits an uploaded zip is held to are in ``archives``.

The heavy work (reading files, the overlay) runs before the transaction; the writes run in one
``transaction.atomic`` with one audit row for the import and one per parcel whose assessor record
changed. A survey is never edited: a new import is a new dated survey (the history).
"""
from __future__ import annotations

import importlib.util
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from pathlib import Path

import numpy as np
import shapely
from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import actor_or_none as _user, audit_record
from stormwater.imports.pipeline import ImportRefused, content_checksum, error, refuse_on_errors
from stormwater.imports.services import import_record_create
from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
from stormwater.parcels.selectors import parcel_classification
from stormwater.rules.classes import ClassificationError
from stormwater.townconfig import town_config
from stormwater.web.files import paths_hidden

from . import assessor as assessor_mod
from .archives import (ERR_BAD_ZIP, ERR_UNSAFE_ZIP, ERR_ZIP_MEMBERS, ERR_ZIP_RATIO, ERR_ZIP_SIZE,  # noqa: F401
                       GIS_SUFFIXES, MB, RATIO_FLOOR_BYTES, ArchiveLimits, unzip_checked, zip_checked)
from . import overlay
from .sanity import ERR_EMPTY_LAYER, matches_parcels, survey_sanity, units_sanity
from .models import GisImport, ImperviousPiece, ParcelShape, RightOfWayShape, SurveyParcelFacts
from .selectors import import_folder, survey_comparison

CENT = Decimal("0.01")
BATCH = 2000
ERR_SUFFIX = "{name}: upload a GeoPackage, GeoJSON, zipped Shapefile or zipped File Geodatabase, or CSV/Excel"
ERR_NOT_CHECKED = "Check the import before importing it."
ERR_ALREADY = "This import was already imported."
# The Dask path is the package's optional extra `dask` (pyproject.toml; pins in requirements-dask.txt).
DASK_MISSING = ("--dask needs the optional Dask packages, which this installation does not have: "
                "pip install -r requirements.txt -r requirements-dask.txt 'longmeadow-stormwater[dask]' "
                "(or run without --dask: the same result in one process)")


def _dec(x: float) -> Decimal:
    return Decimal(repr(float(x))).quantize(CENT)


def _envelope(g) -> dict:
    minx, miny, maxx, maxy = shapely.bounds(g)
    return {"minx": float(minx), "miny": float(miny), "maxx": float(maxx), "maxy": float(maxy)}


# ---------------------------------------------------------------------------------------------
# Uploads
# ---------------------------------------------------------------------------------------------

@transaction.atomic
def gis_import_upload(*, kind: str, files: list, acting_user) -> GisImport:
    """Store uploaded files (zips unpacked within ``ArchiveLimits``) in a folder of their own; the mapping step
    comes next. A refused upload leaves no folder and no import behind."""
    for f in files:
        if Path(f.name).suffix.lower() not in GIS_SUFFIXES:
            raise ValueError(ERR_SUFFIX.format(name=f.name))
    gi = GisImport.objects.create(kind=GisImport.Kind(kind), created_by=_user(acting_user))
    gi.folder = f"import-{gi.pk}"
    folder = import_folder(gi)
    folder.mkdir(parents=True, exist_ok=True)
    limits = ArchiveLimits.from_town()
    names = []
    try:
        for f in files:
            name = Path(f.name).name
            dest = folder / name
            with dest.open("wb") as out:
                for chunk in f.chunks():
                    out.write(chunk)
            if dest.suffix.lower() == ".zip":
                names += unzip_checked(dest, folder, limits=limits)
                dest.unlink()
            else:
                names.append(name)
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)  # the transaction rolls the import back; its files go too
        raise
    gi.files = sorted(set(names))
    gi.save(update_fields=["folder", "files"])
    audit_record(actor=acting_user, action="gis.upload", obj=gi, data={"kind": kind, "files": gi.files})
    return gi


# ---------------------------------------------------------------------------------------------
# Assessor records
# ---------------------------------------------------------------------------------------------

@dataclass
class AssessorResult:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    owners_created: int = 0
    problems: list[overlay.Problem] = field(default_factory=list)
    dry_run: bool = False
    lot_effect: dict = field(default_factory=dict)  # assessor_checks: parcels created, lots changed and by how much

    def as_json(self) -> dict:
        return {"created": len(self.created), "updated": len(self.updated), "unchanged": self.unchanged,
                "lot_effect": self.lot_effect,
                "owners_created": self.owners_created, "dry_run": self.dry_run,
                "created_ids": self.created[:200], "updated_ids": self.updated[:200],
                "problems": [p.as_json() for p in self.problems]}


PARCEL_FIELDS = ("address", "land_use_code", "dwelling_units", "lot_sqft")


def assessor_file_read(path: str, layer: str | None, mapping: dict):
    """Read and validate a whole assessor file (the pipeline's read and validate steps; no database).
    → (table, records, problems); raises ``ImportRefused`` when the file cannot be read at all."""
    t = assessor_mod.read_source(path, layer)
    cfg = town_config()
    records, problems = assessor_mod.map_rows(
        t.rows, mapping, columns=t.columns, row_numbers=t.row_numbers, source=t.name,
        max_lot_sqft=Decimal(cfg.import_max_lot_acres) * assessor_mod.LOT_UNITS["acres"],
        max_units=cfg.import_max_dwelling_units)
    return t, records, t.problems + problems


def assessor_file_import(*, path: str, layer: str | None, mapping: dict, source: str, acting_user,
                         dry_run: bool = False) -> tuple[assessor_mod.Table, AssessorResult]:
    """The assessor import through the whole pipeline (CLI, web commit): read → validate → (dry run | apply) →
    record. A refused file is recorded (not in a dry run) and raises ``ImportRefused`` naming rows and columns."""
    try:
        table, records, problems = assessor_file_read(path, layer, mapping)
        res = assessor_records_import(records=records, problems=problems, source=source, acting_user=acting_user,
                                      dry_run=dry_run, path=path)
    except ImportRefused as e:
        if not dry_run:
            import_record_create(kind="assessor", source=source, path=path, content_checksum="",
                                 outcome="refused", counts={}, report={"problems": [p.as_json() for p in e.problems]},
                                 acting_user=acting_user)
        raise
    return table, res


def assessor_records_import(*, records: list[assessor_mod.AssessorRecord], problems: list[overlay.Problem],
                            source: str, acting_user, dry_run: bool = False, path: str | None = None) -> AssessorResult:
    """Create or update parcels and owners from mapped assessor records (Ch. 295 Art. IV ¶E).

    All or nothing (issue 20): any finding of severity "error" refuses the whole file before a write. A parcel
    keeps its staff class override; an owner is matched by name and mailing address. A fact the file does not
    carry (a column not mapped, a blank cell) never blanks the parcel's: records with no owner name leave the
    owner as it is, and a name without a mailing address keeps the parcel's owner of that name. Not a dry run:
    one import record (``stormwater.imports``) with the file's checksum and its content's, in the same transaction.
    """
    from .assessor_checks import assessor_records_check

    checked, lot_effect = assessor_records_check(records, source=source)
    problems = list(problems) + checked
    refuse_on_errors(source, problems)
    result = AssessorResult(problems=list(problems), dry_run=dry_run, lot_effect=lot_effect)
    with transaction.atomic():
        existing = {p.parcel_id: p for p in Parcel.objects.select_related("owner")
                    .filter(parcel_id__in=[r.parcel_id for r in records])}
        owners = {(o.name, o.mailing_address): o for o in Owner.objects.all()}
        for rec in records:
            p = existing.get(rec.parcel_id)
            owner = None
            if rec.owner_name:
                key = (rec.owner_name, rec.owner_address)
                if not rec.owner_address and p is not None and p.owner is not None and p.owner.name == rec.owner_name:
                    key = (p.owner.name, p.owner.mailing_address)  # the file carries no mailing address: keep it
                owner = owners.get(key)
                if owner is None:
                    owner = Owner(name=rec.owner_name, mailing_address=rec.owner_address)
                    if not dry_run:
                        owner.save()
                        audit_record(actor=acting_user, action="owner.create", obj=owner, why=f"Assessor import: {source}")
                    owners[key] = owner
                    result.owners_created += 1
            new = {"address": rec.address, "land_use_code": rec.land_use_code,
                   "dwelling_units": rec.dwelling_units, "lot_sqft": rec.lot_sqft}
            if p is None:
                result.created.append(rec.parcel_id)
                if not dry_run:
                    p = Parcel.objects.create(parcel_id=rec.parcel_id, owner=owner, **new)
                    audit_record(actor=acting_user, action="parcel.import", obj=p, why=f"Assessor import: {source}",
                                 data={"created": True, **_jsonable(new), "owner": rec.owner_name})
                continue
            carried = {k: v for k, v in new.items() if v not in (None, "")}
            changes = {k: [_jsonable_value(getattr(p, k)), _jsonable_value(v)] for k, v in carried.items()
                       if _norm(getattr(p, k)) != _norm(v)}
            if owner is not None and p.owner_id != owner.pk:
                changes["owner"] = [p.owner.name if p.owner else None, owner.name]
            if not changes:
                result.unchanged += 1
                continue
            result.updated.append(rec.parcel_id)
            if not dry_run:
                for k, v in carried.items():
                    setattr(p, k, v)
                if owner is not None:
                    p.owner = owner
                p.save()
                audit_record(actor=acting_user, action="parcel.import", obj=p, why=f"Assessor import: {source}",
                             data={"changes": changes})
        if dry_run:
            transaction.set_rollback(True)
        else:
            counts = {"created": len(result.created), "updated": len(result.updated), "unchanged": result.unchanged,
                      "owners_created": result.owners_created}
            changed = result.created or result.updated or result.owners_created
            if result.updated:  # a condominium unit's parcel changed hands: bill the unit to its new owner (¶G)
                from stormwater.parcels.services import association_unit_owners_refresh

                association_unit_owners_refresh(parcel_ids=result.updated, acting_user=acting_user,
                                                why=f"Assessor import: {source}")
            import_record_create(
                kind="assessor", source=source, path=path,
                content_checksum=content_checksum([{k: v for k, v in r.as_json().items() if k != "rows"}
                                                   for r in records]),
                outcome="applied" if changed else "unchanged", counts=counts,
                report={"problems": [p.as_json() for p in problems], "created_ids": result.created[:200],
                        "updated_ids": result.updated[:200]}, acting_user=acting_user)
    return result


def _norm(v):
    if isinstance(v, Decimal):
        return v.quantize(CENT)
    return v


def _jsonable_value(v):
    return str(v) if isinstance(v, Decimal) else v


def _jsonable(d: dict) -> dict:
    return {k: _jsonable_value(v) for k, v in d.items()}


def _source_path(gi: GisImport, name: str) -> str:
    path = (import_folder(gi) / name).resolve()
    if not str(path).startswith(str(import_folder(gi).resolve())) or name not in gi.files:
        raise ValueError(f"{name}: not a file of this import")
    return str(path)


def _check(gi: GisImport, mapping: dict, dry_run) -> GisImport:
    """Store what an import would do: ``dry_run()`` → its report (checked), or the error that stops it (failed)."""
    try:
        gi.report, gi.status = dry_run(), GisImport.Status.CHECKED
        errors = [p for p in gi.report.get("problems", []) if p.get("severity") == "error"]
        if errors:  # the dry run lists every finding; an error means the import itself would be refused
            gi.status = GisImport.Status.FAILED
            gi.report["error"] = (f"{len(errors)} error(s) below: nothing can be imported until they are fixed — "
                                  + "; ".join(f"{p['layer']}: {p['message']}" for p in errors))
    except ImportRefused as e:  # every finding stays on the page, by row or feature and column
        gi.report, gi.status = {"error": str(e), "problems": [p.as_json() for p in e.problems]}, GisImport.Status.FAILED
    except (ValueError, KeyError, overlay.LayerError) as e:
        gi.report, gi.status = {"error": paths_hidden(str(e))}, GisImport.Status.FAILED
    gi.mapping = mapping
    gi.save(update_fields=["report", "status", "mapping"])
    return gi


def _checked(gis_import: GisImport) -> GisImport:
    """The import as stored now, if it was checked and is not imported yet (else ValueError saying which)."""
    gi = GisImport.objects.get(pk=gis_import.pk)
    if gi.status == GisImport.Status.IMPORTED:
        raise ValueError(ERR_ALREADY)
    if gi.status != GisImport.Status.CHECKED:
        raise ValueError(ERR_NOT_CHECKED)
    return gi


def assessor_import_check(*, gis_import: GisImport, mapping: dict, acting_user) -> GisImport:
    """Read the assessor file with ``mapping`` and store what an import would do (dry run)."""
    def dry_run():
        table, res = assessor_file_import(path=_source_path(gis_import, mapping["source"]),
                                          layer=mapping.get("layer") or None, mapping=mapping,
                                          source=mapping["source"], acting_user=acting_user, dry_run=True)
        return {"rows": len(table.rows), "records": len(res.created) + len(res.updated) + res.unchanged,
                **res.as_json()}

    return _check(gis_import, mapping, dry_run)


def assessor_import_commit(*, gis_import: GisImport, acting_user) -> AssessorResult:
    gi = _checked(gis_import)
    with transaction.atomic():
        table, res = assessor_file_import(path=_source_path(gi, gi.mapping["source"]),
                                          layer=gi.mapping.get("layer") or None, mapping=gi.mapping,
                                          source=gi.mapping["source"], acting_user=acting_user)
        gi.report = {"rows": len(table.rows), "records": len(res.created) + len(res.updated) + res.unchanged,
                     **res.as_json()}
        gi.status = GisImport.Status.IMPORTED
        gi.imported_at = timezone.now()
        gi.save(update_fields=["report", "status", "imported_at"])
        audit_record(actor=acting_user, action="gis.assessor_import", obj=gi, why=gi.mapping["source"],
                     data={k: v for k, v in gi.report.items() if k not in {"problems", "created_ids", "updated_ids"}})
    return res


# ---------------------------------------------------------------------------------------------
# Impervious surveys
# ---------------------------------------------------------------------------------------------

@dataclass
class LayerSpec:
    """One input: a file (or FileGDB folder) and optionally its layer; ``name`` in results."""

    path: str
    layer: str | None = None
    name: str | None = None

    @property
    def label(self) -> str:
        return self.name or self.layer or Path(self.path.rstrip("/")).stem


@dataclass
class SurveySpec:
    parcels: LayerSpec
    id_field: str
    impervious: list[LayerSpec]
    right_of_way: list[LayerSpec] = field(default_factory=list)
    row_where: dict[str, list[str]] = field(default_factory=dict)
    source_crs: str | None = None
    partitions: int = 1
    dask: str | None = None  # "local" (a LocalCluster here) or a scheduler address; None: this process


def survey_compute(spec: SurveySpec, *, progress: Callable[[int, int], None] | None = None):
    """Read, validate and overlay (no database). → (inputs, OverlayResult)."""
    problems: list[overlay.Problem] = []
    pdf, pr = overlay.read_layer(spec.parcels.path, spec.parcels.layer, name="parcels", source_crs=spec.source_crs,
                                 fields=list(dict.fromkeys([spec.id_field, *spec.row_where])))
    problems += pr
    parcels, row_in_parcels, pr = overlay.prepare_parcels(pdf, id_field=spec.id_field, row_where=spec.row_where)
    problems += pr
    if not len(parcels):
        problems.append(error("empty_layer", spec.parcels.label, ERR_EMPTY_LAYER.format(what="parcel polygons")))
    layers, row = [], ([row_in_parcels] if len(row_in_parcels) else [])
    for group, target in ((spec.impervious, layers), (spec.right_of_way, row)):
        for ls in group:
            df, pr = overlay.read_layer(ls.path, ls.layer, name=ls.label, source_crs=spec.source_crs)
            lyr, pr2 = overlay.clean_polygons(np.arange(1, len(df) + 1), df["geometry"].to_numpy(), layer=ls.label)
            problems += pr + pr2
            if not len(lyr) and target is layers:
                # An empty impervious layer would give every parcel 0 ft² and a $0 fee in the next bill run.
                problems.append(error("empty_layer", ls.label, ERR_EMPTY_LAYER.format(what="impervious polygons")))
            target.append(lyr)
    for lyr in layers:
        problems += matches_parcels(lyr, parcels)
    if spec.dask:
        from stormwater.gis import distributed

        if importlib.util.find_spec("distributed") is None or importlib.util.find_spec("dask_geopandas") is None:
            raise ValueError(DASK_MISSING)
        result = distributed.run(parcels, layers, row, address=spec.dask, keep_pieces=True,
                                 npartitions=spec.partitions if spec.partitions > 1 else None)
        if progress:
            progress(1, 1)
    else:
        result = overlay.impervious_partitioned(parcels, layers, row, partitions=spec.partitions, progress=progress)
    result.problems = problems + result.problems
    result.right_of_way = row
    return parcels, result


@dataclass
class SurveyOutcome:
    survey: ImperviousSurvey | None
    report: dict


def survey_import(*, spec: SurveySpec, name: str, surveyed_on: date, acting_user, source: str = "",
                  dry_run: bool = False, gis_import: GisImport | None = None,
                  progress: Callable[[int, int], None] | None = None) -> SurveyOutcome:
    """Import GIS layers as a new dated impervious survey (Ch. 295 Art. IV ¶E, ¶F).

    Every parcel of the assessor records that has a polygon gets a ``ParcelImpervious`` row
    (0 ft² where nothing lies on it), its polygon and its impervious pieces. Parcels without a
    polygon and polygons without a parcel are reported with their ids, never silently dropped.

    The pipeline (issue 20): the whole input is validated first — unreadable files, empty layers, coordinates in
    degrees or metres labelled as feet (``sanity.units_sanity``), a parcel layer given as impervious — and any error
    refuses the import (``ImportRefused``) before a survey exists; the report compares the survey with the areas
    in force (``selectors.survey_comparison``: parcels changed, fee effect, town total); the same areas imported
    again change nothing; every import leaves an ``ImportRecord``. Writes happen in one transaction at the end.
    """
    parcels, result = survey_compute(spec, progress=progress)
    known = dict(Parcel.objects.values_list("parcel_id", "pk"))
    poly_ids = [str(x) for x in parcels.fids]
    matched = [pid for pid in poly_ids if pid in known]
    problems = list(result.problems)
    no_parcel = [pid for pid in poly_ids if pid not in known]
    if no_parcel:
        problems.append(overlay.Problem("polygon_without_parcel", "parcels",
                                        "parcel polygons with no assessor record: areas computed, not stored "
                                        "(import the assessor records first)", no_parcel))
    have = set(poly_ids)
    no_poly = sorted(pid for pid in known if pid not in have)
    if no_poly:
        problems.append(overlay.Problem("parcel_without_polygon", "parcels",
                                        "assessor parcels with no polygon: no area in this survey (their fee by "
                                        "impervious area cannot be computed from it)", no_poly))
    problems += units_sanity(parcels, poly_ids, matched)
    problems += survey_sanity(
        surveyed_on=surveyed_on, today=date.today(), poly_ids=poly_ids, matched=matched, id_field=spec.id_field,
        impervious_on_parcels=float(result.areas.loc[matched, "impervious_sqft"].sum()) if matched else 0.0,
        outside_sqft=float(sum(result.outside_sqft.values())))
    report = {
        "parcels_in_layer": len(poly_ids), "parcels_matched": len(matched),
        "layers": result.layer_names,
        "impervious_sqft_total": round(float(result.areas.loc[matched, "impervious_sqft"].sum()), 2) if matched else 0.0,
        "row_removed_sqft": {k: round(v, 2) for k, v in result.row_removed_sqft.items()},
        "outside_parcels_sqft": {k: round(v, 2) for k, v in result.outside_sqft.items()},
        "problems": [p.as_json() for p in problems],
        "dry_run": dry_run,
    }
    refusal = any(p.severity == "error" for p in problems)
    new_areas = {known[pid]: _dec(result.areas.at[pid, "impervious_sqft"]) for pid in matched}
    # The areas, not the layers' names (issue 26: the same areas under other layer names made a second survey).
    checksum = content_checksum({"areas": sorted((pid, str(new_areas[known[pid]])) for pid in matched)})
    if not refusal:
        # Before a survey replaces the areas in force: what it does to the bill (issue 20).
        report["comparison"] = survey_comparison(new_areas=new_areas, as_of=surveyed_on)
    if dry_run:
        return SurveyOutcome(None, report)
    if refusal:
        import_record_create(kind="gis_layers", source=source or name, path=spec.parcels.path, content_checksum="",
                             outcome="refused", counts={}, report={"problems": report["problems"]},
                             acting_user=acting_user)
        raise ImportRefused(source or name, problems)
    from stormwater.imports.selectors import last_applied

    with transaction.atomic():
        same = last_applied(kind="gis_layers", content_checksum=checksum)
        same_survey = ImperviousSurvey.objects.filter(pk=(same.counts or {}).get("survey_id")).first() if same else None
        if same_survey is not None:
            # The same layers again (whatever the bytes): nothing changes; the survey in the records stands.
            report |= {"unchanged": True, "survey_id": same_survey.pk,
                       "message": f"the same areas as survey #{same_survey.pk} “{same_survey.name}”: nothing changed"}
            survey = same_survey
            if not same_survey.row_shapes.exists():  # imported before its roads were kept (issue 30)
                _write_roads(same_survey, result)
            if gis_import is not None:
                gi = GisImport.objects.select_for_update().get(pk=gis_import.pk)
                if gi.status == GisImport.Status.IMPORTED:
                    raise ValueError(ERR_ALREADY)
                gi.status, gi.imported_at, gi.report = GisImport.Status.IMPORTED, timezone.now(), report
                gi.save(update_fields=["status", "imported_at", "report"])
            import_record_create(kind="gis_layers", source=source or name, path=spec.parcels.path,
                                 content_checksum=checksum, outcome="unchanged",
                                 counts={"survey_id": same_survey.pk, "parcels": len(matched)},
                                 report={"message": report["message"]}, acting_user=acting_user)
            return SurveyOutcome(survey, report)
        survey = ImperviousSurvey.objects.create(name=name, surveyed_on=surveyed_on, source=source)
        _write_survey(survey, parcels, result, known, matched)
        report["survey_id"] = survey.pk
        if gis_import is not None:
            gi = GisImport.objects.select_for_update().get(pk=gis_import.pk)
            if gi.status == GisImport.Status.IMPORTED:
                raise ValueError(ERR_ALREADY)
            gi.survey, gi.status, gi.imported_at, gi.report = survey, GisImport.Status.IMPORTED, timezone.now(), report
            gi.save(update_fields=["survey", "status", "imported_at", "report"])
        audit_record(actor=acting_user, action="gis.survey_import", obj=survey, why=source or name,
                     data={k: v for k, v in report.items() if k not in ("problems", "comparison")}
                     | {"problems": {p.code + " " + p.layer: len(p.ids) for p in problems}})
        cmp = report.get("comparison") or {}
        import_record_create(kind="gis_layers", source=source or name, path=spec.parcels.path,
                             content_checksum=checksum, outcome="applied",
                             counts={"survey_id": survey.pk, "parcels": len(matched),
                                     "parcels_impervious_changed": cmp.get("parcels_impervious_changed"),
                                     "annual_fee_change": cmp.get("annual_fee_change")},
                             report={"problems": report["problems"]}, acting_user=acting_user)
    return SurveyOutcome(survey, report)


def _write_survey(survey, parcels: overlay.Layer, result: overlay.OverlayResult, known: dict, matched: list[str]):
    areas = result.areas
    layer_cols = [f"{n}_sqft" for n in result.layer_names]
    ParcelImpervious.objects.bulk_create(
        (ParcelImpervious(survey=survey, parcel_id=known[pid], impervious_sqft=_dec(areas.at[pid, "impervious_sqft"]),
                          by_layer={n: round(float(areas.at[pid, c]), 2) for n, c in zip(result.layer_names, layer_cols)
                                    if areas.at[pid, c] > 0})
         for pid in matched), batch_size=BATCH)
    index = {str(pid): i for i, pid in enumerate(parcels.fids)}
    ParcelShape.objects.bulk_create(
        (ParcelShape(survey=survey, parcel_id=known[pid], area_sqft=_dec(parcels.geoms[index[pid]].area),
                     geom_wkb=shapely.to_wkb(parcels.geoms[index[pid]]), **_envelope(parcels.geoms[index[pid]]))
         for pid in matched), batch_size=BATCH)
    pcs = result.pieces
    keep = pcs["parcel_id"].isin(set(matched)).to_numpy() if len(pcs) else np.array([], dtype=bool)
    pcs = pcs[keep]
    ImperviousPiece.objects.bulk_create(
        (ImperviousPiece(survey=survey, parcel_id=known[r.parcel_id], layer=r.layer, source_fid=str(r.fid)[:80],
                         area_sqft=_dec(r.area_sqft), geom_wkb=shapely.to_wkb(r.geometry), **_envelope(r.geometry))
         for r in pcs.itertuples(index=False)), batch_size=BATCH)
    facts = []
    for p in Parcel.objects.filter(parcel_id__in=matched).only(
            "pk", "land_use_code", "dwelling_units", "public_way", "road_maintenance", "class_override",
            "class_override_reason").iterator(chunk_size=BATCH):
        try:
            cls = parcel_classification(p).property_class.value
        except ClassificationError:
            cls = ""
        facts.append(SurveyParcelFacts(survey=survey, parcel_id=p.pk, land_use_code=p.land_use_code,
                                       dwelling_units=p.dwelling_units, property_class=cls))
    SurveyParcelFacts.objects.bulk_create(facts, batch_size=BATCH)
    _write_roads(survey, result)


def _write_roads(survey, result: overlay.OverlayResult) -> None:
    """The survey's right-of-way polygons as imported (issue 30: the field maps draw the town's roads from them)."""
    RightOfWayShape.objects.bulk_create(
        (RightOfWayShape(survey=survey, layer=lyr.name[:80], source_fid=str(fid)[:80], geom_wkb=shapely.to_wkb(g),
                         **_envelope(g))
         for lyr in result.right_of_way for fid, g in zip(lyr.fids, lyr.geoms)), batch_size=BATCH)


def layers_import_check(*, gis_import: GisImport, mapping: dict, acting_user,
                        progress: Callable[[int, int], None] | None = None) -> GisImport:
    """Run the import as a dry run with the mapping from the form; store the report."""
    return _check(gis_import, mapping, lambda: survey_import(
        spec=spec_from_mapping(gis_import, mapping), name=mapping.get("name", ""), surveyed_on=date.today(),
        acting_user=acting_user, dry_run=True, progress=progress).report)


def layers_import_commit(*, gis_import: GisImport, acting_user,
                         progress: Callable[[int, int], None] | None = None) -> SurveyOutcome:
    gi = _checked(gis_import)
    m = gi.mapping
    return survey_import(spec=spec_from_mapping(gi, m), name=m["name"], surveyed_on=date.fromisoformat(m["surveyed_on"]),
                         acting_user=acting_user, source=f"GIS import #{gi.pk}: " + ", ".join(gi.files),
                         gis_import=gi, progress=progress)


def spec_from_mapping(gi: GisImport, m: dict) -> SurveySpec:
    """The form's mapping (JSON) → a SurveySpec on this import's files."""
    def ls(d: dict) -> LayerSpec:
        return LayerSpec(_source_path(gi, d["source"]), d.get("layer") or None, d.get("name") or None)

    row_where = {}
    if m.get("row_field"):
        row_where[m["row_field"]] = [v.strip() for v in m.get("row_values", []) if v.strip()]
    return SurveySpec(parcels=ls(m["parcels"]), id_field=m["id_field"], impervious=[ls(d) for d in m["impervious"]],
                      right_of_way=[ls(d) for d in m.get("right_of_way", [])], row_where=row_where,
                      source_crs=m.get("source_crs") or None)


def gis_import_discard_files(*, gis_import: GisImport) -> None:
    """Remove an import's uploaded files (the report and mapping stay)."""
    shutil.rmtree(import_folder(gis_import), ignore_errors=True)
