"""Web pages for plan sheets, pinned comments, the review letter (reviewers) and the applicant's
answers on resubmission (through the permit file). Thin: parse, call one service, render."""
from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm
from stormwater.web.files import document_response, download
from stormwater.web.forms import FieldRefusal
from stormwater.web.postdata import record_id, refused

from .selectors import case_get_for_review, review_get_for_user
from .sheets import (SheetError, comments_of, pins_of, plan_sheets_resubmit, plan_sheets_upload, ref_choices,
                     review_case_attach, review_document_add, sheet_comment_add, sheet_comment_resolve, sheet_sets_of)


class SheetUploadForm(forms.Form):
    file = forms.FileField(label="Plan set (PDF)", help_text="All the sheets in one PDF.")
    note = forms.CharField(required=False, max_length=500, label="Note (optional)")


class HydroCadForm(forms.Form):
    file = forms.FileField(label="HydroCAD report (PDF)", help_text="The applicant's HydroCAD output, kept in the case file.")


class AttachCaseForm(forms.Form):
    case_number = forms.CharField(max_length=30, label="Permit case number")


class CommentForm(forms.Form):
    page = forms.IntegerField(min_value=1, label="Sheet", help_text="Click the sheet, or give its number.")
    x = forms.FloatField(min_value=0, max_value=100, label="Across (%)", help_text="From the sheet's left edge.")
    y = forms.FloatField(min_value=0, max_value=100, label="Down (%)", help_text="From the sheet's top edge.")
    sheet_label = forms.CharField(required=False, max_length=40, label="Sheet number on the drawing (e.g. C-4)")
    ref = forms.ChoiceField(label="Concerns", help_text="The checklist item or standard the comment is about.")
    text = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Comment")

    def __init__(self, *args, groups=(), **kw):
        kw.setdefault("label_suffix", "")
        super().__init__(*args, **kw)
        self.fields["ref"].choices = [("", "— choose —"), *[(g, opts) for g, opts in groups]]
        self.labels = {k: v for _g, opts in groups for k, v in opts}


class ResolveForm(forms.Form):
    note = forms.CharField(required=False, max_length=500, label="How it was resolved")


def _selected_set(sets, request):
    if not sets:
        return None
    v = request.GET.get("v")
    if v and v.isdigit():
        for s in sets:
            if s.version == int(v):
                return s
        raise Http404("no such plan set version")
    return sets[-1]


def _refused(request, e: SheetError | FieldRefusal) -> None:
    messages.error(request, str(e))


POINT = {"point": "page"}  # a SheetError's leading name → the comment form's input it concerns


def _at_field(form: forms.Form, e: SheetError) -> None:
    """The refusal ``e`` ("<name>: why") at its input of ``form`` (issue 16 "Forms"), or at the top of the form."""
    head, _, why = str(e).partition(": ")
    name = POINT.get(head, head)
    if name in form.fields and why:
        form.add_error(name, why)
    else:
        form.add_error(None, str(e))


@require_perm(Perm.REVIEW_RUN)
def review_sheets(request, review_id: int):
    """The plan set in the browser (pdf.js), the comments pinned to it, and the forms to add to them."""
    review = review_get_for_user(user=request.user, review_id=review_id)
    case = review.case
    groups = ref_choices(review)
    comment_form = CommentForm(groups=groups)
    upload_form = SheetUploadForm()
    if request.method == "POST" and case is not None:
        act = request.POST.get("act", "")
        form = None
        try:
            if act == "upload":
                upload_form = form = SheetUploadForm(request.POST, request.FILES)
                if upload_form.is_valid():
                    s = plan_sheets_upload(case=case, upload=upload_form.cleaned_data["file"],
                                           note=upload_form.cleaned_data["note"], acting_user=request.user)
                    messages.success(request, f"Plan set v{s.version} filed in case {case.number}.")
                    return redirect(f"{request.path}?v={s.version}")
            elif act == "comment":
                comment_form = form = CommentForm(request.POST, groups=groups)
                sets = sheet_sets_of(case)
                target = next((s for s in sets if str(s.pk) == request.POST.get("sheet_set")), None)
                if target is None:
                    raise SheetError("sheet_set: no such plan set")
                if comment_form.is_valid():
                    d = comment_form.cleaned_data
                    c = sheet_comment_add(sheet_set=target, page=d["page"], x=d["x"] / 100.0, y=d["y"] / 100.0,
                                          text=d["text"], ref_key=d["ref"], ref_label=comment_form.labels.get(d["ref"], ""),
                                          sheet_label=d["sheet_label"], review=review, acting_user=request.user)
                    messages.success(request, f"Comment {c.number} pinned to sheet {c.page}.")
                    return redirect(f"{request.path}?v={target.version}#comment-{c.number}")
            elif act == "resolve":
                c = get_object_or_404(case.sheet_comments, pk=record_id(request.POST.get("comment"), "comment"))
                f = ResolveForm(request.POST)
                if f.is_valid():
                    sheet_comment_resolve(comment=c, note=f.cleaned_data["note"], acting_user=request.user)
                    messages.success(request, f"Comment {c.number} resolved.")
                    return redirect(f"{request.path}#comment-{c.number}")
        except (SheetError, FieldRefusal) as e:
            if form is None:
                _refused(request, e)
            else:  # the form again as it was sent, the error at its input
                _at_field(form, e)
    sets = sheet_sets_of(case)
    current = _selected_set(sets, request)
    comments = comments_of(case)
    status = 400 if (comment_form.errors or upload_form.errors) else 200
    return render(request, "review/sheets.html", {
        "review": review, "case": case, "sets": sets, "current": current, "comments": comments,
        "pins": pins_of(comments, current), "comment_form": comment_form,
        "upload_form": upload_form, "resolve_form": ResolveForm(),
        "pdf_url": (f"/reviews/{review.pk}/sheets/{current.pk}.pdf" if current else "")}, status=status)


@require_perm(Perm.REVIEW_RUN)
def review_sheet_pdf(request, review_id: int, set_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    if review.case is None:
        raise Http404("no plan set")
    s = get_object_or_404(review.case.plan_sheet_sets.select_related("document"), pk=set_id)
    return document_response(s.document)


def _letter_context(review, user):
    """The letter is the Town's, signed by the person who issues it (issue 18: the reviewer's name and contact)."""
    from .documents import reviewer_contact

    comments = comments_of(review.case)
    rows = [s for s in review.results.get("standards", []) if s["status"] in ("fail", "not_assessable")]
    return {"review": review, "r": review.results, "comments": comments, "open_rows": rows,
            "sets": sheet_sets_of(review.case), "reviewer": reviewer_contact(user)}


@require_perm(Perm.REVIEW_RUN)
def review_letter(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    return render(request, "review/letter.html", _letter_context(review, request.user))


@require_perm(Perm.REVIEW_RUN)
def review_letter_pdf(request, review_id: int):
    from stormwater.utility.documents import render_pdf

    review = review_get_for_user(user=request.user, review_id=review_id)
    return download(render_pdf("review/letter_pdf.html", _letter_context(review, request.user)),
                    name=f"review-letter-{review.pk}", ext="pdf")


@require_POST
@require_perm(Perm.REVIEW_RUN)
def review_attach_case(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    f = AttachCaseForm(request.POST)
    case = case_get_for_review(user=request.user, number=request.POST.get("case_number", "")) if f.is_valid() else None
    to = reverse("review_detail", kwargs={"review_id": review.pk})
    # Refused: the review's page again with the number as typed and the error at it (issue 16 "Forms").
    if case is None:
        return refused(request, FieldRefusal("case: no such case (or it is not one you work on)", "case_number"), to)
    try:
        review_case_attach(review=review, case=case, acting_user=request.user)
    except SheetError as e:
        return refused(request, FieldRefusal(str(e), "case_number"), to)
    messages.success(request, f"Review attached to case {case.number}.")
    return redirect("review_detail", review_id=review.pk)


@require_POST
@require_perm(Perm.REVIEW_RUN)
def review_hydrocad_upload(request, review_id: int):
    review = review_get_for_user(user=request.user, review_id=review_id)
    f = HydroCadForm(request.POST, request.FILES)
    to = reverse("review_detail", kwargs={"review_id": review.pk})
    # Refused: the review's page again with the error at the file input (a file is never sent back).
    if not f.is_valid():
        return refused(request, FieldRefusal("file: choose the HydroCAD report (PDF)", "file"), to)
    try:
        review_document_add(review=review, upload=f.cleaned_data["file"], acting_user=request.user)
    except SheetError as e:
        field = "file" if str(e).startswith("file") else None
        return refused(request, FieldRefusal(f"{e}. Choose the file again." if field else str(e), field), to)
    messages.success(request, "HydroCAD report kept in the case file.")
    return redirect("review_detail", review_id=review.pk)


# --- the applicant, through the permit file ----------------------------------------------------------

@require_perm()
def permit_plan_sheets(request, number: str):
    """The applicant's view of the plan sheets and comments; a resubmission answers every open comment."""
    from stormwater.permits.selectors import may_act_for_applicant, permit_get_for_user

    app = permit_get_for_user(user=request.user, number=number)
    case = app.case
    comments = comments_of(case)
    open_comments = [c for c in comments if c.resolved_at is None]
    can_act = may_act_for_applicant(request.user, app)
    errors: dict[str, str] = {}
    if request.method == "POST":
        if not can_act:
            raise PermissionDenied("only the applicant answers the review comments")
        upload = request.FILES.get("file")
        answers = {c.pk: request.POST.get(f"answer-{c.pk}", "") for c in open_comments}
        for c in open_comments:
            if not answers[c.pk].strip():
                errors[f"answer-{c.pk}"] = f"Answer comment {c.number}."
        if upload is None:
            errors["file"] = "Choose the revised plan set (PDF)."
        if not errors:
            try:
                s = plan_sheets_resubmit(case=case, upload=upload, answers=answers, note=request.POST.get("note", ""),
                                         acting_user=request.user)
            except SheetError as e:
                errors["file" if e.args[0].startswith("file") else "form"] = str(e)
            else:
                messages.success(request, f"Plan set v{s.version} and your answers were filed.")
                return redirect("permit_plan_sheets", number=number)
        if errors and upload is not None and "file" not in errors:  # a file is never sent back: say so at it
            errors["file"] = "Choose the revised plan set (PDF) again: a file is not kept when the form is refused."
    sets = sheet_sets_of(case)
    current = _selected_set(sets, request)
    return render(request, "review/permit_sheets.html", {
        "app": app, "case": case, "sets": sets, "current": current, "comments": comments,
        "open_comments": open_comments, "can_act": can_act, "errors": errors, "note": request.POST.get("note", ""),
        "answer_rows": [{"c": c, "value": request.POST.get(f"answer-{c.pk}", ""), "error": errors.get(f"answer-{c.pk}", "")}
                        for c in open_comments],
        "pins": pins_of(comments, current),
        "pdf_url": (f"/permits/{number}/documents/{current.document_id}/" if current else "")},
        status=400 if errors else 200)
