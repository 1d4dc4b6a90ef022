"""The written inspection report as a web form (§ 380-16 C(4)(f)[1]), used by the desk URL
(/construction/<n>/report/), the field URL (/field/<n>/report/, offline-capable) and the outbox endpoint
(/field/reports/): which sections each type of inspection shows, what is prefilled, and reading a posted report
(fields, checklist rows, photos, signature) into ``reporting.ReportInput``. A bad value is a ValueError naming the
field; the service names what the ordinance requires."""
from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation

from django.utils import timezone

from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import date_value

from .models import Condition, ControlKind, Evaluation, InspectionKind, SignatureMethod
from .reporting import ReportInput, RowInput, SignatureInput

K = InspectionKind
EROSION_FORM = [K.EROSION_PRE_START.value, K.EROSION_ROUTINE.value, K.EROSION_STORM.value]
ENGINEER = [K.PRE_BURY.value, K.WALK_THROUGH.value, K.FINAL.value, K.PERIODIC.value]

# Which sections of the form each type of inspection shows (the rest are hidden and disabled, so not sent).
SECTIONS: dict[str, list[str]] = {
    "storm": [K.EROSION_STORM.value],
    "controls": EROSION_FORM + [K.RANDOM.value],
    "bmps": ENGINEER + [K.RANDOM.value],
    "structures": [K.PRE_BURY.value],
    "punch": [K.WALK_THROUGH.value],
    "final": [K.FINAL.value],
}
MAX_ROWS = 300
ERR_PRECIP = "{field}: {value!r} is not a depth in inches (0 to 99.99)."
ERR_WHEN = "{value!r} is not a date and time (YYYY-MM-DDTHH:MM)."


def sections_for(kind: str) -> dict[str, bool]:
    return {name: kind in kinds for name, kinds in SECTIONS.items()}


def _when(v: str | None, field: str = "inspected_at") -> datetime | None:
    if not v:
        return None
    try:
        d = datetime.fromisoformat(v)
    except (TypeError, ValueError):
        raise FieldRefusal(ERR_WHEN.format(value=v), field) from None
    return timezone.make_aware(d) if timezone.is_naive(d) else d


def _inches(v: str | None, field: str, name: str) -> Decimal | None:
    if v is None or not str(v).strip():
        return None
    try:
        d = Decimal(str(v).strip())
    except InvalidOperation:
        raise FieldRefusal(ERR_PRECIP.format(field=field, value=v), name) from None
    if not d.is_finite() or d < 0 or d >= 100:
        raise FieldRefusal(ERR_PRECIP.format(field=field, value=v), name)
    return d.quantize(Decimal("0.01"))


def _int(v: str | None) -> int | None:
    try:
        return int(v) if v not in (None, "") else None
    except ValueError:
        return None


def _row_ref(ref: str) -> tuple[int | None, int | None]:
    kind, _, pk = (ref or "").partition(":")
    n = _int(pk)
    return (n, None) if kind == "c" else (None, n) if kind == "b" else (None, None)


def _photos(post, files, name: str) -> tuple[tuple, tuple[str, ...]]:
    """The photos posted under ``name`` and their captions (``name-caption``, one per photo in the same order, as
    the phone's form sends them; issue 30); an empty file input sends an empty file, left out with its caption."""
    captions = post.getlist(f"{name}-caption") if hasattr(post, "getlist") else []
    pairs = [(f, captions[n] if n < len(captions) else "") for n, f in enumerate(files.getlist(name))]
    kept = [(f, c) for f, c in pairs if f.size]
    return tuple(f for f, _ in kept), tuple(c for _, c in kept)


def report_from_post(post, files) -> ReportInput:
    """A posted report form as ``ReportInput``. Sections hidden for the chosen type are not sent (disabled)."""
    f = post
    kind = f.get("kind", "")
    shown = sections_for(kind)
    last_v = "none" if f.get("first_inspection") else (
        date_value(f["last_inspection"], field="last_inspection") if f.get("last_inspection") else None)
    rows = []
    n_rows = min(_int(f.get("rows")) or 0, MAX_ROWS)
    for i in range(n_rows):
        ref = f.get(f"row-{i}-ref")
        if ref is None:
            continue  # a row of a hidden section (disabled, not sent)
        control_id, bmp_id = _row_ref(ref)
        photos, captions = _photos(f, files, f"row-{i}-photos")
        rows.append(RowInput(condition=f.get(f"row-{i}-condition", ""), control_id=control_id, bmp_id=bmp_id,
                             note=f.get(f"row-{i}-note", ""), photos=photos, captions=captions))
    photos, captions = _photos(f, files, "photos")
    signature = None
    method = f.get("signature_method", "")
    if method == SignatureMethod.DRAWN and files.get("signature_png"):
        signature = SignatureInput(method=method, name=f.get("inspector_name", ""), image=files["signature_png"])
    elif method == SignatureMethod.TYPED:
        signature = SignatureInput(method=method, name=f.get("signed_name", ""), attested=bool(f.get("attest")))
    return ReportInput(
        kind=kind, inspected_at=_when(f.get("inspected_at")), location=f.get("location", ""),
        inspector_name=f.get("inspector_name", ""), inspector_credentials=f.get("inspector_credentials", ""),
        last_inspection=last_v, weather=f.get("weather", ""),
        precipitation_24h_in=_inches(f.get("precipitation_24h_in"), "[f] precipitation", "precipitation_24h_in"),
        evaluation=f.get("evaluation", ""), findings=f.get("findings", ""),
        corrective_steps=f.get("corrective_steps", ""),
        structures=f.get("structures", "") if shown["structures"] else "",
        video_recorded_on=date_value(f["video_recorded_on"], field="video_recorded_on") if shown["final"] and f.get("video_recorded_on") else None,
        video_reference=f.get("video_reference", "") if shown["final"] else "",
        storm_evaluated_on=date_value(f["storm_evaluated_on"], field="storm_evaluated_on") if shown["final"] and f.get("storm_evaluated_on")
        else None,
        storm_evaluation_rain_in=_inches(f.get("storm_rain_in"), "storm rainfall", "storm_rain_in") if shown["final"] else None,
        storm_id=_int(f.get("storm_id")) if shown["storm"] else None,
        punch_list=tuple(x for x in f.get("punch_list", "").splitlines() if x.strip()) if shown["punch"] else (),
        rows=tuple(rows), photos=photos, photo_captions=captions,
        signature=signature, client_key=(f.get("client_key") or "").strip()[:64] or None,
        unsafe_conditions=f.get("unsafe_conditions", "") if shown["controls"] else "",
        unsafe_locations=f.get("unsafe_locations", "") if shown["controls"] else "")


def form_context(*, project, user, kind: str, post=None, storm_id: int | None = None) -> dict:
    """What the form shows: the sections of ``kind``, the prefilled inspector, date and time, the site's controls
    and BMPs as checklist rows, the storm to inspect and the file's state as the inspector saw it (for conflicts)."""
    from stormwater.stewardship.models import Bmp

    from . import selectors

    kind = kind if kind in K.values else K.EROSION_ROUTINE.value
    post = post or {}
    last = project.inspections.order_by("-inspected_at").first()
    storms = list(project.rain_events.order_by("-ended_at")[:10])
    pending = next((d for d in selectors.dues(project) if d.kind == "storm"), None)
    if storm_id is None and pending is not None:
        storm_id = next((e.pk for e in storms if timezone.localtime(e.ended_at) == pending.storm.ended_at), None)
    storm = next((e for e in storms if e.pk == storm_id), None)
    credentials = user.credentials or (project.esc_inspector_credentials if project.esc_inspector_id == user.pk else (
        project.design_engineer_pe if project.design_engineer_id == user.pk else ""))
    controls = [(f"c:{c.pk}", f"{c.name}", f"{c.get_kind_display()}" + (f" · {c.location}" if c.location else ""))
                for c in project.controls.filter(removed_on__isnull=True)]
    bmps = [(f"b:{b.pk}", f"BMP {b.name}", b.source_type)
            for b in Bmp.objects.filter(site__permit=project.permit).order_by("id")[:MAX_ROWS]]
    def row(i, ref, label, hint, section):  # what was posted for this row, when the form comes back refused
        return {"i": i, "ref": ref, "label": label, "hint": hint, "section": section,
                "condition": post.get(f"row-{i}-condition", "") if post.get(f"row-{i}-ref") == ref else "",
                "note": post.get(f"row-{i}-note", "") if post.get(f"row-{i}-ref") == ref else ""}
    rows = [row(i, ref, label, hint, "controls") for i, (ref, label, hint) in enumerate(controls)]
    rows += [row(len(controls) + i, ref, label, hint, "bmps") for i, (ref, label, hint) in enumerate(bmps)]
    newest = project.inspections.order_by("-id").values_list("id", flat=True).first() or 0
    return {
        "p": project, "case": project.case, "kind": kind, "kinds": K.choices, "evaluations": Evaluation.choices,
        "sections": sections_for(kind), "section_kinds": {k: " ".join(v) for k, v in SECTIONS.items()},
        "last": last, "storms": storms, "storm_id": storm_id, "storm": storm, "post": post,
        "now": timezone.localtime(), "me": user,
        "prefill": {"inspector_name": user.get_full_name() or user.username, "credentials": credentials,
                    "inspected_at": timezone.localtime().strftime("%Y-%m-%dT%H:%M"),
                    "precipitation": storm.rain_in if storm is not None and kind == K.EROSION_STORM else ""},
        "control_rows": [r for r in rows if r["section"] == "controls"],
        "bmp_rows": [r for r in rows if r["section"] == "bmps"], "conditions": Condition.choices,
        "row_count": len(rows), "control_kinds": ControlKind.choices,
        "seen": {"status": project.case.status, "last": newest},
    }
