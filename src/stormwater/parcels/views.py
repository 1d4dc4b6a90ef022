from __future__ import annotations

import hashlib
import re
from datetime import date
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.audit.selectors import audit_for_object
from stormwater.imports.pipeline import ImportRefused
from stormwater.web.forms import form_refusal
from stormwater.web.postdata import refused

from .fees import fee_provider
from .forms import ClassOverrideForm, InstrumentForm
from .instrument_import import association_import
from .lists import ParcelList
from .models import AssociationUnit
from .record import parcel_record
from .selectors import (association_history, association_of, parcel_get_for_user,
                        parcel_impervious, parcels_for_user)
from .services import AssociationRefused, association_check, association_record, parcel_set_class_override


@require_perm()
def parcel_list(request):
    """Every parcel the user may see (``parcels_for_user``) on the one list mechanism: ``?q=`` searches address,
    parcel id and owner as before; class, land use, owner, impervious area and balance filter; ``export=csv|xlsx``."""
    lst = ParcelList(request, parcels_for_user(user=request.user))
    return lst.export_response() or render(request, "parcels/list.html", {"lst": lst})


def _detail_context(request, parcel, **extra) -> dict:
    today = date.today()
    pf = fee_provider().parcel_fee(parcel, as_of=today)  # the utility's fee path (parcels.fees)
    assoc = association_of(parcel)
    history = association_history(assoc) if assoc else []
    in_force = next((i for i in sorted(history, key=lambda i: (i.effective_on, i.pk), reverse=True)
                     if i.effective_on <= today), None)
    unit_of = (AssociationUnit.objects.filter(parcel=parcel).select_related("association__parcel").first())
    can_edit = request.user.can(Perm.PARCEL_EDIT) and unit_of is None
    ctx = {
        "parcel": parcel, "pf": pf, "area": parcel_impervious(parcel, as_of=today), "today": today,
        "association": assoc, "instruments": history, "in_force": in_force, "unit_of": unit_of,
        "can_record_instrument": can_edit,
        "instrument_form": InstrumentForm() if can_edit else None,
        "can_classify": request.user.can(Perm.PARCEL_CLASSIFY),
        "override_form": ClassOverrideForm(initial={"property_class": parcel.class_override}),
        "audit": audit_for_object(parcel)[:20] if request.user.can(Perm.AUDIT_VIEW) else [],
    }
    # Everything tied to the parcel (issue 16): accounts and bills, surveys, credits, abatements, permits,
    # construction, O&M sites — gathered above the parcel app (stormwater.pages.parcel_record), registered in
    # ``record``.
    ctx.update(parcel_record(parcel=parcel, user=request.user, today=today))
    return ctx | extra


@require_perm()
def parcel_detail(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    return render(request, "parcels/detail.html", _detail_context(request, parcel))


MAX_UPLOAD = 5 * 1024 * 1024  # a unit list of the largest condominium is a few kilobytes
ERR_TOO_BIG = "{name}: over 5 MB; a list of units and shares is far smaller. Is this the right file?"
ERR_GONE = "The checked file is no longer here: choose it again."
ERR_NO_ROWS = "Type the units (one a line) or choose a CSV file of them."


def _held(checksum: str) -> Path:
    """Where a checked upload waits for "Record" (named by its SHA-256: the file recorded is the file checked)."""
    return Path(settings.MEDIA_ROOT) / "imports" / f"association-{checksum}.csv"


def _add_problems(form: InstrumentForm, problems: list[dict], *, rows_field: str) -> None:
    """The service's refusals on the form: a field of the instrument on that field; a unit row's on the rows
    (typed lines) or the form (a file), naming the row and the column."""
    for p in problems:
        if p.get("row") is None and p["field"] in form.fields and p["field"] not in ("shares", "share_percent"):
            form.add_error(p["field"], p["message"])
        elif p.get("row") is None and p["field"] == "parcel":
            form.add_error(None, p["message"])
        else:
            where = f"row {p['row']} {p['field']}: " if p.get("row") is not None else f"{p['field']}: "
            form.add_error(rows_field or None, where + p["message"])


@require_POST
@require_perm(Perm.PARCEL_EDIT)
def parcel_association(request, parcel_id: str):
    """Record a new instrument of the association on this (master) parcel (Ch. 295 Art. IV ¶G), from the typed unit
    rows or a CSV file: "Check" is the dry run (what would be recorded, or every refusal by row and field);
    "Record" records it. A file goes through the import pipeline (``instrument_import.association_import``) and is
    held between the two steps under its checksum."""
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    form = InstrumentForm(request.POST, request.FILES)
    record = request.POST.get("action") == "record"
    preview, held = None, {}
    if form.is_valid():
        cd = form.cleaned_data
        args = {"parcel": parcel, "reference": cd["reference"], "recorded_on": cd["recorded_on"],
                "effective_on": cd["effective_on"], "name": cd["name"], "note": cd["note"]}
        checksum, source = request.POST.get("checksum", ""), request.POST.get("source", "upload.csv")[:200]
        f = cd.get("file")
        if f is not None:
            if f.size > MAX_UPLOAD:
                form.add_error("file", ERR_TOO_BIG.format(name=f.name))
            else:
                data = f.read()
                checksum, source = hashlib.sha256(data).hexdigest(), Path(f.name).name or "upload.csv"
                _held(checksum).parent.mkdir(parents=True, exist_ok=True)
                _held(checksum).write_bytes(data)
        elif checksum and (not re.fullmatch(r"[0-9a-f]{64}", checksum) or not _held(checksum).exists()):
            form.add_error("file", ERR_GONE)
            checksum = ""
        if form.errors:
            pass
        elif checksum and not form.share_rows():
            held = {"checksum": checksum, "source": source}
            try:
                res = association_import(path=_held(checksum), source=source, acting_user=request.user,
                                         dry_run=not record, **args)
            except ImportRefused as e:
                for p in e.problems:
                    if p.severity == "error":
                        form.add_error("file", p.message)
            else:
                if record:
                    _held(checksum).unlink(missing_ok=True)
                    messages.success(request, _recorded_message(res.instrument, res.outcome == "applied", source))
                    return redirect("parcel_detail", parcel_id=parcel.parcel_id)
                preview = res.preview
        elif not form.share_rows():
            form.add_error("shares", ERR_NO_ROWS)
        else:
            try:
                if record:
                    inst, created = association_record(shares=form.share_rows(), acting_user=request.user, **args)
                    messages.success(request, _recorded_message(inst, created, ""))
                    return redirect("parcel_detail", parcel_id=parcel.parcel_id)
                preview = association_check(shares=form.share_rows(), **args).as_json()
            except AssociationRefused as e:
                _add_problems(form, e.problems, rows_field="shares")
    ctx = _detail_context(request, parcel)
    ctx |= {"instrument_form": form, "instrument_preview": preview, "instrument_held": held}
    return render(request, "parcels/detail.html", ctx, status=200 if preview or not form.errors else 400)


def _recorded_message(inst, created: bool, source: str) -> str:
    if not created:
        return f"Instrument {inst.reference} is already on file with these shares: nothing recorded again."
    return (f"Instrument {inst.reference} recorded{f' from {source}' if source else ''}: "
            f"{inst.shares.count()} units, in force for bills made from {inst.effective_on}.")


@require_POST
@require_perm(Perm.PARCEL_CLASSIFY)
def parcel_class_override(request, parcel_id: str):
    parcel = parcel_get_for_user(user=request.user, parcel_id=parcel_id)
    form = ClassOverrideForm(request.POST)
    to = reverse("parcel_detail", args=[parcel.parcel_id])
    if not form.is_valid():  # refused: the parcel's page again with the form as sent, the error at its field
        return refused(request, form_refusal(form), to)
    try:
        parcel_set_class_override(parcel=parcel, property_class=form.cleaned_data["property_class"],
                                  reason=form.cleaned_data["reason"], acting_user=request.user)
    except ValueError as e:
        return refused(request, e, to)
    messages.success(request, "Class recorded.")
    return redirect(to)
