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

from datetime import date

from django.utils import timezone


def filed_on(*, acting_user, claimed: date | None, staff_perm: str) -> date:
    """The filing date to record: ``claimed`` (or today) for staff holding ``staff_perm`` and for the system;
    today, the server's date in the town's time zone, for anyone else."""
    today = timezone.localdate()
    if acting_user is None or acting_user.can(staff_perm):
        return claimed or today
    return today
