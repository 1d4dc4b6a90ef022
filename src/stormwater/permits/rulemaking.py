"""Making the stormwater rules (Ch. 380 § 380-7): a rule hearing advertised in a newspaper of general circulation at
least seven days before it is held."""
from __future__ import annotations

from datetime import date, datetime

from django.db import transaction
from django.utils import timezone

from stormwater.audit.services import audit_record
from stormwater.rules.clocks import interval_is_at_least

from .acts import PermitError
from .models import RuleHearing
from .terms import HEARING_NOTICE_DAYS

ERR_HEARING_NOTICE = ("The hearing must be advertised at least seven days before the hearing date (§ 380-7): "
                      "advertised {adv}, hearing {hearing}.")


@transaction.atomic
def rule_hearing_create(*, title: str, summary: str, newspaper: str, advertised_on: date, hearing_at: datetime,
                        location: str, acting_user) -> RuleHearing:
    """§ 380-7: rules are adopted or amended after a public hearing advertised in a newspaper of general
    circulation at least seven days before the hearing."""
    hearing_day = timezone.localtime(hearing_at).date() if timezone.is_aware(hearing_at) else hearing_at.date()
    if not interval_is_at_least(advertised_on, hearing_day, HEARING_NOTICE_DAYS):
        raise PermitError(ERR_HEARING_NOTICE.format(adv=advertised_on, hearing=hearing_day), field="advertised_on")
    h = RuleHearing.objects.create(title=title, summary=summary, newspaper=newspaper, advertised_on=advertised_on,
                                   hearing_at=hearing_at, location=location,
                                   created_by=acting_user if acting_user and acting_user.is_authenticated else None)
    audit_record(actor=acting_user, action="permit.rule_hearing", obj=h, why=title,
                 data={"advertised_on": str(advertised_on), "hearing_on": str(hearing_day)})
    return h
