"""GIS imports as jobs (Ch. 295 Art. IV ¶E, ¶F; docs/gis.md): the check of an upload with its field mapping (a
dry run: for layers, the whole overlay) and the import itself (assessor records → parcels and owners; layers →
a dated impervious survey). Reading and overlaying run outside any transaction; the import writes in one
transaction at the end, so it is all there or not at all; run again after a crash it finds the import done
and reports the same result."""
from __future__ import annotations

from stormwater.accounts.roles import Perm
from stormwater.jobs.registry import JobParamError, int_param, job_kind, only_params


def _import_param(params: dict) -> int:
    from stormwater.gis.models import GisImport

    pk = int_param(params, "import")
    if not GisImport.objects.filter(pk=pk).exists():
        raise JobParamError(f"import: there is no GIS import {pk}")
    return pk


def clean_commit(params: dict) -> dict:
    only_params(params, {"import"})
    return {"import": _import_param(params)}


def clean_check(params: dict) -> dict:
    only_params(params, {"import", "mapping"})
    if not isinstance(params.get("mapping"), dict):
        raise JobParamError("mapping: required, the field mapping (an object)")
    return {"import": _import_param(params), "mapping": params["mapping"]}


def import_subject(params: dict) -> str:
    return f"gis.gisimport:{params['import']}"


@job_kind("gis_import_check", perm=Perm.GIS_IMPORT, label="Check the import", clean=clean_check,
          subject=import_subject, title=lambda p: f"Check of GIS import {p['import']}")
def gis_import_check(job):
    from stormwater.gis.models import GisImport
    from stormwater.gis.services import assessor_import_check, layers_import_check

    gi = GisImport.objects.get(pk=job.params["import"])
    if gi.status == GisImport.Status.IMPORTED:
        return {"status": gi.status}
    if gi.kind == GisImport.Kind.LAYERS:
        gi = layers_import_check(gis_import=gi, mapping=job.params["mapping"], acting_user=job.started_by,
                                 progress=job.progress)
    else:
        gi = assessor_import_check(gis_import=gi, mapping=job.params["mapping"], acting_user=job.started_by)
    if gi.status == GisImport.Status.FAILED:
        raise ValueError(gi.report.get("error") or "The check failed.")
    job.log("Checked: ready to import." if gi.status == GisImport.Status.CHECKED else f"Status: {gi.status}.")
    return _summary(gi)


@job_kind("gis_import", perm=Perm.GIS_IMPORT, label="Import", clean=clean_commit, subject=import_subject,
          title=lambda p: f"GIS import {p['import']}")
def gis_import(job):
    from stormwater.gis.models import GisImport
    from stormwater.gis.services import assessor_import_commit, layers_import_commit

    gi = GisImport.objects.get(pk=job.params["import"])
    if gi.status == GisImport.Status.IMPORTED:  # done before a crash: the same result, nothing written again
        job.log("Imported already.")
        return _summary(gi)
    if gi.kind == GisImport.Kind.LAYERS:
        outcome = layers_import_commit(gis_import=gi, acting_user=job.started_by, progress=job.progress)
        job.log(f"Survey “{outcome.survey.name}” imported: {outcome.report['parcels_matched']} parcels.")
    else:
        res = assessor_import_commit(gis_import=gi, acting_user=job.started_by)
        job.log(f"Assessor records imported: {len(res.created)} parcels created, {len(res.updated)} updated, "
                f"{res.unchanged} unchanged.")
    return _summary(GisImport.objects.get(pk=gi.pk))


def _summary(gi) -> dict:
    """The import's report without its long lists (those stay on the import's page)."""
    out = {k: v for k, v in (gi.report or {}).items() if not isinstance(v, (list, dict))}
    out["status"] = gi.status
    if gi.survey_id:
        out["survey_id"] = gi.survey_id
    return out
