"""A bill run in states (issue 16 "preview, confirm, undo"; issue 15 "short transactions, nothing half-visible"):
the proof is prepared slice by slice and seen by no owner, balance, report or export; a Collector or the
Director approves it, which posts the charges; an unmailed run is voided by reversing entries and the period
billed again; a preparation killed half-way resumes to exactly one correct run."""
from datetime import date
from decimal import Decimal as D

import pytest
from django.db import IntegrityError, transaction

from stormwater.audit.models import AuditEvent
from stormwater.rules.town import TownConfig
from stormwater.utility import billrun
from stormwater.utility.billrun import prepare as prepare_mod
from stormwater.utility.models import (Account, Bill, BillRun, BillRunChunk, BillRunException, EntryKind,
                                       Installment, LedgerEntry, RunState)
from stormwater.utility.selectors import bills_for_user
from ledger_sum import account_balance
from stormwater.utility.services import (BillingError, bill_run_approve, bill_run_discard, bill_run_issue,
                                         bill_run_mark_mailed, bill_run_prepare, bill_run_start, bill_run_void,
                                         fiscal_year)

FY = fiscal_year(2027)
ISSUE = date(2026, 9, 10)


def start(user=None, issue_date=ISSUE, fy=FY):
    label, s, e = fy
    run, _ = bill_run_start(period_label=label, period_start=s, period_end=e, issue_date=issue_date, acting_user=user)
    return run


def proof(user=None, **kw):
    run = start(user, **kw)
    result = bill_run_prepare(run=run, acting_user=user)
    return BillRun.objects.get(pk=run.pk) if result.run else None


def issue(user=None, issue_date=ISSUE, fy=FY):
    label, s, e = fy
    return bill_run_issue(period_label=label, period_start=s, period_end=e, issue_date=issue_date, acting_user=user)


def snapshot():
    """What a run leaves: every live bill with its installments, every account's balance, the problems."""
    bills = sorted((b.number, b.amount, b.erus, b.explanation, tuple((i.seq, i.amount, i.issue_date, i.due_date)
                                                                      for i in b.installments.all()))
                   for b in Bill.objects.prefetch_related("installments"))
    balances = sorted((a.number, account_balance(a, as_of=date(2027, 6, 30))) for a in Account.objects.all())
    problems = sorted(BillRunException.objects.filter(run__state=RunState.ISSUED)
                      .values_list("parcel__parcel_id", "message"))
    return bills, balances, problems


@pytest.fixture
def second_approver(monkeypatch):
    from stormwater import townconfig

    monkeypatch.setattr(townconfig, "town_config", lambda: TownConfig(bill_run_second_approver=True))


def test_a_proof_is_seen_by_no_owner_balance_report_or_export(town, resolution, personas, client_for):
    from stormwater.fund.selectors import billed_for_year

    run = proof(personas["staff"])
    assert run.state == RunState.PROOF and run.bill_count == 8
    assert Bill.all_objects.filter(run=run).count() == 8 and Installment.all_objects.filter(bill__run=run).count() == 16
    # Nothing of it anywhere else: no live bill, installment, ledger entry, balance, fund figure, owner page.
    assert not Bill.objects.exists() and not Installment.objects.exists() and not LedgerEntry.objects.exists()
    house = Bill.all_objects.get(parcel=town["house"])
    assert account_balance(house.account, as_of=date(2027, 6, 30)) == 0
    assert billed_for_year(2027) == 0
    assert not bills_for_user(user=personas["owner"]).exists()
    owner = client_for(personas["owner"])
    assert house.number not in owner.get("/bills/").content.decode()
    assert owner.get(f"/bills/{house.number}/").status_code == 404
    assert owner.get(f"/api/bills/{house.number}/").status_code == 404
    staff = client_for(personas["staff"])
    assert staff.get(f"/bill-runs/{run.pk}/export.csv").status_code == 404
    page = staff.get(f"/bills/{house.number}/").content.decode()
    assert "Proof, not issued" in page  # staff checking the proof reach its bills, marked as such
    ev = AuditEvent.objects.get(action="bill_run.proof")
    assert ev.actor == personas["staff"] and ev.data["bills"] == 8


def test_approval_issues_the_run_and_posts_every_charge_in_one_step(town, resolution, personas):
    run = proof(personas["staff"])
    result = bill_run_approve(run=run, acting_user=personas["collector"])
    run.refresh_from_db()
    assert run.state == RunState.ISSUED and run.approved_by == personas["collector"]
    assert result.bills == 8 and result.total == run.total_billed
    assert Bill.objects.count() == 8 and Installment.objects.count() == 16
    charges = LedgerEntry.objects.filter(kind=EntryKind.CHARGE)
    assert charges.count() == 16
    for inst in Installment.objects.select_related("bill"):
        e = charges.get(installment=inst)
        assert (e.amount, e.effective_on, e.account_id, e.bill_id) == (inst.amount, inst.issue_date,
                                                                       inst.bill.account_id, inst.bill_id)
        assert e.memo == f"{inst.bill.number} installment {inst.seq}"
    shops = Bill.objects.get(parcel=town["shops"])
    assert account_balance(shops.account, as_of=date(2027, 3, 31)) == D("2828.11")
    ev = AuditEvent.objects.get(action="bill_run.issue")
    assert ev.actor == personas["collector"] and ev.data["prepared_by"] == "staff" and ev.data["charges"] == 16


def test_only_a_collector_or_director_approves_and_approving_twice_issues_once(town, resolution, personas):
    run = proof(personas["staff"])
    for role in ("staff", "clerk", "assessor", "owner"):
        with pytest.raises(BillingError, match="Only a Collector or the DPW Director"):
            bill_run_approve(run=run, acting_user=personas[role])
    assert BillRun.objects.get(pk=run.pk).state == RunState.PROOF
    bill_run_approve(run=run, acting_user=personas["director"])
    again = bill_run_approve(run=run, acting_user=personas["collector"])
    assert again.run is None and again.bills == 0 and "already issued" in again.message
    assert LedgerEntry.objects.count() == 16
    # The database refuses a second charge for an installment whatever the code does.
    e = LedgerEntry.objects.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        LedgerEntry.objects.create(account=e.account, kind=EntryKind.CHARGE, amount=e.amount,
                                   effective_on=e.effective_on, bill=e.bill, installment=e.installment)


def test_staff_may_prepare_but_not_issue_in_one_step(town, resolution, personas):
    with pytest.raises(BillingError, match="staff prepare a proof"):
        issue(personas["staff"])
    assert not BillRun.objects.exists()


def test_with_a_second_approver_the_preparer_may_not_approve(town, resolution, personas, second_approver):
    run = proof(personas["collector"])
    with pytest.raises(BillingError, match="requires another Collector or Director"):
        bill_run_approve(run=run, acting_user=personas["collector"])
    with pytest.raises(BillingError, match="requires a second person"):
        issue(personas["director"])
    bill_run_approve(run=run, acting_user=personas["director"])
    assert BillRun.objects.get(pk=run.pk).state == RunState.ISSUED


def test_a_second_proof_of_the_period_is_the_same_run_and_one_step_leaves_a_proof_alone(town, resolution, personas):
    run = proof(personas["staff"])
    assert start(personas["collector"], issue_date=date(2026, 10, 1)).pk == run.pk
    again = issue(personas["collector"])
    assert again.run is None and again.bills == 0 and "waiting for approval" in again.message
    assert BillRun.objects.count() == 1 and not LedgerEntry.objects.exists()
    # The database keeps one open run per period.
    with pytest.raises(IntegrityError), transaction.atomic():
        BillRun.objects.create(period_label="FY2027", period_start=run.period_start, period_end=run.period_end,
                               issue_date=ISSUE, resolution=run.resolution, state=RunState.PREPARING)


def test_void_reverses_every_charge_and_the_period_is_billed_again_once(town, resolution, personas):
    first = issue(personas["collector"]).run
    amounts = {b.account_id: b.amount for b in Bill.objects.all()}
    voided = bill_run_void(run=first, reason="Wrong issue date", acting_user=personas["director"])
    assert voided.state == RunState.VOIDED and voided.voided_by == personas["director"]
    # The bills stay as they were (append-only): the run's state takes them out of Bill.objects.
    assert not Bill.objects.exists() and Bill.all_objects.filter(run=first).count() == 8
    assert all(b.voided and b.revision == 1 for b in Bill.all_objects.filter(run=first))
    reversals = LedgerEntry.objects.filter(kind=EntryKind.REVERSAL)
    assert reversals.count() == 16 and all(r.reverses.amount == -r.amount for r in reversals)
    for acct in Account.objects.all():
        assert account_balance(acct, as_of=date(2027, 6, 30)) == 0
    assert AuditEvent.objects.get(action="bill_run.void").why == "Wrong issue date"
    # Billed again: new bills, numbered -R2, the same amounts; and once only.
    second = issue(personas["collector"], issue_date=date(2026, 9, 24))
    assert second.bills == 8
    assert {b.number.rsplit("-", 1)[1] for b in Bill.objects.all()} == {"R2"}
    assert {b.account_id: b.amount for b in Bill.objects.all()} == amounts
    for acct in Account.objects.all():
        assert account_balance(acct, as_of=date(2027, 6, 30)) == amounts[acct.pk]
    third = issue(personas["collector"], issue_date=date(2026, 10, 1))
    assert third.run is None and third.bills == 0 and third.already_billed == 8
    assert Bill.all_objects.count() == 16 and Bill.objects.count() == 8
    assert {b.revision for b in Bill.objects.all()} == {2}
    # One live bill per account and period: a copy of a live bill (its revision taken) is refused by the database.
    b = Bill.objects.first()
    b.pk, b.number = None, "dup"
    with pytest.raises(IntegrityError), transaction.atomic():
        b.save()


def test_void_gives_back_a_credit_balance_applied_at_issue(town, resolution, personas):
    from stormwater.receivables.ledger import unapplied_credit
    from stormwater.receivables.services import payment_post

    acct = Account.objects.create(number="SW-01-01-1", parcel=town["house"])
    payment_post(account=acct, amount=D("20.00"), received_on=date(2026, 8, 3), acting_user=personas["collector"])
    run = issue(personas["collector"]).run
    assert account_balance(acct, as_of=date(2027, 6, 30)) == D("33.16")
    assert unapplied_credit(acct, as_of=date(2027, 6, 30)) == 0
    bill_run_void(run=run, reason="Rates entered wrong", acting_user=personas["collector"])
    assert account_balance(acct, as_of=date(2027, 6, 30)) == D("-20.00")
    assert unapplied_credit(acct, as_of=date(2027, 6, 30)) == D("20.00")
    issue(personas["collector"])  # the credit applies again to the new bill
    assert account_balance(acct, as_of=date(2027, 6, 30)) == D("33.16")


def test_void_is_refused_after_mailing_payment_or_closing(town, resolution, personas):
    from stormwater.receivables.services import payment_post, period_close

    run = issue(personas["collector"]).run
    with pytest.raises(BillingError, match="say why"):
        bill_run_void(run=run, reason=" ", acting_user=personas["collector"])
    with pytest.raises(BillingError, match="Only a Collector or the DPW Director may void"):
        bill_run_void(run=run, reason="x", acting_user=personas["staff"])
    house = Bill.objects.get(parcel=town["house"])
    payment_post(account=house.account, amount=D("10"), received_on=date(2026, 9, 20), acting_user=None)
    with pytest.raises(BillingError, match=f"beyond its charges .a payment entry, e.g. on bill {house.number}"):
        bill_run_void(run=run, reason="x", acting_user=personas["collector"])
    bill_run_mark_mailed(run=run, mailed_on=date(2026, 9, 11), acting_user=personas["collector"])
    with pytest.raises(BillingError, match="were mailed on September 11, 2026"):
        bill_run_void(run=run, reason="x", acting_user=personas["collector"])
    assert AuditEvent.objects.filter(action="bill_run.mailed").exists()
    assert BillRun.objects.get(pk=run.pk).state == RunState.ISSUED
    # A run issued in a period since closed is not voided either.
    run2 = issue(None, fy=fiscal_year(2028), issue_date=date(2026, 9, 10))  # issued in what becomes closed
    assert run2.run is not None
    period_close(closed_through=date(2026, 11, 30), acting_user=None)
    with pytest.raises(BillingError, match="books are closed through 2026-11-30"):
        bill_run_void(run=run2.run, reason="x", acting_user=personas["collector"])


def test_void_is_refused_once_a_bill_was_emailed(town, resolution, personas):
    from stormwater.notices.models import NoticeSent

    run = issue(personas["collector"]).run
    house = Bill.objects.get(parcel=town["house"])
    NoticeSent.objects.create(object_type="utility.bill", object_id=str(house.pk), kind="bill", to="o@example.org",
                              subject="Stormwater bill")
    with pytest.raises(BillingError, match="e-mailed to o@example.org"):
        bill_run_void(run=run, reason="x", acting_user=personas["collector"])


def test_a_discarded_proof_counts_for_nothing_and_the_period_is_prepared_again(town, resolution, personas):
    run = proof(personas["staff"])
    rows = sorted(Bill.all_objects.filter(run=run).values_list("number", "amount", "issue_date"))
    bill_run_discard(run=run, reason="Issue date wrong", acting_user=personas["staff"])
    run.refresh_from_db()
    assert run.state == RunState.DISCARDED
    # Its rows stay, unchanged (append-only), in no ledger, seen by no one outside the run's page.
    assert sorted(Bill.all_objects.filter(run=run).values_list("number", "amount", "issue_date")) == rows
    assert Installment.all_objects.filter(bill__run=run).count() == 16
    assert not Bill.objects.exists() and not Installment.objects.exists() and not LedgerEntry.objects.exists()
    with pytest.raises(BillingError, match="only a proof"):
        bill_run_discard(run=run, acting_user=personas["staff"])
    again = proof(personas["staff"], issue_date=date(2026, 9, 24))
    assert again.pk != run.pk and again.bill_count == 8
    assert Bill.all_objects.filter(run=again, number__endswith="-R2").count() == 8  # the numbers stay taken
    assert AuditEvent.objects.get(action="bill_run.discard").data["bills"] == 8
    bill_run_approve(run=again, acting_user=personas["collector"])
    assert Bill.objects.count() == 8 and LedgerEntry.objects.count() == 16
    assert {b.issue_date for b in Bill.objects.all()} == {date(2026, 9, 24)}


def test_the_proof_counts_and_totals_by_class_and_band_and_against_last_year(town, resolution, personas):
    from stormwater.rules.fees import TABLE_1_BLOCKS
    from stormwater.utility.proof import ProofDifferences
    from stormwater.utility.services import resolution_adopt

    issue(None)  # FY2027 at $53.16
    resolution_adopt(label="FY2028", adopted_on=date(2027, 5, 1), effective_from=date(2027, 7, 1), eru_sqft=D(3400),
                     rate_per_eru=D("60.00"), small_residential_rate=D("60.00"), installments=1,
                     interest_rate_percent=D(12), demand_charge=D(25), blocks=list(TABLE_1_BLOCKS), acting_user=None)
    town["house2"].public_way = True  # exempt from FY2028: billed last year, not this year
    town["house2"].save()
    run = proof(fy=fiscal_year(2028), issue_date=date(2027, 9, 10))
    s = run.summary
    rows = {(r["property_class"], r["band"]): r for r in s["by_class"]}
    assert rows[("small_residential", "Flat rate (small residential)")]["bills"] == 1
    assert rows[("nonresidential", "51–100 ERUs")]["erus"] == 59
    assert rows[("large_residential", "1–10 ERUs")]["bills"] == 3  # the condominium's 3 unit bills (3 ERUs)
    assert sum(D(r["total"]) for r in s["by_class"]) == D(s["totals"]["total"]) == run.total_billed
    ly = s["last_year"]
    assert ly["period_label"] == "FY2027" and ly["bills"] == 8 and ly["new"] == 0
    assert (ly["increased"], ly["decreased"], ly["changed"], ly["dropped"]) == (7, 0, 7, 1)
    last_total = sum(b.amount for b in Bill.objects.filter(period_start=date(2026, 7, 1)))
    assert D(ly["total"]) == last_total and D(ly["difference"]) == run.total_billed - last_total
    assert D(ly["dropped_total"]) == D("53.16")
    changed = ProofDifferences(run, "changed")[0:50]
    assert len(changed) == 7 and changed[0].parcel_id == "02-01-1"  # the largest difference first
    assert changed[0].last_amount == D("2828.11") and changed[0].difference == changed[0].amount - D("2828.11")
    dropped = ProofDifferences(run, "dropped")[0:50]
    assert [(d.parcel_id, d.number, d.last_amount) for d in dropped] == [("01-01-2", None, D("53.16"))]


def test_slices_change_nothing_and_a_killed_preparation_resumes_to_exactly_one_correct_run(town, resolution,
                                                                                          monkeypatch):
    class Rollback(Exception):
        pass

    with pytest.raises(Rollback), transaction.atomic():
        issue(None)
        expected = snapshot()
        raise Rollback
    assert not BillRun.objects.exists()
    monkeypatch.setattr(prepare_mod, "CHUNK", 2)  # 10 parcels: 5 slices
    real = prepare_mod.copy_rows
    calls = {"n": 0}

    def dies_in_the_third_slice(table, columns, rows):
        calls["n"] += 1
        if calls["n"] == 5:  # slices write bills then installments: the 3rd slice's bills
            raise SystemExit("killed")  # what kill -9 leaves: the open transaction never commits
        return real(table, columns, rows)

    monkeypatch.setattr(prepare_mod, "copy_rows", dies_in_the_third_slice)
    with pytest.raises(SystemExit):
        issue(None)
    run = BillRun.objects.get()
    assert run.state == RunState.PREPARING and run.chunks.count() == 2
    assert not Bill.objects.exists() and not LedgerEntry.objects.exists()  # nothing half-visible
    monkeypatch.setattr(prepare_mod, "copy_rows", real)
    progress = []
    result = bill_run_prepare(run=run, progress=lambda done, total: progress.append((done, total)))
    assert progress[0] == (4, 10) and progress[-1] == (10, 10)
    assert result.run.state == RunState.PROOF
    bill_run_approve(run=result.run, acting_user=None)
    assert BillRun.objects.count() == 1 and run.chunks.count() == 5
    assert snapshot() == expected


def test_the_bulk_columns_are_every_column_of_bills_and_installments():
    assert set(billrun.BILL_COLUMNS) == {f.column for f in Bill._meta.concrete_fields}
    assert set(billrun.INSTALLMENT_COLUMNS) == {f.column for f in Installment._meta.concrete_fields} - {"id"}


def test_an_empty_run_leaves_no_trace(town, resolution):
    issue(None)
    again = issue(None, issue_date=date(2026, 10, 1))
    assert again.run is None and BillRun.objects.count() == 1 and not BillRunChunk.objects.filter(
        run__state=RunState.PREPARING).exists()


def test_a_back_bill_does_not_overlap_a_proof_but_may_follow_a_voided_run(town, resolution, personas):
    from stormwater.receivables.services import CollectionError, back_bill_issue

    run = proof(personas["staff"])
    with pytest.raises(CollectionError, match="already billed"):
        back_bill_issue(parcel=town["shops"], period_start=date(2026, 7, 1), period_end=date(2026, 12, 31),
                        issue_date=date(2026, 12, 1), acting_user=None)
    bill_run_approve(run=run, acting_user=personas["collector"])
    bill_run_void(run=run, reason="wrong year", acting_user=personas["collector"])
    bill = back_bill_issue(parcel=town["shops"], period_start=date(2026, 7, 1), period_end=date(2026, 12, 31),
                           issue_date=date(2026, 12, 1), acting_user=None)
    assert bill.is_back_bill and Bill.objects.filter(parcel=town["shops"]).count() == 1


def test_the_state_machine_is_pinned(town, resolution, personas):
    """Every state and what may follow it (utility/billrun/common.py TRANSITIONS), and each act refused
    from the states it does not start from."""
    S = RunState
    assert billrun.TRANSITIONS == {
        S.PREPARING: {S.PROOF, S.DISCARDED}, S.PROOF: {S.ISSUED, S.DISCARDED}, S.ISSUED: {S.VOIDED},
        S.VOIDED: set(), S.DISCARDED: set()}
    collector = personas["collector"]
    run = start(collector)  # preparing
    with pytest.raises(BillingError, match="only a proof waiting for approval"):
        bill_run_approve(run=run, acting_user=collector)
    with pytest.raises(BillingError, match="only an issued run can be voided"):
        bill_run_void(run=run, reason="x", acting_user=collector)
    bill_run_prepare(run=run)  # proof
    with pytest.raises(BillingError, match="only an issued run is mailed"):
        bill_run_mark_mailed(run=run, mailed_on=date(2026, 9, 20), acting_user=collector)
    bill_run_approve(run=run, acting_user=collector)  # issued
    with pytest.raises(BillingError, match="only a proof"):
        bill_run_discard(run=run, acting_user=collector)
    bill_run_void(run=run, reason="x", acting_user=collector)  # voided
    for act in (lambda: bill_run_approve(run=run, acting_user=collector),
                lambda: bill_run_void(run=run, reason="x", acting_user=collector),
                lambda: bill_run_discard(run=run, acting_user=collector)):
        with pytest.raises(BillingError):
            act()
    assert list(AuditEvent.objects.filter(object_id=str(run.pk), action__startswith="bill_run.").order_by("id")
                .values_list("action", flat=True)) \
        == ["bill_run.proof", "bill_run.issue", "bill_run.void"]


def test_bills_converted_at_go_live_are_not_last_years_bills_on_the_proof(town, resolution, personas, client_for):
    """A converted bill (issue 32) is the old system's open balance at the cut-over, not the bill it sent: the first
    proof after go-live does not compare a parcel's new bill with it (each would read as an increase), counts it
    apart and says why (left-alone note of issue 32)."""
    from stormwater.utility.models import CONVERTED_BILL_PREFIX
    from stormwater.utility.services import resolution_adopt

    house = town["house"]
    house.public_way = True  # not billed by FY2027's run: its FY2027 bill is the converted one below
    house.save()
    issue(None)  # FY2027 at $53.16
    house.public_way = False
    house.save()
    label, s, e = FY
    conv = BillRun.objects.create(period_label=f"{label} converted", period_start=s, period_end=e, issue_date=ISSUE,
                                  resolution=resolution, state=RunState.ISSUED, summary={"converted": True})
    account, _ = Account.objects.get_or_create(parcel=house, unit=None, defaults={"number": house.parcel_id})
    Bill.objects.create(number=f"{CONVERTED_BILL_PREFIX}OLD-1", run=conv, account=account, parcel=house,
                        period_start=s, period_end=e, issue_date=ISSUE, owner_name="Olivia Owner",
                        mailing_address="", property_class="small_residential", impervious_sqft=D(0), erus=0,
                        gross_fee=D("26.58"), amount=D("26.58"), blocks=[], explanation="converted")
    resolution_adopt(label="FY2028", adopted_on=date(2027, 5, 1), effective_from=date(2027, 7, 1), eru_sqft=D(3400),
                     rate_per_eru=D("53.16"), small_residential_rate=D("53.16"), installments=1,
                     interest_rate_percent=D(12), demand_charge=D(25), blocks=list(__import__(
                         "stormwater.rules.fees", fromlist=["TABLE_1_BLOCKS"]).TABLE_1_BLOCKS), acting_user=None)
    run = proof(fy=fiscal_year(2028), issue_date=date(2027, 9, 10))
    ly = run.summary["last_year"]
    assert ly["bills"] == 7 and ly["converted"] == 1 and ly["new"] == 1 and ly["increased"] == 0
    page = client_for(personas["staff"]).get(f"/bill-runs/{run.pk}/").content.decode()
    assert "1 bill of last year was converted from the old system" in page
