"""Go-live opening balances (issue 32): a synthetic town exported as an old system would, converted and reconciled
to the cent; interest, demand and commitment clocks continue as if kept here; re-running changes nothing; bad rows
are refused by row and field with nothing applied."""
from __future__ import annotations

import time
from datetime import date
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db.models import Sum

from stormwater.golive.balances import balances_convert
from stormwater.golive.models import ConvertedInstallment
from stormwater.imports.models import ImportRecord
from stormwater.imports.pipeline import ImportRefused
from stormwater.receivables.base import CollectionError
from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import Commitment, Demand
from stormwater.receivables.positions import AccountFilter, AccountReport
from stormwater.receivables.services import commitment_create, commitment_due_on
from stormwater.rules.interest import simple_interest
from stormwater.rules.money import ZERO, round_cents
from stormwater.utility.models import Account, Bill, EntryKind, Installment, LedgerEntry

from .conftest import AS_OF, DEMAND_10_DAYS, write_csv

pytestmark = pytest.mark.django_db


def _convert(town, **kw):
    return balances_convert(path=town.export, control_path=town.control, as_of=AS_OF, acting_user=None, **kw)


def _books_hold(town) -> None:
    """The books' invariants after apply (until ``stormwater books check``): every installment charged once and its
    bill the sum of them; each account's ledger read one account at a time (ledger.account_position, the reference)
    equal to the set-based positions; the charges equal to the export's principal."""
    bills = Bill.objects.filter(number__startswith="CV-")
    for b in bills.prefetch_related("installments"):
        assert sum(i.amount for i in b.installments.all()) == b.amount
    insts = Installment.objects.filter(bill__in=bills)
    charges = LedgerEntry.objects.filter(installment__in=insts, kind=EntryKind.CHARGE)
    assert charges.count() == insts.count()
    assert round_cents(charges.aggregate(s=Sum("amount"))["s"]) == sum(Decimal(r["Principal"]) for r in town.rows
                                                          if r["Principal"])
    ids = list(Account.objects.filter(number__startswith="SW-G").values_list("pk", flat=True))
    sql = {f.account_id: f for f in AccountReport("all", as_of=AS_OF, accounts=AccountFilter(ids=ids))}
    for a in Account.objects.filter(pk__in=ids[::7]):
        ref = account_position(a, as_of=AS_OF)
        assert (ref.total, ref.principal, ref.interest, ref.demand, ref.credit) == \
            (sql[a.pk].total, sql[a.pk].principal, sql[a.pk].interest, sql[a.pk].demand, sql[a.pk].credit)


def _check_town(town, timings: dict) -> None:
    t0 = time.perf_counter()
    dry = _convert(town)
    timings["dry run"] = time.perf_counter() - t0
    assert dry.dry_run and not dry.applied and dry.differences == [], dry.differences
    kept = next(p for p in dry.problems if p.code == "interest_kept")
    assert kept.severity == "warning" and len(kept.ids) == 1 and "the dates imply" in kept.ids[0]
    assert LedgerEntry.objects.count() == 0 and Bill.all_objects.count() == 0 and Demand.objects.count() == 0
    t0 = time.perf_counter()
    res = _convert(town, apply=True)
    timings["apply"] = time.perf_counter() - t0
    assert res.applied and res.agrees
    # The control totals agree to the cent, bucket by bucket.
    for fy, t in town.control_totals.items():
        got = res.converted[fy]
        for b in ("principal", "interest", "demand", "liens", "credits"):
            assert Decimal(got[b]) == t[b], (fy, b)
        assert got["accounts"] == len(t["accounts"])
    assert res.created["demands"] == 20 and res.created["credits"] == 12 and res.created["commitments"] == 1
    assert Commitment.objects.get().lines.count() == 5
    # The aging as of the cut-over equals the old system's.
    aging = AccountReport("aging", as_of=AS_OF).totals().buckets
    assert aging == town.aging
    _books_hold(town)
    # Re-running the conversion changes nothing.
    n = LedgerEntry.objects.count()
    again = _convert(town, apply=True)
    assert again.unchanged == len(town.rows) and not any(again.created.values())
    assert LedgerEntry.objects.count() == n and again.differences == []
    assert ImportRecord.objects.filter(kind="golive_balances").values_list("outcome", flat=True)[0] == "unchanged"


def test_synthetic_town_of_500_accounts_converts_reconciled_to_the_cent(old_town):
    _check_town(old_town(500), {})  # no timing asserted (machines are noisy); the planner's statistics: bulk.analyze


def test_interest_demand_and_commitment_clocks_continue(old_town):
    town = old_town(60)
    _convert(town, apply=True)
    # Interest on a converted bill equals the interest the old dates imply (12 %/yr from the day after due) at the
    # cut-over, and keeps running from there.
    row = next(r for r in town.rows if r["Bill No"].startswith("B2027") and r["Principal"] == "26.58")
    inst = ConvertedInstallment.objects.get(old_key=f"{row['Bill No']}#1").installment
    due = date.fromisoformat(row["Due Date"])
    for day in (AS_OF, date(2026, 11, 19)):
        want, _ = simple_interest(unpaid_principal=Decimal("26.58"), due_date=due, as_of=day)
        d = next(d for d in account_position(inst.bill.account, as_of=day).dues if d.installment.pk == inst.pk)
        assert d.interest == want and want > 0
    # A bill whose old interest differs: the old figure at the cut-over, then the ordinance's interest from there.
    adj = next(r for r in town.rows if r["Bill No"] == town.adjusted_bill and r["Inst"] == 2)
    inst = ConvertedInstallment.objects.get(old_key=f"{adj['Bill No']}#2").installment
    p = Decimal(adj["Principal"])
    d0 = next(d for d in account_position(inst.bill.account, as_of=AS_OF).dues if d.installment.pk == inst.pk)
    assert d0.interest == Decimal(adj["Interest"])
    d1 = next(d for d in account_position(inst.bill.account, as_of=date(2026, 11, 29)).dues
              if d.installment.pk == inst.pk)
    a, _ = simple_interest(unpaid_principal=p, due_date=inst.due_date, as_of=date(2026, 11, 29))
    b, _ = simple_interest(unpaid_principal=p, due_date=inst.due_date, as_of=AS_OF)
    assert d1.interest == Decimal(adj["Interest"]) + a - b
    assert LedgerEntry.objects.filter(installment=inst, kind=EntryKind.CONVERSION).get().amount == Decimal("1.37")
    # A demand converted 10 days before the cut-over is committed on the right day, not before.
    demand = Demand.objects.get(account__number=town.demand_10_days_account)
    assert demand.served_on == DEMAND_10_DAYS
    first = commitment_due_on(demand)
    assert first == date(2026, 11, 4)  # the 14th day after Oct 20 is Tue Nov 3: committed from Wed Nov 4
    with pytest.raises(CollectionError, match="may be committed from"):
        commitment_create(tax_fiscal_year=2027, committed_on=date(2026, 11, 3), demands=[demand], acting_user=None)
    c = commitment_create(tax_fiscal_year=2027, committed_on=first, demands=[demand], acting_user=None)
    assert c.lines.get().total > Decimal("25")
    # The five converted liens owe nothing on the stormwater account.
    for line in Commitment.objects.exclude(pk=c.pk).get().lines.all():
        assert account_position(line.account, as_of=AS_OF).dues[0].total == ZERO


BAD = [
    ("Account", "SW-NOPE", "unknown_account", "(Account): SW-NOPE"),
    ("Due Date", "2025-09-01", "dates_out_of_order", "(Due Date): 2025-09-01 is before the issue date"),
    ("Demand Charge", "25.00", "missing_value", "(Demand Date): a demand charge and its date go together"),
    ("Principal", "12,x", "bad_money", "(Principal): '12,x' is not an amount"),
]


def test_bad_rows_refused_by_row_and_field_nothing_applied(old_town, tmp_path):
    town = old_town(60)
    rows = [dict(r) for r in town.rows]
    # row 3 of the file is rows[1]; each bad value on its own row
    for k, (col, value, _, _) in enumerate(BAD):
        rows[1 + k][col] = value
    rows[1]["Parcel ID"] = "99-99-99"  # neither the account nor the parcel is known here
    rows[3]["Demand Date"] = ""
    lien = next(i for i, r in enumerate(rows) if r["Lien Amount"])
    rows[lien]["Lien Amount"] = "1.00"
    early = next(i for i, r in enumerate(rows) if r["Demand Date"] and not r["Lien Date"] and i > lien)
    rows[early]["Demand Date"] = "2025-10-05"
    bad = write_csv(tmp_path / "bad.csv", list(rows[0]), rows)
    for apply in (False, True):
        with pytest.raises(ImportRefused) as e:
            balances_convert(path=bad, control_path=town.control, as_of=AS_OF, apply=apply, acting_user=None)
        found = {p.code: p.ids for p in e.value.problems}
        for k, (_, _, code, text) in enumerate(BAD):
            assert any(i.startswith(f"row {k + 3} ") and text in i for i in found.get(code, [])), (code, found)
        assert any(i.startswith(f"row {lien + 2} (Lien Amount): 1.00 is not principal + interest")
                   for i in found["totals_disagree"])
        assert any(i.startswith(f"row {early + 2} (Demand Date): 2025-10-05: no demand before interest")
                   for i in found["dates_out_of_order"])
    assert LedgerEntry.objects.count() == 0 and Bill.all_objects.count() == 0 and Account.objects.count() == 0
    assert ImportRecord.objects.get(kind="golive_balances").outcome == "refused"


def test_control_totals_that_disagree_refuse_apply_unless_accepted(old_town, tmp_path):
    town = old_town(60)
    ctl = [line.split(",") for line in town.control.read_text().splitlines()]
    fy26 = next(r for r in ctl if r[0] == "FY2026")
    fy26[2] = f"{Decimal(fy26[2]) + Decimal('0.01'):.2f}"  # FY2026 interest a cent off
    town.control.write_text("\n".join(",".join(r) for r in ctl) + "\n")
    dry = _convert(town)
    assert [(d["fiscal_year"], d["bucket"], d["difference"]) for d in dry.differences] == \
        [("FY2026", "interest", "-0.01")]
    with pytest.raises(ImportRefused, match="FY2026 interest: old system"):
        _convert(town, apply=True)
    assert LedgerEntry.objects.count() == 0
    res = _convert(town, apply=True, accept_differences=True)
    assert res.applied and res.accepted and res.conversion.accepted_differences == dry.differences


def test_cli_dry_run_json_and_apply_and_xlsx(old_town, tmp_path, capsys):
    import json

    import openpyxl

    town = old_town(60)
    call_command("golive", "balances", str(town.export), "--as-of", str(AS_OF), "--control", str(town.control),
                 "--json")
    out = json.loads(capsys.readouterr().out)
    assert out["dry_run"] and out["agrees"] and out["differences"] == [] and out["created"]["credits"] == 12
    assert LedgerEntry.objects.count() == 0
    wb = openpyxl.Workbook()
    ws = wb.active
    cols = list(town.rows[0])
    ws.append(["Longmeadow open receivables as of 10/30/2026"])  # a title row above the header
    ws.append(cols)
    for r in town.rows:
        ws.append([r[c] for c in cols])
    wb.save(tmp_path / "open-bills.xlsx")
    call_command("golive", "balances", str(tmp_path / "open-bills.xlsx"), "--as-of", str(AS_OF), "--control",
                 str(town.control), "--apply")
    text = capsys.readouterr().out
    assert "APPLIED" in text and "The control totals agree to the cent." in text
    assert ConvertedInstallment.objects.count() == len([r for r in town.rows if r["Bill No"]])


def test_collector_page_checks_then_applies(old_town, client_for, personas):
    town = old_town(60)
    c = client_for(personas["collector"])
    assert c.get("/collections/golive/").status_code == 200
    with town.export.open("rb") as f, town.control.open("rb") as g:
        r = c.post("/collections/golive/", {"file": f, "control": g, "as_of": str(AS_OF)})
    assert r.status_code == 200 and "Apply the conversion" in r.content.decode()
    assert LedgerEntry.objects.count() == 0
    held = r.context["held"]
    r = c.post("/collections/golive/", {"action": "apply", "as_of": str(AS_OF), "file_ref": held["file"][0],
                                         "file_name": held["file"][1], "control_ref": held["control"][0],
                                         "control_name": held["control"][1]})
    assert r.status_code == 302 and ConvertedInstallment.objects.exists()
    # A bad file: refused by row and field, at 400, nothing changed
    n = LedgerEntry.objects.count()
    bad = town.export.read_text().replace("SW-G-00005,G-00005", "SW-NOPE,00-00-0", 1)
    from django.core.files.uploadedfile import SimpleUploadedFile

    r = c.post("/collections/golive/", {"file": SimpleUploadedFile("bad.csv", bad.encode()), "as_of": str(AS_OF)})
    assert r.status_code == 400 and "SW-NOPE" in r.content.decode() and LedgerEntry.objects.count() == n
    assert client_for(personas["owner"]).get("/collections/golive/").status_code == 403


def test_collector_page_refused_date_comes_back_marked(db, client_for, personas):
    c = client_for(personas["collector"])
    r = c.post("/collections/golive/", {"as_of": "31/02/2026"})
    body = r.content.decode()
    assert r.status_code == 400 and 'class="error-summary"' in body
    assert 'value="31/02/2026" aria-invalid="true"' in body and "Choose the old system" in body


def test_no_conversion_into_closed_books(old_town):
    from stormwater.receivables.models import PeriodClose

    town = old_town(60)
    PeriodClose.objects.create(closed_through=date(2026, 6, 30))
    with pytest.raises(ImportRefused, match="closed through 2026-06-30"):
        _convert(town)
