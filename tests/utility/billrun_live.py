"""A helper process for tests/utility/test_bill_run_kill.py (run with the data folder or DATABASE_URL of its
environment): ``seed N`` writes a town of N parcels and a resolution; ``run`` is ``stormwater bill_run`` with
slices of 2 parcels (many short transactions, so a kill lands mid-run); ``enqueue`` is ``stormwater bill_run
--proof --enqueue`` (the proof as a background job); ``worker`` is ``stormwater worker`` with slices of 2;
``approve RUN`` is ``stormwater bill_run --approve RUN``; ``snapshot`` prints what the runs left. Prints JSON."""
import json
import os
import sys
from datetime import date
from decimal import Decimal
from pathlib import Path

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "stormwater.settings")


def seed(n: int) -> dict:
    from django.core.management import call_command

    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.services import resolution_adopt

    call_command("migrate", verbosity=0)
    survey = ImperviousSurvey.objects.create(name="live", surveyed_on=date(2026, 4, 1))
    owners = Owner.objects.bulk_create([Owner(name=f"Owner {i}", mailing_address=f"{i} Elm St") for i in range(n)])
    parcels = Parcel.objects.bulk_create(
        [Parcel(parcel_id=f"L-{i:05d}", address=f"{i} Elm St", owner=owners[i], land_use_code="101" if i % 4 else "340",
                dwelling_units=1 if i % 4 else None, lot_sqft=Decimal(100000)) for i in range(n)])
    ParcelImpervious.objects.bulk_create([ParcelImpervious(survey=survey, parcel=p, impervious_sqft=Decimal(900 + 37 * i))
                                          for i, p in enumerate(parcels)])
    resolution_adopt(label="live", adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1), eru_sqft=Decimal(3400),
                     rate_per_eru=Decimal("53.16"), small_residential_rate=Decimal("53.16"), installments=4,
                     interest_rate_percent=Decimal(12), demand_charge=Decimal(25), blocks=list(TABLE_1_BLOCKS),
                     acting_user=None)
    return {"parcels": n}


def snapshot() -> dict:
    from stormwater.utility.models import Account, Bill, BillRun, LedgerEntry
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: ledger_sum
    from ledger_sum import account_balance

    bills = sorted([b.number, str(b.amount), [str(i.amount) for i in b.installments.all()]]
                   for b in Bill.objects.prefetch_related("installments"))
    return {"runs": sorted([r.state for r in BillRun.objects.all()]), "bills": bills,
            "charges": LedgerEntry.objects.filter(kind="charge").count(),
            "balances": sorted([a.number, str(account_balance(a, as_of=date(2027, 6, 30)))]
                               for a in Account.objects.all())}


def main() -> None:
    import django

    django.setup()
    what = sys.argv[1]
    from django.core.management import call_command

    from stormwater.utility.billrun import prepare

    prepare.CHUNK = 2
    if what == "run":
        call_command("bill_run", "--fiscal-year", "2027", "--issue-date", "2026-09-15")
        return
    if what == "enqueue":
        call_command("bill_run", "--fiscal-year", "2027", "--issue-date", "2026-09-15", "--proof", "--enqueue")
        return
    if what == "worker":
        call_command("worker", batch=True, interval=0)
        return
    if what == "approve":
        call_command("bill_run", "--approve", sys.argv[2])
        return
    print(json.dumps(seed(int(sys.argv[2])) if what == "seed" else snapshot()))


if __name__ == "__main__":
    main()
