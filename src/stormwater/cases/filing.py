"""The date a filing reaches the town, for every filing that starts or stops a clock or decides lateness.

Someone filing for themselves (an owner, an applicant, their engineer) files on the day the server receives it: the
date is the server's, whatever the form or the request says (issue 14: an owner backdated an annual O&M
certification by editing ``received_on``). Staff who hold the act's permission record paper filings and may give
the day the paper arrived; so may the system itself (``acting_user=None``: commands, imports, the demo). A date in
the future is refused by the services that take one.

Used by: stewardship certifications (``received_on``) and ownership notices (``notified_on``), permit change
notices (``notified_on``) and consultant-selection appeals (``received_on``), construction as-built paper copies
(``paper_copy_received_on``). Relief filings (credits, abatements, appeals) already take the server's date unless
staff record them (``relief.actions``).
"""
from __future__ import annotations

from datetime import date, datetime, timedelta

from django.utils import timezone


def filed_on(*, acting_user, claimed: date | None, staff_perm: str) -> date:
    """The filing date to record: ``claimed`` (or today) for staff holding ``staff_perm`` and for the system;
    today, the server's date in the town's time zone, for anyone else."""
    today = timezone.localdate()
    if acting_user is None or acting_user.can(staff_perm):
        return claimed or today
    return today


# --- the date of an act is never later than now (issue 18) ---------------------------------------------------
# A report of an inspection, a storm that ended, a punch item done, a plan recorded at the registry: each is an act
# that has happened, so its date or time cannot be after the moment the server receives it (an inspection report
# "of each inspection", § 380-16 C(4)(f)[1], is written after the inspection). A phone's clock may run a little ahead
# of the server's: times within CLOCK_SKEW of now are taken as now.

CLOCK_SKEW = timedelta(minutes=5)
ERR_AFTER_NOW = "The {what} ({when:%Y-%m-%d %H:%M}) is later than now ({now:%Y-%m-%d %H:%M}): it has not happened yet."
ERR_AFTER_TODAY = "The {what} ({day:%Y-%m-%d}) is later than today ({today:%Y-%m-%d}): it has not happened yet."


def after_now(when: datetime | None, *, what: str) -> str | None:
    """The refusal (naming ``what``) if ``when`` is later than now, else None. Shown in the town's local time."""
    if when is None:
        return None
    now = timezone.now()
    if when > now + CLOCK_SKEW:
        return ERR_AFTER_NOW.format(what=what, when=timezone.localtime(when), now=timezone.localtime(now))
    return None


def after_today(day: date | None, *, what: str) -> str | None:
    """The refusal (naming ``what``) if ``day`` is later than today in the town's time zone, else None."""
    today = timezone.localdate()
    if day is not None and day > today:
        return ERR_AFTER_TODAY.format(what=what, day=day, today=today)
    return None
