"""``stormwater gis <subcommand>``: impervious (file to file, no database), import, assessor, eru, changes, export.

Problems found in the data go to stderr as a summary and never abort the run; an input that cannot
be used at all (no CRS and no --source-crs, a missing field or layer) is an error (exit 1).
"""
from __future__ import annotations

import json
import os
import sys
from datetime import date
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from stormwater.gis import overlay


def _row_where(values: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for v in values or []:
        field, sep, vals = v.partition("=")
        if not sep:
            raise CommandError(f"--row-where {v!r}: use FIELD=VALUE[,VALUE]")
        out.setdefault(field, []).extend(x.strip() for x in vals.split(",") if x.strip())
    return out


class Progress:
    """A plain-text progress bar on stderr (only when stderr is a terminal or asked for)."""

    def __init__(self, stream, label: str, enabled: bool):
        self.stream, self.label, self.enabled = stream, label, enabled

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


class Command(BaseCommand):
    help = "GIS: impervious area per parcel (file to file or as a dated survey), assessor import, ERU, changes, export."

    def add_arguments(self, parser):
        sub = parser.add_subparsers(dest="action", required=True)

        def layers(p, *, survey: bool):
            p.add_argument("--parcels", required=True, metavar="PATH[:LAYER]")
            p.add_argument("--id", required=True, dest="id_field", metavar="FIELD", help="parcel id field")
            p.add_argument("--impervious", action="append", required=True, metavar="PATH[:LAYER]",
                           help="repeatable; the layer is named by LAYER or the file's stem")
            p.add_argument("--right-of-way", action="append", default=[], metavar="PATH[:LAYER]", help="repeatable")
            p.add_argument("--row-where", action="append", default=[], metavar="FIELD=V1,V2",
                           help="rows of the parcel layer that are right-of-way, e.g. PolyType=ROW,RR ROW")
            p.add_argument("--source-crs", metavar="EPSG:NNNN", help="used only for inputs that carry no CRS")
            p.add_argument("--partitions", type=int, default=1, help="spatial partitions (same result)")
            p.add_argument("--dask", metavar="local|ADDRESS",
                           help="run the overlay as Dask tasks: 'local' starts a LocalCluster on this machine, "
                                "or a scheduler address such as tcp://10.0.0.5:8786 (same result)")
            p.add_argument("--progress", action="store_true", help="show a progress bar even when not a terminal")

        p = sub.add_parser("impervious", help="file to file: one CSV row per parcel; touches no database")
        layers(p, survey=False)
        p.add_argument("--out", required=True, metavar="FILE.csv")
        p.add_argument("--gpkg", metavar="FILE.gpkg", help="also write parcels and pieces to a GeoPackage")

        p = sub.add_parser("import", help="import GIS layers into the database as a dated impervious survey")
        layers(p, survey=True)
        p.add_argument("--name", required=True)
        p.add_argument("--surveyed-on", required=True, type=date.fromisoformat, metavar="YYYY-MM-DD")
        p.add_argument("--dry-run", action="store_true", help="validate and report only")

        p = sub.add_parser("assessor", help="import assessor records (CSV, Excel, GIS table) into parcels and owners")
        p.add_argument("source", metavar="PATH[:LAYER]")
        p.add_argument("--map", action="append", default=[], metavar="TARGET=COL[,COL]",
                       help="targets: parcel_id, address, owner_name, owner_address, land_use_code, dwelling_units, "
                            "lot_size; default: a known schema (MassGIS Level 3, Cambridge) when its columns are there")
        p.add_argument("--lot-unit", choices=["sqft", "acres", "sqm"])
        p.add_argument("--dry-run", action="store_true")

        p = sub.add_parser("eru", help="ERU determination: median single-family impervious area (JSON)")
        p.add_argument("--survey", type=int, help="survey id (default: the latest)")

        p = sub.add_parser("changes", help="change report between two surveys (JSON)")
        p.add_argument("--from", dest="from_id", type=int, required=True)
        p.add_argument("--to", dest="to_id", type=int, required=True)
        p.add_argument("--as-of", type=date.fromisoformat, default=date.today(), help="resolution in force on")

        p = sub.add_parser("export", help="per-parcel results of a survey to CSV or GeoPackage")
        p.add_argument("--survey", type=int, required=True)
        p.add_argument("--out", required=True, metavar="FILE.csv|FILE.gpkg")

    def handle(self, *args, **o):
        try:
            return getattr(self, "do_" + o["action"])(o)
        except (overlay.LayerError, ValueError) as e:
            raise CommandError(str(e)) from None

    def _problems(self, problems) -> None:
        if problems:
            self.stderr.write(f"{len(problems)} finding(s):")
            for p in problems:
                self.stderr.write("  " + (p.summary() if hasattr(p, "summary") else
                                          f"[{p['severity']}] {p['layer']}: {p['message']} — {p['count']} "
                                          f"(ids: {', '.join(p['ids'][:10])}{' …' if p['count'] > 10 else ''})"))

    def _spec(self, o):
        from stormwater.gis.services import LayerSpec, SurveySpec, zip_checked

        def ls(spec):
            path, layer = overlay.parse_source(spec)
            if str(path).lower().endswith(".zip") and os.path.isfile(path):
                zip_checked(Path(path))  # the upload's limits: a zip bomb is said as one (issue 26)
            return LayerSpec(path, layer)

        return SurveySpec(parcels=ls(o["parcels"]), id_field=o["id_field"], impervious=[ls(s) for s in o["impervious"]],
                          right_of_way=[ls(s) for s in o["right_of_way"]], row_where=_row_where(o["row_where"]),
                          source_crs=o.get("source_crs"), partitions=o["partitions"], dask=o.get("dask"))

    def do_impervious(self, o):
        # File to file: survey_compute reads and overlays only; no model is touched.
        from stormwater.gis.services import survey_compute

        spec = self._spec(o)
        prog = Progress(sys.stderr, "overlay", o["progress"] or sys.stderr.isatty())
        parcels, result = survey_compute(spec, progress=prog)
        with open(o["out"], "w", newline="") as f:
            overlay.write_csv(result, f)
        if o.get("gpkg"):
            overlay.write_gpkg(o["gpkg"], parcels, result)
        self._problems(result.problems)
        self.stderr.write(f"{len(result.areas)} parcels → {o['out']}")

    def do_import(self, o):
        from stormwater.gis.services import survey_import

        prog = Progress(sys.stderr, "overlay", o["progress"] or sys.stderr.isatty())
        out = survey_import(spec=self._spec(o), name=o["name"], surveyed_on=o["surveyed_on"], acting_user=None,
                            source="stormwater gis import: " + " ".join([o["parcels"], *o["impervious"]]),
                            dry_run=o["dry_run"], progress=prog)
        self._problems(out.report["problems"])
        summary = {k: v for k, v in out.report.items() if k != "problems"}
        summary["findings"] = {f"{p['code']} {p['layer']}": p["count"] for p in out.report["problems"]}
        self.stdout.write(json.dumps(summary, indent=2))

    def do_assessor(self, o):
        from stormwater.gis import assessor
        from stormwater.gis.services import assessor_file_import

        path, layer = overlay.parse_source(o["source"])
        mapping = {}
        if not o["map"]:
            mapping = assessor.guess_mapping(assessor.read_source(path, layer).columns)
        for m in o["map"]:
            target, sep, colspec = m.partition("=")
            if not sep or target not in assessor.TARGETS:
                raise CommandError(f"--map {m!r}: use TARGET=COL[,COL] with TARGET one of {', '.join(assessor.TARGETS)}")
            mapping[target] = [c.strip() for c in colspec.split(",") if c.strip()]
        if o.get("lot_unit"):
            mapping["_lot_unit"] = o["lot_unit"]
        table, res = assessor_file_import(path=path, layer=layer, mapping=mapping, source=o["source"],
                                          acting_user=None, dry_run=o["dry_run"])
        self._problems(res.problems)
        out = res.as_json()
        out.pop("problems")
        out |= {"rows": len(table.rows), "records": len(res.created) + len(res.updated) + res.unchanged,
                "mapping": mapping}
        self.stdout.write(json.dumps(out, indent=2))

    def do_eru(self, o):
        from stormwater.gis.selectors import eru_determination, survey_get
        from stormwater.parcels.models import ImperviousSurvey

        survey = survey_get(o["survey"]) if o.get("survey") else ImperviousSurvey.objects.order_by("-surveyed_on", "-id").first()
        if survey is None:
            raise CommandError("No impervious survey yet: import one first (stormwater gis import ...).")
        self.stdout.write(json.dumps(eru_determination(survey=survey).as_json(), indent=2))

    def do_changes(self, o):
        from stormwater.gis.selectors import survey_changes, survey_get

        rep = survey_changes(survey_from=survey_get(o["from_id"]), survey_to=survey_get(o["to_id"]), as_of=o["as_of"])
        self.stdout.write(json.dumps(rep.as_json(), indent=2))

    def do_export(self, o):
        from stormwater.gis.selectors import survey_csv, survey_geopackage, survey_get

        survey = survey_get(o["survey"])
        if o["out"].lower().endswith(".gpkg"):
            survey_geopackage(survey, o["out"])
        else:
            with open(o["out"], "w", newline="") as f:
                f.write(survey_csv(survey))
        self.stderr.write(f"survey {survey.pk} → {o['out']}")
