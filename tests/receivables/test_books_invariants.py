"""Issue 25 "Invariants, proven and watched": random sequences of the Collector's, the Director's and the Select
Board's acts on random accounts, each through the service the pages, the API and the CLI call, with the books
checked after every step by ``receivables.bookcheck.check_books`` (the code of ``stormwater books check``): every
balance the sum of its ledger, no bucket below zero, "due now" what a payment of it clears (posted in a savepoint
and rolled back), each bill run's total its bills', nothing billed twice for a period (master or units).

The acts: bill runs for FY2027 and FY2028 (re-runs included) and their voids, an association instrument recorded
for a master parcel whose units have parcels of their own (Ch. 295 Art. IV ¶G; issue 25 defect 1), payments
(under, exactly, over), returned checks and reversals, refunds (requested and approved by two people), credit
balances applied, abatements granted in full or in part or denied (refund or credit), the Select Board's reversal
of a denial on appeal, a credit granted (prospective), demands and their commitment as liens. Acts the rules refuse
(a demand before interest runs, an abatement of an unpaid bill, a void after a payment) are refused and the
machine goes on; anything else raised fails the test.

Size: the ``books`` profile (25 sequences of up to 15 steps, derandomized); ``HYPOTHESIS_PROFILE=thorough`` runs
thousands of random sequences (by hand: see docs/collector.md "Checking the books"). SQLite and PostgreSQL.
"""
from __future__ import annotations

import os
from datetime import date, datetime, timedelta
from decimal import Decimal as D
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.db import transaction
from hypothesis import HealthCheck, event, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from stormwater.cases.services import TransitionError
from stormwater.receivables.bookcheck import check_books
from stormwater.receivables.models import Demand, Payment
from stormwater.receivables.selectors import pay_offer
from stormwater.utility.models import Account, Bill, BillRun, RunState

ET = ZoneInfo("America/New_York")
START = date(2026, 9, 10)
LAST = date(2028, 6, 1)
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

settings.register_profile("books", max_examples=25, stateful_step_count=15, deadline=None, derandomize=True,
                          database=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, stateful_step_count=30, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])


def _profile():
    return settings.get_profile(os.environ.get("HYPOTHESIS_PROFILE") or "books")


def _refusals():
    from stormwater.imports.pipeline import ImportRefused
    from stormwater.parcels.services import AssociationRefused
    from stormwater.receivables.base import CollectionError
    from stormwater.relief.acts import ReliefError
    from stormwater.utility.billrun.common import BillingError

    return (CollectionError, BillingError, ReliefError, TransitionError, ImportRefused, AssociationRefused)


class Books(RuleBasedStateMachine):
    """One town's books from Sep 10, 2026: the acts as rules, the invariants checked after each."""

    ctx: dict = {}

    def __init__(self):
        super().__init__()
        self.sid = transaction.savepoint()
        self.today = START
        self.traveller = None
        self._travel()
        self.refused = _refusals()
        self.n = 0

    # --- the clock ----------------------------------------------------------------------------------------------
    def _travel(self):
        if self.traveller is not None:
            self.traveller.stop()
        d = self.today
        self.traveller = time_machine.travel(datetime(d.year, d.month, d.day, 12, tzinfo=ET), tick=False)
        self.traveller.start()

    def teardown(self):
        transaction.savepoint_rollback(self.sid)
        if self.traveller is not None:
            self.traveller.stop()

    def _try(self, name, fn):
        try:
            with transaction.atomic():
                out = fn()
            event(f"{name}: done")
            return out
        except self.refused as e:
            event(f"{name}: refused ({type(e).__name__})")
            return None

    def _pick(self, qs, i):
        items = list(qs)
        return items[i % len(items)] if items else None

    @property
    def p(self):
        return self.ctx["personas"]

    # --- the acts ----------------------------------------------------------------------------------------------
    @rule(days=st.sampled_from([1, 3, 10, 20, 35, 60, 95]))
    def advance(self, days):
        self.today = min(self.today + timedelta(days=days), LAST)
        self._travel()

    @rule(fy=st.sampled_from([2027, 2028]))
    def bill_run(self, fy):
        from stormwater.utility.services import bill_run_issue, fiscal_year

        label, start, end = fiscal_year(fy)
        self._try("bill run", lambda: bill_run_issue(period_label=label, period_start=start, period_end=end,
                                                     issue_date=self.today, acting_user=self.p["collector"]))

    @rule(i=st.integers(0, 5))
    def void_run(self, i):
        from stormwater.utility.services import bill_run_void

        run = self._pick(BillRun.objects.filter(state=RunState.ISSUED, bills__is_back_bill=False).distinct()
                         .order_by("pk"), i)
        if run is not None:
            self._try("void", lambda: bill_run_void(run=run, reason="Wrong rate table", acting_user=self.p["director"]))

    @rule()
    def record_instrument(self):
        from stormwater.parcels.instrument_import import association_import

        path = self.ctx["tmp_path"] / f"maple-{self.n}.csv"
        self.n += 1
        path.write_text("unit_parcel_id,share_percent\n05-01-1-101,33.3333\n05-01-1-102,33.3333\n"
                        "05-01-1-103,33.3334\n", encoding="utf-8")
        self._try("instrument", lambda: association_import(
            parcel=self.ctx["master"], path=path, source=path.name, reference=f"Doc. {self.n}",
            recorded_on=self.today, name="Maple Court Condominium", acting_user=self.p["staff"]))

    @rule(i=st.integers(0, 40), how=st.sampled_from(["due", "part", "over", "cents", "balance"]),
          cents=st.integers(1, 9999))
    def pay(self, i, how, cents):
        from stormwater.receivables.services import payment_post

        acct = self._pick(Account.objects.filter(bills__isnull=False).distinct().order_by("pk"), i)
        if acct is None:
            return
        offer = pay_offer(acct, as_of=self.today)
        amount = {"due": offer.due_now, "part": (offer.due_now / 2).quantize(D("0.01")),
                  "over": offer.due_now + D(cents) / 100, "cents": D(cents) / 100, "balance": offer.balance}[how]
        if amount <= 0:
            amount = D(cents) / 100
        self.n += 1
        self._try("payment", lambda: payment_post(account=acct, amount=amount, received_on=self.today,
                                                  reference=f"chk{self.n}", acting_user=None))

    @rule(i=st.integers(0, 40), returned=st.booleans())
    def reverse(self, i, returned):
        from stormwater.cashier.returns import returned_check_record
        from stormwater.receivables.services import payment_reverse

        pay = self._pick(Payment.objects.filter(reversal__isnull=True).order_by("pk"), i)
        if pay is None:
            return
        if returned:
            self._try("returned check", lambda: returned_check_record(
                payment=pay, reason="NSF", reversed_on=self.today, acting_user=self.p["collector"]))
        else:
            self._try("reversal", lambda: payment_reverse(payment=pay, reason="Posted to the wrong account",
                                                          reversed_on=self.today, acting_user=self.p["collector"]))

    @rule(i=st.integers(0, 40), part=st.booleans())
    def refund(self, i, part):
        from stormwater.cashier.refunds import refund_approve, refund_request, refundable

        acct = self._pick(Account.objects.filter(bills__isnull=False).distinct().order_by("pk"), i)
        if acct is None:
            return
        can = refundable(acct)
        if can <= 0:
            return
        amount = (can / 2).quantize(D("0.01")) if part and can > D("0.01") else can

        def both():
            v = refund_request(account=acct, amount=amount, payee="Owner", reason="Overpaid",
                               acting_user=self.p["collector"])
            return refund_approve(voucher=v, acting_user=self.p["director"])
        self._try("refund", both)

    @rule(i=st.integers(0, 40))
    def apply_credit(self, i):
        from stormwater.receivables.services import credit_apply

        acct = self._pick(Account.objects.filter(bills__isnull=False).distinct().order_by("pk"), i)
        if acct is not None:
            self._try("credit applied", lambda: credit_apply(account=acct, on=self.today, acting_user=None))

    @rule(i=st.integers(0, 40), decision=st.sampled_from(["grant", "grant_part", "deny"]),
          disposition=st.sampled_from(["refund", "credit"]), pay_first=st.booleans())
    def abatement(self, i, decision, disposition, pay_first):
        from stormwater.receivables.services import payment_post
        from stormwater.relief import services as sv
        from stormwater.relief.selectors import bill_owed

        bill = self._pick(Bill.objects.order_by("pk"), i)
        if bill is None:
            return
        owed = bill_owed(bill, as_of=self.today)
        if pay_first and owed > 0:
            self.n += 1
            self._try("payment", lambda: payment_post(account=bill.account, amount=owed, received_on=self.today,
                                                      reference=f"ab{self.n}", acting_user=None))
        asked = max((bill.amount / 3).quantize(D("0.01")), D("0.01"))

        def act():
            ab = sv.abatement_apply(bill=bill, grounds=["area"], statement="The roof is smaller.",
                                    amount_requested=asked, disposition=disposition, acting_user=self.p["owner"])
            return sv.abatement_decide(abatement=ab, decision=decision, reasons="Measured.",
                                       amount=(asked / 2).quantize(D("0.01")) if decision == "grant_part" else None,
                                       acting_user=self.p["director"])
        self._try(f"abatement {decision}", act)

    @rule(i=st.integers(0, 10))
    def appeal(self, i):
        """The Select Board reverses a denied (or partly granted) abatement on appeal: filed, record sent, hearing set
        two weeks on and held, decided (the clock moves to the hearing)."""
        from stormwater.relief import services as sv
        from stormwater.relief.models import Abatement
        from stormwater.relief.workflow import AbatementStatus as A

        ab = self._pick(Abatement.objects.filter(case__status__in=[A.DENIED, A.GRANTED_PART]).order_by("pk"), i)
        if ab is None:
            return
        ap = self._try("appeal filed", lambda: sv.appeal_file(decided_case=ab.case, grounds="Measured wrong.",
                                                              acting_user=self.p["owner"]))
        if ap is None:
            return
        hearing = self.today + timedelta(days=14)
        if not self._try("hearing set", lambda: (
                sv.appeal_transmit_record(appeal=ap, acting_user=self.p["staff"]),
                sv.appeal_schedule_hearing(appeal=ap, hearing_at=datetime(hearing.year, hearing.month, hearing.day,
                                                                          19, tzinfo=ET),
                                           place="Town Hall", acting_user=self.p["clerk"]))):
            return
        self.today = hearing
        self._travel()
        from stormwater.relief.selectors import bill_abatable

        most = bill_abatable(ab.bill)
        self._try("appeal decided", lambda: (
            sv.appeal_close_hearing(appeal=ap, acting_user=self.p["clerk"]),
            sv.appeal_decide(appeal=ap, outcome="reverse", findings="The roof is smaller.",
                             amount=max(min(most, ab.amount_requested), D("0.01")), acting_user=self.p["clerk"])))

    @rule(part=st.booleans())
    def credit(self, part):
        """A credit granted (in full or in part) on the owner's house: the next bills carry it (credits ¶E)."""
        from stormwater.relief import services as sv
        from stormwater.relief.models import CreditType

        from django.core.files.uploadedfile import SimpleUploadedFile

        def pdf_upload(name):
            return SimpleUploadedFile(name, PDF, content_type="application/pdf")
        bmp = CreditType.objects.get(policy=self.ctx["policy"], code="BMP")

        def act():
            app = sv.credit_apply(parcel=self.ctx["house"], credit_type=bmp, statement="Dry well.",
                                  acting_user=self.p["owner"],
                                  uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in bmp.required_documents])
            sv.credit_determine_complete(application=app, acting_user=self.p["staff"])
            return sv.credit_decide(application=app, decision="grant_part" if part else "grant",
                                    percent=D("10") if part else None, reasons="Half the roof.",
                                    acting_user=self.p["director"])
        self._try("credit granted", act)

    @rule(i=st.integers(0, 40))
    def demand(self, i):
        from stormwater.receivables.services import demand_serve

        acct = self._pick(Account.objects.filter(bills__isnull=False).distinct().order_by("pk"), i)
        if acct is not None:
            self._try("demand", lambda: demand_serve(account=acct, served_on=self.today,
                                                     acting_user=self.p["collector"]))

    @rule(i=st.integers(0, 10))
    def commit(self, i):
        from stormwater.receivables.services import commitment_create

        demand = self._pick(Demand.objects.filter(commitment_line__isnull=True).order_by("pk"), i)
        if demand is not None:
            self._try("commitment", lambda: commitment_create(tax_fiscal_year=self.today.year + 1,
                                                              committed_on=self.today, demands=[demand],
                                                              acting_user=self.p["collector"]))

    # --- the invariants ----------------------------------------------------------------------------------------
    @invariant()
    def books_hold(self):
        report = check_books(as_of=self.today, simulate_payments=True)
        assert report.clean, "\n".join(b.line() for b in report.breaks)


@pytest.fixture
def maple(town):
    """A 20-unit condominium (18 ERUs, $914.35 a year) whose three unit parcels are on file, with no instrument
    yet (tests/utility/test_issue25_books.py, defect 1)."""
    from stormwater.parcels.models import Owner, Parcel, ParcelImpervious

    o = Owner.objects.create(name="Maple Court Trustees", mailing_address="5 Maple Ct\nLongmeadow, MA 01106")
    p = Parcel.objects.create(parcel_id="05-01-1", address="5 Maple Ct", owner=o, land_use_code="102",
                              dwelling_units=20, lot_sqft=D("200000"))
    ParcelImpervious.objects.create(survey=town["survey"], parcel=p, impervious_sqft=D("61200"))
    for u in ("101", "102", "103"):
        uo = Owner.objects.create(name=f"Unit {u} Owner", mailing_address=f"{u} Maple Ct\nLongmeadow, MA 01106")
        Parcel.objects.create(parcel_id=f"05-01-1-{u}", address=f"{u} Maple Ct", owner=uo, land_use_code="102",
                              dwelling_units=1)
    return p


@pytest.fixture
def books_town(town, resolution, maple, personas, tmp_path, settings, town_toml):
    from stormwater.relief.services import credit_policy_load_demo

    settings.MEDIA_ROOT = tmp_path / "media"
    town_toml(returned_check_charge=25)
    policy = credit_policy_load_demo(effective_from=date(2026, 7, 1), acting_user=personas["director"])
    return {"personas": personas, "town": town, "master": maple, "house": town["house"], "policy": policy,
            "tmp_path": tmp_path}


def test_random_acts_keep_the_books(books_town):
    Books.ctx = books_town
    run_state_machine_as_test(Books, settings=_profile())
