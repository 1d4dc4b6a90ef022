"""Documents of construction oversight rendered to PDF from templates/construction/pdf/."""
from __future__ import annotations

from datetime import date

from stormwater.utility.documents import render_pdf


def _base(project) -> dict:
    return {"project": project, "case": project.case, "app": project.permit}


def letter_pdf(*, project, subject: str, paragraphs: list[str], on: date, citation: str = "",
               items: list[str] | None = None, to_name: str = "", to_address: str | None = None,
               photos=()) -> bytes:
    """A letter; ``photos`` (InspectionPhoto) are printed after the text, downsized as in the report."""
    app = project.permit
    return render_pdf("construction/pdf/letter.html", {
        **_base(project), "subject": subject, "paragraphs": paragraphs, "items": items or [], "on": on,
        "citation": citation, "to_name": to_name or app.owner_name,
        "to_address": app.owner_address if to_address is None else to_address, "signer": "DPW Director",
        "photos": _photo_uris(photos)})


def _photo_uris(photos) -> list:
    from .photos import pdf_jpeg

    return [(ph, _data_uri("image/jpeg", pdf_jpeg(_stored(ph.document.file)))) for ph in photos]


def _data_uri(content_type: str, data: bytes) -> str:
    import base64

    return f"data:{content_type};base64," + base64.b64encode(data).decode("ascii")


def _stored(field) -> bytes:
    with field.open("rb") as f:
        return f.read()


def inspection_report_pdf(inspection) -> bytes:
    """The written report (§ 380-16 C(4)(f)[1]) with its checklist rows, every photo (downsized to PDF_PX, with
    its caption and the EXIF time and position) under the row it belongs to, and the signature."""
    return render_pdf("construction/pdf/inspection_report.html", inspection_report_context(inspection))


def inspection_report_context(inspection) -> dict:
    from django.utils import timezone

    p = inspection.project
    photos = _photo_uris(inspection.photos.select_related("document", "row"))
    rows = [(r, [x for x in photos if x[0].row_id == r.pk]) for r in inspection.rows.all()]
    signature = None
    if inspection.signature_document_id:
        signature = _data_uri("image/png", _stored(inspection.signature_document.file))
    return {
        **_base(p), "i": inspection, "on": timezone.localtime(inspection.inspected_at).date(),
        "punch": list(inspection.punch_items.all()), "rows": rows,
        "general_photos": [x for x in photos if x[0].row_id is None], "signature": signature}


def stop_work_pdf(order) -> bytes:
    return render_pdf("construction/pdf/stop_work.html", {**_base(order.project), "order": order,
                                                          "violations": list(order.violations.all()),
                                                          "on": order.issued_on})


def certificate_pdf(project, *, on: date) -> bytes:
    from stormwater.stewardship.selectors import final_plan_recorded

    site = project.permit.stewardship_sites.order_by("id").first()
    return render_pdf("construction/pdf/certificate.html", {
        **_base(project), "on": on, "plan": final_plan_recorded(site) if site else None, "site": site,
        "easements": list(site.easements.all()) if site else [],
        "as_built": project.as_builts.filter(accepted_on__isnull=False).order_by("-id").first(),
        "final": project.inspections.filter(kind="final", evaluation="compliant").order_by("-inspected_at").first()})
