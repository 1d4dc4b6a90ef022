"""The permit application and the waiver request as state machines (Ch. 380 § 380-10, § 380-8).

Each status, each allowed move, each clock it stops or meets, in tables. The one transition service
is ``cases.services.case_transition``; the permit services call it with their preconditions.
"""
from __future__ import annotations

from django.db import models

from stormwater.cases.machines import Machine, register

PERMIT = "permit"
WAIVER = "waiver"


class Status(models.TextChoices):
    DRAFT = "draft", "Draft (not filed)"
    FILED = "filed", "Filed: completeness to be determined"
    INCOMPLETE = "incomplete", "Incomplete: waiting on the applicant"
    UNDER_REVIEW = "under_review", "Complete: under review"
    INFO_REQUESTED = "info_requested", "Information requested"
    CONSULTANT_FEE_DUE = "consultant_fee_due", "Outside consultant selected: fee requested"
    CONSULTANT_APPEAL = "consultant_appeal", "Consultant selection appealed to the Select Board"
    APPROVED = "approved", "Approved"
    APPROVED_WITH_CONDITIONS = "approved_conditions", "Approved with conditions"
    DISAPPROVED = "disapproved", "Disapproved"
    DENIED = "denied", "Denied (administratively incomplete or consultant fee unpaid)"
    WITHDRAWN = "withdrawn", "Withdrawn"
    CLOSED = "closed", "Closed: review and oversight complete"


S = Status
DECIDED = frozenset({S.APPROVED, S.APPROVED_WITH_CONDITIONS, S.DISAPPROVED, S.DENIED, S.WITHDRAWN})

TRANSITIONS: dict[Status, frozenset[Status]] = {
    # § 380-10 B: the owner or agent files the package.
    S.DRAFT: frozenset({S.FILED, S.WITHDRAWN}),
    # § 380-10 D: no review until the application is determined complete.
    S.FILED: frozenset({S.INCOMPLETE, S.UNDER_REVIEW, S.WITHDRAWN}),
    # § 380-10 D: items by the Director's date, or denial as administratively incomplete.
    S.INCOMPLETE: frozenset({S.FILED, S.DENIED, S.WITHDRAWN}),
    # § 380-10 E, G(2), I(1); G(2)(d): an additional consultant fee unpaid after 10 business days → denial.
    S.UNDER_REVIEW: frozenset({S.INFO_REQUESTED, S.CONSULTANT_FEE_DUE, S.APPROVED, S.APPROVED_WITH_CONDITIONS,
                               S.DISAPPROVED, S.DENIED, S.WITHDRAWN}),
    # § 380-10 E: the applicant submits the information; I(1)(c) the plan as submitted may be disapproved.
    S.INFO_REQUESTED: frozenset({S.UNDER_REVIEW, S.DISAPPROVED, S.WITHDRAWN}),
    # § 380-10 G(2)(c)–(e): pay (review begins), appeal the selection, withdraw, or denial for non-payment.
    S.CONSULTANT_FEE_DUE: frozenset({S.UNDER_REVIEW, S.CONSULTANT_APPEAL, S.DENIED, S.WITHDRAWN}),
    # § 380-10 G(2)(e): the Select Board upholds (fee still due) or disqualifies (review goes on).
    S.CONSULTANT_APPEAL: frozenset({S.CONSULTANT_FEE_DUE, S.UNDER_REVIEW, S.WITHDRAWN}),
    # § 380-10 G(2)(f): when review and oversight are complete the file closes and the 53G balance is refunded.
    S.APPROVED: frozenset({S.CLOSED}),
    S.APPROVED_WITH_CONDITIONS: frozenset({S.CLOSED}),
    S.DISAPPROVED: frozenset({S.CLOSED}),
    S.DENIED: frozenset({S.CLOSED}),
    S.WITHDRAWN: frozenset({S.CLOSED}),
    S.CLOSED: frozenset(),
}

# Clock kinds of a permit file (cases.Clock.kind).
ACTION = "action"                        # 42 days from filing, § 380-10 I(2)
CURE = "cure"                            # the Director's date for missing items, § 380-10 D
CONSULTANT_WITHDRAWAL = "consultant_withdrawal"  # 5 days from the consultant notice, § 380-10 G(2)(c)
CONSULTANT_PAYMENT = "consultant_payment"        # 10 business days from the request, § 380-10 G(2)(d)
CONSULTANT_APPEAL_WINDOW = "consultant_appeal_window"  # 10 days from the request, § 380-10 G(2)(e)
REFUND = "refund"                        # 30 days from completion, § 380-10 G(2)(f)
PROJECT_START = "project_start"          # two years from issuance, § 380-10 K

_DECISION_MEETS = (ACTION, CURE, CONSULTANT_PAYMENT, CONSULTANT_WITHDRAWAL, CONSULTANT_APPEAL_WINDOW)

PERMIT_MACHINE = register(Machine(
    kind=PERMIT, number_prefix="SWP", initial=S.DRAFT,
    transitions={k.value: frozenset(v.value for v in vs) for k, vs in TRANSITIONS.items()},
    labels={s.value: s.label for s in Status},
    tolls={
        # § 380-10 D and I(2): the 42 days are extended while the application is incomplete …
        S.INCOMPLETE: ((ACTION, "application incomplete (§ 380-10 D, I(2))"),),
        # … and while information requested by the Director is outstanding (§ 380-10 E, I(2)).
        S.INFO_REQUESTED: ((ACTION, "requested information outstanding (§ 380-10 E, I(2))"),),
        # § 380-10 G(2)(e): time limits extended by the duration of the appeal; G(2)(d): the appeal stops
        # the payment countdown, which resumes the first business day after the decision.
        S.CONSULTANT_APPEAL: ((ACTION, "consultant selection under appeal (§ 380-10 G(2)(e))"),
                              (CONSULTANT_PAYMENT, "appeal stops the payment countdown (§ 380-10 G(2)(d))")),
    },
    meets={
        S.FILED: (CURE,),                               # the missing items came in
        S.UNDER_REVIEW: (CONSULTANT_PAYMENT,),          # fee paid, or the consultant disqualified
        S.CONSULTANT_APPEAL: (CONSULTANT_APPEAL_WINDOW,),
        **{s: _DECISION_MEETS for s in DECIDED},
    },
    closed=frozenset({S.CLOSED.value}),
))


class WaiverStatus(models.TextChoices):
    REQUESTED = "requested", "Requested: under review"
    INFO_REQUESTED = "info_requested", "More time or information requested"
    GRANTED = "granted", "Granted"
    DENIED = "denied", "Denied"
    WITHDRAWN = "withdrawn", "Withdrawn"


W = WaiverStatus
WAIVER_TRANSITIONS: dict[WaiverStatus, frozenset[WaiverStatus]] = {
    # § 380-8 B–D: a written request with justification; public comment; the Director decides.
    W.REQUESTED: frozenset({W.INFO_REQUESTED, W.GRANTED, W.DENIED, W.WITHDRAWN}),
    # § 380-8 D: review continues until the information is provided; denied if the applicant objects to
    # the continuance or fails to provide it.
    W.INFO_REQUESTED: frozenset({W.REQUESTED, W.DENIED, W.WITHDRAWN}),
    W.GRANTED: frozenset(),
    W.DENIED: frozenset(),
    W.WITHDRAWN: frozenset(),
}

WAIVER_MACHINE = register(Machine(
    kind=WAIVER, number_prefix="SWW", initial=W.REQUESTED,
    transitions={k.value: frozenset(v.value for v in vs) for k, vs in WAIVER_TRANSITIONS.items()},
    labels={s.value: s.label for s in WaiverStatus},
    closed=frozenset({W.GRANTED.value, W.DENIED.value, W.WITHDRAWN.value}),
))
