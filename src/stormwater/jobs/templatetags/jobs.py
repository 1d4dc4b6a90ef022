"""Template tags a page uses to start jobs about its record and show them live:

    {% load jobs %}
    {% job_button "bills_email" run=run.pk %}     a start button, shown to those whose role may start it
    {% jobs_live run %}                           the jobs about ``run``, live (polling /api/jobs/<id>/)
"""
from django import template

from stormwater.jobs.registry import kind_get, may_start
from stormwater.jobs.selectors import jobs_for_subject

register = template.Library()


@register.inclusion_tag("jobs/_start.html", takes_context=True)
def job_button(context, kind: str, note: str = "", **params):
    k = kind_get(kind)
    request = context["request"]
    return {"show": may_start(request.user, k), "kind": k.name, "label": k.label, "params": params, "note": note,
            "request": request, "csrf_token": context.get("csrf_token")}


@register.inclusion_tag("jobs/_for_subject.html", takes_context=True)
def jobs_live(context, obj):
    request = context["request"]
    return {"subject_jobs": jobs_for_subject(user=request.user, obj=obj), "request": request}
