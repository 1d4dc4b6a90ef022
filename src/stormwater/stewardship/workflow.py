"""Stewardship cases as state machines (Ch. 380 § 380-14).

- "stewardship": one per stormwater system (site). Pending until the final O&M plan is recorded at
  the Hampden County Registry of Deeds (§ 380-14 B), then in force for the life of the system.
- "maintenance": a failure to maintain (§ 380-14 E): the Director's notice starts 30 days to correct;
  corrected (and verified), or after the 30 days the Town seeks a court order or other relief.
"""
from __future__ import annotations

from django.db import models

from stormwater.cases.machines import Machine, register

STEWARDSHIP = "stewardship"
MAINTENANCE = "maintenance"
CURE = "cure"  # clock kind: 30 days to correct after the Director's notice (§ 380-14 E)


class SiteStatus(models.TextChoices):
    PENDING = "pending", "Final O&M plan not yet recorded"
    IN_FORCE = "in_force", "O&M plan recorded and in force"


SITE_MACHINE = register(Machine(
    kind=STEWARDSHIP, number_prefix="SWS", initial=SiteStatus.PENDING.value,
    # § 380-14 B: recorded with proof filed → in force; § 380-14 A(2): binding for the life of the system.
    transitions={SiteStatus.PENDING.value: frozenset({SiteStatus.IN_FORCE.value}),
                 SiteStatus.IN_FORCE.value: frozenset()},
    labels={s.value: s.label for s in SiteStatus},
))


class NoticeStatus(models.TextChoices):
    NOTICED = "noticed", "Notice to correct served: 30 days to correct"
    ENFORCEMENT = "enforcement", "Not corrected in 30 days: court order or other relief (§ 380-14 E)"
    CORRECTED = "corrected", "Corrected and verified"


N = NoticeStatus
MAINTENANCE_MACHINE = register(Machine(
    kind=MAINTENANCE, number_prefix="SWF", initial=N.NOTICED.value,
    transitions={N.NOTICED.value: frozenset({N.CORRECTED.value, N.ENFORCEMENT.value}),
                 N.ENFORCEMENT.value: frozenset({N.CORRECTED.value}),
                 N.CORRECTED.value: frozenset()},
    labels={s.value: s.label for s in NoticeStatus},
    meets={N.CORRECTED.value: (CURE,)},
    closed=frozenset({N.CORRECTED.value}),
))
