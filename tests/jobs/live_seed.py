"""Seed a live database for the crash tests (run in a subprocess against the test's own data folder or
PostgreSQL database): a resolution, N parcels whose owners have e-mail addresses, one survey, one bill run."""
import json
import sys
from datetime import date
from decimal import Decimal


def main(n: int) -> None:
    import django

    django.setup()
    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import bill_run_issue, fiscal_year, resolution_adopt

    resolution_adopt(label="Test resolution", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1),
                     eru_sqft=Decimal("3400"), rate_per_eru=Decimal("53.16"), small_residential_rate=Decimal("53.16"),
                     installments=2, interest_rate_percent=Decimal("12"), demand_charge=Decimal("25"),
                     blocks=list(TABLE_1_BLOCKS), acting_user=None)
    survey = ImperviousSurvey.objects.create(name="Survey 2026", surveyed_on=date(2026, 4, 1))
    for i in range(1, n + 1):
        o = Owner.objects.create(name=f"Owner {i}", mailing_address=f"{i} Elm St\nLongmeadow, MA 01106",
                                 email=f"owner{i}@example.org")
        p = Parcel.objects.create(parcel_id=f"10-01-{i}", address=f"{i} Elm St", owner=o, land_use_code="325",
                                  lot_sqft=Decimal(200000))
        ParcelImpervious.objects.create(survey=survey, parcel=p, impervious_sqft=Decimal(3400 * i))
    label, start, end = fiscal_year(2027)
    result = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                            acting_user=None)
    print(json.dumps({"run": result.run.pk}))


def pay(account_number: str, amount: str) -> None:
    import django

    django.setup()
    from stormwater.receivables.services import payment_post
    from stormwater.utility.models import Account

    p = payment_post(account=Account.objects.get(number=account_number), amount=Decimal(amount),
                     received_on=date.today(), acting_user=None)
    print(json.dumps({"payment": p.pk}))


if __name__ == "__main__":
    {"main": lambda: main(int(sys.argv[2])), "pay": lambda: pay(sys.argv[2], sys.argv[3])}[sys.argv[1]]()
