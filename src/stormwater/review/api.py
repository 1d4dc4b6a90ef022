"""JSON API of the review: run a plan, read a stored report, list the BMP tables in force."""
from __future__ import annotations

from django.http import JsonResponse
from django.views.decorators.http import require_GET, require_POST

from stormwater.accounts.access import require_perm
from stormwater.accounts.roles import Perm

from stormwater.web.jsonapi import MAX_BODY_BYTES, BadInput, check_text, parse_json

from .selectors import bmp_tables_in_force, review_get_for_user
from .services import ReviewInputError, review_run


def review_json(review) -> dict:
    return {"id": review.pk, "title": review.title, "overall": review.overall, "provisional": review.provisional,
            "created_at": review.created_at.isoformat(), "case": review.case.number if review.case else None,
            "input_name": review.input_name, "input_sha256": review.input_sha256, "results": review.results}


@require_POST  # not csrf_exempt: it acts with the signed-in session, so a foreign page must not drive it
@require_perm(Perm.REVIEW_RUN, api=True)
def api_review_run(request):
    """POST the plan itself (JSON or YAML body) → 201 with the stored report; ?title=…&case=… optional."""
    if len(request.body) > MAX_BODY_BYTES:
        return JsonResponse({"error": f"file: over {MAX_BODY_BYTES:,} bytes"}, status=400)
    try:
        text = request.body.decode("utf-8-sig")
    except UnicodeDecodeError:
        return JsonResponse({"error": "file: not UTF-8 text"}, status=400)
    name = "plan.json" if request.content_type == "application/json" else ""
    try:
        # Malformed input stops here, before the JSON or YAML parser (issue 15: a 5,000-digit body was a 500).
        check_text(text, field="file")
        if name or text.lstrip("\ufeff").strip().startswith("{"):
            parse_json(text)
    except BadInput as e:
        return JsonResponse({"error": str(e), **e.json_detail()}, status=400)
    try:
        review = review_run(input_text=text, input_name=name, title=request.GET.get("title", ""),
                            case_number=request.GET.get("case", ""), acting_user=request.user)
    except ReviewInputError as e:
        return JsonResponse({"error": str(e)}, status=400)
    except RecursionError:  # YAML block nesting deep enough to exhaust the parser
        return JsonResponse({"error": "file: nested too deeply"}, status=400)
    return JsonResponse(review_json(review), status=201)


@require_GET
@require_perm(Perm.REVIEW_RUN, api=True)
def api_review_detail(request, review_id: int):
    return JsonResponse(review_json(review_get_for_user(user=request.user, review_id=review_id)))


@require_GET
@require_perm(Perm.REVIEW_RUN, api=True)
def api_bmp_tables(request):
    return JsonResponse({"tables": [{"id": t.pk, "name": t.name, "version": t.version, "label": t.label,
                                     "source_citation": t.source_citation, "provisional": t.provisional,
                                     "summary": t.summary, "loaded_at": t.loaded_at.isoformat()}
                                    for t in bmp_tables_in_force()]})


