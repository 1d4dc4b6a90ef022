"""Credit applications, abatements, appeals to the Select Board and §16E lien abatements as state
machines (tables), registered with ``cases.machines``. The one transition service is
``cases.services.case_transition``; ``relief.services`` calls it with each move's preconditions."""
from __future__ import annotations

from django.db import models

from stormwater.cases.machines import Machine, register
from stormwater.rules.deadlines import CLOCKS, OWNER

CREDIT, ABATEMENT, APPEAL, LIEN = "credit", "abatement", "appeal", "lien_abatement"
KINDS = (CREDIT, ABATEMENT, APPEAL, LIEN)

# Clock kinds (cases.Clock.kind) are the names of rules.deadlines.CLOCKS, plus the recertification.
CREDIT_DECISION = "credit_decision"
ABATEMENT_DECISION = "abatement_decision"
APPEAL_FILING = "appeal_filing"
HEARING = "appeal_hearing_latest"
NOTICE = "hearing_notice_latest"
APPEAL_DECISION = "appeal_decision"
ATB = "atb_appeal"
RECERTIFICATION = "recertification"


def clock_party(kind: str) -> str:
    """Who must act by a clock's date: the Town (flagged when missed) or the owner."""
    if kind == RECERTIFICATION:
        return OWNER
    rule = CLOCKS.get(kind)
    return rule.party if rule else "town"


def _machine(kind, prefix, initial, status_cls, table, *, meets=None, closed=()):
    return register(Machine(
        kind=kind, number_prefix=prefix, initial=initial,
        transitions={k.value: frozenset(v.value for v in vs) for k, vs in table.items()},
        labels={s.value: s.label for s in status_cls}, meets=meets or {},
        closed=frozenset(s.value for s in closed)))


class CreditStatus(models.TextChoices):
    FILED = "filed", "Filed: completeness to be determined"
    INCOMPLETE = "incomplete", "Incomplete: waiting on the owner"
    UNDER_REVIEW = "under_review", "Complete: Director's decision due"
    GRANTED = "granted", "Granted in full"
    GRANTED_PART = "granted_part", "Granted in part"
    DENIED = "denied", "Denied"
    GRANTED_ON_APPEAL = "granted_on_appeal", "Granted by the Select Board on appeal"
    REVOKED = "revoked", "Revoked"
    WITHDRAWN = "withdrawn", "Withdrawn"


C = CreditStatus
CREDIT_TRANSITIONS = {
    # credits ¶D: the application is "fully completed in accordance with the procedures" of the policy.
    C.FILED: frozenset({C.INCOMPLETE, C.UNDER_REVIEW, C.WITHDRAWN}),
    C.INCOMPLETE: frozenset({C.FILED, C.WITHDRAWN}),
    # credits ¶E: 30 days from acceptance to grant in whole, in part, or deny.
    C.UNDER_REVIEW: frozenset({C.GRANTED, C.GRANTED_PART, C.DENIED, C.WITHDRAWN}),
    # credits ¶C: revocable for noncompliance; appeals ¶A: a denial in whole or part may be reversed.
    C.GRANTED: frozenset({C.REVOKED}),
    C.GRANTED_PART: frozenset({C.GRANTED_ON_APPEAL, C.REVOKED}),
    C.DENIED: frozenset({C.GRANTED_ON_APPEAL}),
    C.GRANTED_ON_APPEAL: frozenset({C.REVOKED}),
    C.REVOKED: frozenset(),
    C.WITHDRAWN: frozenset(),
}
CREDIT_DECIDED = (C.GRANTED, C.GRANTED_PART, C.DENIED)
CREDIT_MACHINE = _machine(CREDIT, "SWC", C.FILED, CreditStatus, CREDIT_TRANSITIONS,
                          meets={**{s.value: (CREDIT_DECISION,) for s in CREDIT_DECIDED},
                                 C.WITHDRAWN.value: (CREDIT_DECISION,),
                                 C.REVOKED.value: (RECERTIFICATION,),
                                 C.GRANTED_ON_APPEAL.value: (APPEAL_FILING,)},
                          closed=(C.REVOKED, C.WITHDRAWN))


class AbatementStatus(models.TextChoices):
    FILED = "filed", "Filed: DPW decision due"
    GRANTED = "granted", "Granted in full"
    GRANTED_PART = "granted_part", "Granted in part"
    DENIED = "denied", "Denied"
    REVERSED_ON_APPEAL = "reversed_on_appeal", "Abated by the Select Board on appeal"
    WITHDRAWN = "withdrawn", "Withdrawn"


A = AbatementStatus
ABATEMENT_TRANSITIONS = {
    # billing ¶E: 60 days to deny, grant in full or grant in part, in writing.
    # appeals ¶A: a credit reversed on appeal is also abated from a bill paid in full whose abatement the owner
    # requested; that request is then disposed of by the Select Board's decision (issue 17: it stayed pending and
    # could be granted a second time).
    A.FILED: frozenset({A.GRANTED, A.GRANTED_PART, A.DENIED, A.WITHDRAWN, A.REVERSED_ON_APPEAL}),
    A.GRANTED: frozenset(),
    # appeals ¶A: a denial in whole or in part may be appealed and reversed.
    A.GRANTED_PART: frozenset({A.REVERSED_ON_APPEAL}),
    A.DENIED: frozenset({A.REVERSED_ON_APPEAL}),
    A.REVERSED_ON_APPEAL: frozenset(),
    A.WITHDRAWN: frozenset(),
}
ABATEMENT_MACHINE = _machine(ABATEMENT, "SWA", A.FILED, AbatementStatus, ABATEMENT_TRANSITIONS,
                             meets={**{s.value: (ABATEMENT_DECISION,) for s in (A.GRANTED, A.GRANTED_PART, A.DENIED,
                                                                                A.WITHDRAWN)},
                                    A.REVERSED_ON_APPEAL.value: (APPEAL_FILING,)},
                             closed=(A.GRANTED, A.REVERSED_ON_APPEAL, A.WITHDRAWN))


class AppealStatus(models.TextChoices):
    FILED = "filed", "Filed: record to be transmitted to the Select Board"
    RECORD_TRANSMITTED = "record_transmitted", "Record transmitted: hearing to be set"
    HEARING_SCHEDULED = "hearing_scheduled", "Hearing scheduled"
    HEARING_CLOSED = "hearing_closed", "Hearing concluded: written decision due"
    AFFIRMED = "affirmed", "Affirmed"
    REVERSED = "reversed", "Reversed"
    WITHDRAWN = "withdrawn", "Withdrawn"


class LienStatus(models.TextChoices):
    FILED = "filed", "Filed (copy to the Assessors): record to be transmitted to the Select Board"
    RECORD_TRANSMITTED = "record_transmitted", "Record transmitted: hearing to be set"
    HEARING_SCHEDULED = "hearing_scheduled", "Hearing scheduled"
    HEARING_CLOSED = "hearing_closed", "Hearing concluded: written decision due"
    GRANTED = "granted", "Abatement granted in full"
    GRANTED_PART = "granted_part", "Abatement granted in part (Appellate Tax Board notice)"
    DENIED = "denied", "Abatement denied (Appellate Tax Board notice)"
    WITHDRAWN = "withdrawn", "Withdrawn"


def _hearing_table(status_cls, decisions):
    s = status_cls
    return {
        # appeals ¶A: on filing the Department forthwith transmits the record to the Select Board …
        s.FILED: frozenset({s.RECORD_TRANSMITTED, s.WITHDRAWN}),
        # … which sets a hearing within 90 days of the filing, with notice ≥ 10 days before …
        s.RECORD_TRANSMITTED: frozenset({s.HEARING_SCHEDULED, s.WITHDRAWN}),
        s.HEARING_SCHEDULED: frozenset({s.HEARING_CLOSED, s.WITHDRAWN}),
        # … and decides in writing within 30 days of the conclusion of the hearing.
        s.HEARING_CLOSED: frozenset(decisions),
        **{d: frozenset() for d in decisions},
        s.WITHDRAWN: frozenset(),
    }


APPEAL_DECIDED = (AppealStatus.AFFIRMED, AppealStatus.REVERSED)
LIEN_DECIDED = (LienStatus.GRANTED, LienStatus.GRANTED_PART, LienStatus.DENIED)
_HEARING_MEETS = {"hearing_closed": (HEARING,), "withdrawn": (HEARING, NOTICE, APPEAL_DECISION)}
APPEAL_MACHINE = _machine(APPEAL, "SWB", AppealStatus.FILED, AppealStatus,
                          _hearing_table(AppealStatus, APPEAL_DECIDED),
                          meets={**_HEARING_MEETS, **{s.value: (APPEAL_DECISION,) for s in APPEAL_DECIDED}},
                          closed=(*APPEAL_DECIDED, AppealStatus.WITHDRAWN))
LIEN_MACHINE = _machine(LIEN, "SWL", LienStatus.FILED, LienStatus, _hearing_table(LienStatus, LIEN_DECIDED),
                        meets={**_HEARING_MEETS, **{s.value: (APPEAL_DECISION,) for s in LIEN_DECIDED}},
                        closed=(LienStatus.GRANTED, LienStatus.WITHDRAWN))
