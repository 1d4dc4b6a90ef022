"""A synthetic town exported as an old billing system would export it (issue 32): open bills across two fiscal
years, demands, liens, credit balances, the control totals and the aging report of the old system, computed here
from the rows (as the old system's own reports would be), not by the code under test."""
from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
import time_machine

from stormwater.rules.interest import interest_start, simple_interest

AS_OF = date(2026, 10, 30)  # the cut-over (a Friday)
TODAY = date(2026, 11, 20)
COLUMNS = ["Account", "Parcel ID", "Bill No", "Inst", "FY", "Issue Date", "Due Date", "Principal", "Interest",
           "Demand Charge", "Demand Date", "Lien Amount", "Lien Date", "Credit Balance"]
# FY2026: two installments; FY2027: the first (Oct 10, 2026 is a Saturday and the 12th Columbus Day: due the 13th).
INSTALLMENTS = {
    (2026, 1): (date(2025, 9, 10), date(2025, 10, 10)),
    (2026, 2): (date(2026, 3, 10), date(2026, 4, 9)),
    (2027, 1): (date(2026, 9, 10), date(2026, 10, 13)),
}
DEMAND_10_DAYS = date(2026, 10, 20)


@pytest.fixture(autouse=True)
def _today():
    with time_machine.travel(TODAY, tick=False):
        yield


def money(d: Decimal) -> str:
    return f"{d:.2f}"


@dataclass
class OldTown:
    export: Path
    control: Path
    rows: list[dict]
    control_totals: dict[str, dict]
    aging: dict[str, Decimal]
    demand_10_days_account: str
    adjusted_bill: str  # a bill whose old interest differs from what its dates imply


def _aging_bucket(due: date) -> str:
    late = (AS_OF - interest_start(due)).days + 1
    if late <= 0:
        return "current"
    return "1-30" if late <= 30 else "31-60" if late <= 60 else "61-90" if late <= 90 else "over 90"


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> Path:
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns)
        w.writeheader()
        w.writerows(rows)
    return path


@pytest.fixture
def old_town(add_parcels, resolution, tmp_path):
    """old_town(n) → an OldTown of n accounts with unpaid bills (20 with demands, 5 committed to the lien) and 12
    credit balances on other accounts, exported to CSV with the old system's control totals."""

    def _make(n: int = 500) -> OldTown:
        assert n >= 60
        parcels = add_parcels(n + 12, prefix="G")
        rnd = random.Random(32)
        rows, totals, aging = [], {}, {k: Decimal(0) for k in ("current", "1-30", "31-60", "61-90", "over 90")}
        accounts = {}
        demand_10 = adjusted = None
        for i, p in enumerate(parcels[:n]):
            acct = f"SW-{p.parcel_id}"
            plan = [(2027, 1)] + ([(2026, 1), (2026, 2)] if i % 3 == 0 else [(2026, 2)] if i % 3 == 1 else [])
            for fy, seq in plan:
                issue, due = INSTALLMENTS[(fy, seq)]
                principal = Decimal(rnd.choice(["26.58", "26.58", "26.58", "132.90", "1594.80", "13.29"]))
                if fy == 2026 and rnd.random() < 0.1:
                    principal -= Decimal("10.00")  # a part payment in the old system
                demand = lien = Decimal(0)
                demand_day = lien_day = None
                through = AS_OF
                if fy == 2026 and seq == 1 and i < 60 and i % 3 == 0 and len([r for r in rows if r["Demand Date"]]) < 20:
                    demand = Decimal("25.00")
                    k = len([r for r in rows if r["Demand Date"]])
                    demand_day = DEMAND_10_DAYS if k == 0 else date(2026, 3, 2 + k)
                    if 1 <= k <= 5:  # five committed to the lien on May 1, 2026
                        lien_day = through = date(2026, 5, 1)
                interest, _ = simple_interest(unpaid_principal=principal, due_date=due, as_of=through)
                if fy == 2026 and seq == 2 and adjusted is None and i > 3:
                    interest += Decimal("1.37")  # the old system counted otherwise: kept as it said
                    adjusted = f"B{fy}-{i:05d}"
                if lien_day:
                    lien = principal + interest + demand
                if demand_day == DEMAND_10_DAYS:
                    demand_10 = acct
                rows.append({"Account": acct, "Parcel ID": p.parcel_id, "Bill No": f"B{fy}-{i:05d}", "Inst": seq,
                             "FY": f"FY{fy}", "Issue Date": issue.strftime("%m/%d/%Y"), "Due Date": due.isoformat(),
                             "Principal": money(principal), "Interest": money(interest),
                             "Demand Charge": money(demand) if demand else "",
                             "Demand Date": demand_day.isoformat() if demand_day else "",
                             "Lien Amount": money(lien) if lien else "",
                             "Lien Date": lien_day.isoformat() if lien_day else "", "Credit Balance": ""})
                t = totals.setdefault(f"FY{fy}", {"principal": Decimal(0), "interest": Decimal(0),
                                                  "demand": Decimal(0), "liens": Decimal(0), "credits": Decimal(0),
                                                  "accounts": set()})
                t["principal"] += principal
                t["interest"] += interest
                t["demand"] += demand
                t["liens"] += lien
                t["accounts"].add(acct)
                if not lien:
                    aging[_aging_bucket(due)] += principal + interest + demand
            accounts[acct] = p
        t = totals.setdefault("", {"principal": Decimal(0), "interest": Decimal(0), "demand": Decimal(0),
                                   "liens": Decimal(0), "credits": Decimal(0), "accounts": set()})
        for j, p in enumerate(parcels[n:]):
            credit = Decimal("10.00") + j
            rows.append({**{c: "" for c in COLUMNS}, "Account": f"SW-{p.parcel_id}", "Parcel ID": p.parcel_id,
                         "Credit Balance": money(credit)})
            t["credits"] += credit
            t["accounts"].add(f"SW-{p.parcel_id}")
        export = write_csv(tmp_path / "open-bills.csv", COLUMNS, rows)
        control_rows = [{"fiscal_year": k or "none", **{b: money(v[b]) for b in ("principal", "interest", "demand",
                                                                                   "liens", "credits")},
                         "accounts": len(v["accounts"])} for k, v in sorted(totals.items())]
        control = write_csv(tmp_path / "control-totals.csv", ["fiscal_year", "principal", "interest", "demand",
                                                               "liens", "credits", "accounts"], control_rows)
        return OldTown(export, control, rows, totals, aging, demand_10, adjusted)

    return _make
