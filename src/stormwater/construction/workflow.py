"""Construction oversight of a permitted project as a state machine (Ch. 380 § 380-16 – § 380-19).

A case of kind "construction" is opened for an approved permit (its parent is the permit case). The
one transition service is ``cases.services.case_transition``; the construction services call it with
the preconditions each move needs.
"""
from __future__ import annotations

from django.db import models

from stormwater.cases.machines import Machine, register

CONSTRUCTION = "construction"


class Status(models.TextChoices):
    PRECONSTRUCTION = "preconstruction", "Approved: before land disturbance"
    ACTIVE = "active", "Construction under way"
    STOP_WORK = "stop_work", "Stop-work order in force"
    ENFORCEMENT = "enforcement", "Referred for enforcement (§ 380-19)"
    COMPLETED = "completed", "Certificate of completion issued"


S = Status
TRANSITIONS: dict[Status, frozenset[Status]] = {
    # § 380-16 A, § 380-17 A, § 380-16 C(4)(b)[1]: pre-construction meeting (if required), surety posted,
    # erosion controls inspected before the start of construction.
    S.PRECONSTRUCTION: frozenset({S.ACTIVE}),
    # § 380-16 C(4)(e)[5]: a stop-work order on a violation; § 380-16 C(4)(f)[2], § 380-19: enforcement;
    # § 380-18: the certificate of completion.
    S.ACTIVE: frozenset({S.STOP_WORK, S.ENFORCEMENT, S.COMPLETED}),
    # § 380-16 C(4)(e)[5]: lifted when the violations are corrected and the work approved; or escalated.
    S.STOP_WORK: frozenset({S.ACTIVE, S.ENFORCEMENT}),
    # § 380-19: enforcement resolved (work resumes) or a stop-work order issued.
    S.ENFORCEMENT: frozenset({S.ACTIVE, S.STOP_WORK}),
    S.COMPLETED: frozenset(),
}

CONSTRUCTION_MACHINE = register(Machine(
    kind=CONSTRUCTION, number_prefix="SWD",  # SWC until Dec 2026 (cases/numbers.py)
    initial=S.PRECONSTRUCTION,
    transitions={k.value: frozenset(v.value for v in vs) for k, vs in TRANSITIONS.items()},
    labels={s.value: s.label for s in Status},
    closed=frozenset({S.COMPLETED.value}),
))
