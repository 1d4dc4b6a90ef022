"""The one gate every approval of a permit passes (issue 30: "two rules for one approval").

Ch. 380 § 380-10 I(1)(a)–(b): the DPW approves "based upon determination that the proposed plan meets the standards
… and is in compliance with the requirements set forth in these rules and regulations"; the unnumbered paragraph of
§ 380-10 makes approval "contingent on the application's completeness, demonstration of compliance with design
standards and inspections". The reviewer's checklists (§§ 380-11 B–C, 380-12, 380-13: the workbench's catalog) are
that demonstration, so an approval — with or without conditions — needs every item reviewed, no deficient or missing
item left unasked, and every item asked of the applicant answered (§ 380-10 E).

Every path that approves goes through ``permit_decide`` (the permit page, its preview, the JSON API, the workbench's
decision form), and ``permit_decide`` calls ``approval_check``: one rule, one wording. The catalog applies to every
permit application (it is the text's own list of plan contents), so no permit is approved without it; where an Order
of Conditions serves as the permit (§ 380-9 A) the DPW still takes part in the review, and the same gate applies.
A disapproval is not gated: the Director may disapprove on what is already known (§ 380-10 I(1)(c)).
"""
from __future__ import annotations

from stormwater.cases.services import TransitionError

ERR_UNREVIEWED = "Approval needs every checklist item reviewed: {n} not reviewed yet (e.g. § {first})."
ERR_OPEN = ("Approval needs no open deficiency: {n} deficient or missing item(s) (e.g. § {first}) — request them, "
            "mark them, or disapprove.")
ERR_REQUESTED = "Approval needs the applicant's response to the items requested ({n} outstanding)."
CITATION = "§ 380-10 I(1)(a)–(b); § 380-10 (approval contingent on demonstration of compliance)"


def approval_problem(app) -> str | None:
    """Why ``app`` may not be approved yet (None: it may): the reading the refusal and the permit page both give."""
    from stormwater.workbench.selectors import REQUESTED, item_states  # the checklists' state is the workbench's

    states = list(item_states(app).values())
    todo = [s for s in states if not s.reviewed]
    if todo:
        return ERR_UNREVIEWED.format(n=len(todo), first=todo[0].entry.para)
    open_ = [s for s in states if s.open_deficiency]
    if open_:
        return ERR_OPEN.format(n=len(open_), first=open_[0].entry.para)
    asked = [s for s in states if s.state == REQUESTED]
    if asked:
        return ERR_REQUESTED.format(n=len(asked))
    return None


def approval_check(app) -> None:
    """Refuse (``TransitionError``) an approval of ``app`` while its checklists are not fully reviewed and clear."""
    problem = approval_problem(app)
    if problem:
        raise TransitionError(problem)
