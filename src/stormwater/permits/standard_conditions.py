"""The Director's library of standard permit conditions (issue 30; Ch. 380 § 380-10 I(1)(b): an approval "with
conditions, modifications or restrictions"). Each names the section of the rules it comes from; the decision form
offers the active ones, and their text is copied into the decision's conditions, where the Director edits it before
recording the decision (``decision.permit_decide`` keeps only what the conditions box holds)."""
from __future__ import annotations

from django.db import transaction

from stormwater.audit.services import audit_record
from stormwater.web.forms import FieldRefusal

from .models import StandardCondition

ERR_CITATION = "Name the section of the rules the condition comes from (e.g. § 380-16 B)."
ERR_TEXT = "Give the condition's text as the permit will state it."


def standard_conditions_active():
    return StandardCondition.objects.filter(active=True)


def standard_condition_texts(ids) -> list[str]:
    """The texts of the chosen conditions, in the library's order (unknown or retired ids are ignored)."""
    return list(standard_conditions_active().filter(pk__in=[i for i in ids if str(i).isdigit()])
                .values_list("text", flat=True))


def conditions_with_standard(typed: str, ids) -> str:
    """The conditions box with the chosen standard conditions added at its end, one a line; a text already there is
    not added twice."""
    lines = [x.rstrip() for x in (typed or "").splitlines() if x.strip()]
    for text in standard_condition_texts(ids):
        one_line = " ".join(text.split())  # the box holds one condition a line
        if one_line not in lines:
            lines.append(one_line)
    return "\n".join(lines)


@transaction.atomic
def standard_condition_save(*, acting_user, title: str, text: str, citation: str, active: bool = True, seq: int = 0,
                            condition: StandardCondition | None = None) -> StandardCondition:
    """Add a standard condition (``condition`` None) or change one; retiring is ``active=False`` (the decisions
    that used it keep their own copy of the text)."""
    if not citation.strip():
        raise FieldRefusal(ERR_CITATION, "citation")
    if not text.strip():
        raise FieldRefusal(ERR_TEXT, "text")
    c = condition or StandardCondition()
    c.title, c.text, c.citation, c.active, c.seq = title.strip(), " ".join(text.split()), citation.strip(), active, seq
    c.save()
    audit_record(actor=acting_user, action="standard_condition_save", obj=c,
                 data={"title": c.title, "citation": c.citation, "active": c.active})
    return c
