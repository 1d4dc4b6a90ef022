"""Reads for the Collector's office: finding an account at the window, what it owes today, the daily cash
report and the deposit reconciliation. Constant queries per page (aggregates, not a loop over rows)."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal

from django.db.models import Count, Q, Sum
from django.utils import timezone

from stormwater.receivables.ledger import account_position
from stormwater.receivables.models import Payment, PaymentBatch, SuspenseItem
from stormwater.receivables.suspense import received_totals
from stormwater.rules.money import ZERO, round_cents
from stormwater.utility.models import Account, Bill
from stormwater.utility.scanline import ScanlineError, looks_like_scanline, scanline_parse

from .models import BatchState, CashBatch, Deposit, DepositFile, FeeKind, FeeReceipt, Receipt, Tender

SEARCH_LIMIT = 50


def account_search(q: str, *, limit: int = SEARCH_LIMIT) -> list[Account]:
    """Accounts by account number, parcel id or bill number (exact), or owner name or address (part of it).
    A union of index paths, one per way of finding (an OR across joins reads whole tables: issue 15)."""
    q = (q or "").strip()
    if len(q) < 2:
        return []
    if looks_like_scanline(q):  # the bill stub's scanline, read by a scanner or typed (utility/scanline.py)
        try:
            q = scanline_parse(q).account
        except ScanlineError:
            pass  # a wrong check digit: searched as typed, which finds nothing rather than a wrong account
    parts = [Account.objects.filter(number__iexact=q), Account.objects.filter(parcel__parcel_id__iexact=q),
             Account.objects.filter(unit__isnull=True, parcel__owner__name__icontains=q),
             Account.objects.filter(unit__owner__name__icontains=q),
             Account.objects.filter(parcel__address__icontains=q)]
    ids = [p.order_by().values_list("pk", flat=True) for p in parts]
    ids.append(Bill.objects.filter(number__iexact=q).order_by().values_list("account_id", flat=True))
    found = list(ids[0].union(*ids[1:])[:limit * 4])
    return list(Account.objects.filter(pk__in=found).select_related("parcel__owner", "unit__owner").order_by("number")[:limit])


def stub_read(text: str) -> tuple[Account, Decimal]:
    """The account and the amount a bill stub's scanline carries (issue 25: the amount is no longer dropped).
    ScanlineError (a ValueError starting "scanline: ") when the line is not a scanline, its check digit does not
    match (said as such, ``utility.scanline.ERR_CHECK_DIGIT``) or it names no account."""
    s = scanline_parse(text)
    account = Account.objects.filter(number__iexact=s.account).first()
    if account is None:
        raise ScanlineError(f"scanline: no account {s.account!r} (the stub reads, but the account is not on file)")
    return account, s.amount


def parcels_for_certificate(text: str, *, limit: int = 10) -> list:
    """The parcel a lien certificate request names (issue 25): its parcel id exactly, else every parcel whose street
    address contains the words typed (case aside), at most ``limit``."""
    from stormwater.parcels.models import Parcel

    text = " ".join((text or "").split())
    if not text:
        return []
    exact = list(Parcel.objects.filter(parcel_id__iexact=text)[:1])
    if exact:
        return exact
    return list(Parcel.objects.filter(address__icontains=text).order_by("address", "parcel_id")[:limit])


def account_owner_name(account: Account) -> str:
    owner = account.unit.owner if account.unit_id else account.parcel.owner
    return owner.name if owner else ""


@dataclass
class AmountDue:
    account: Account
    as_of: date
    items: list = field(default_factory=list)  # InstallmentDue still owing, issued by the day
    later: list = field(default_factory=list)  # installments of issued bills whose own issue date is to come
    total: Decimal = ZERO
    credit: Decimal = ZERO


def amount_due(account: Account, *, as_of: date | None = None) -> AmountDue:
    """Open items and the amount due as of the day with interest to that day (Ch. 295 Art. IV billing ¶C),
    from the ledger's one reference reading (receivables.ledger.account_position)."""
    as_of = as_of or timezone.localdate()
    pos = account_position(account, as_of=as_of)
    return AmountDue(account=account, as_of=as_of, items=[d for d in pos.dues if d.total != 0 and d.issued],
                     later=[d for d in pos.dues if d.total != 0 and not d.issued], total=pos.total, credit=pos.credit)


def _day_bounds(day: date):
    tz = timezone.get_current_timezone()
    start = timezone.make_aware(datetime.combine(day, time.min), tz)
    return start, start + timedelta(days=1)


@dataclass
class DailyCash:
    day: date
    by_cashier: list  # dicts: cashier, tender, count, total
    by_tender: dict
    receipts_total: Decimal
    receipts_count: int
    files: list  # PaymentBatch posted that day
    files_total: Decimal
    batches: list  # CashBatch opened or closed that day
    reversed_total: Decimal
    fees: list = field(default_factory=list)  # dicts: cashier, kind_label, tender_label, count, total (issue 25)
    fees_total: Decimal = ZERO

    @property
    def total(self) -> Decimal:
        return self.receipts_total + self.files_total + self.fees_total


def daily_cash(day: date) -> DailyCash:
    """The daily cash report: what the window took (by cashier and tender), the files posted, the batches."""
    start, end = _day_bounds(day)
    receipts = Receipt.objects.filter(issued_at__gte=start, issued_at__lt=end)
    rows = list(receipts.values("batch__cashier__username", "tender").annotate(n=Count("id"), s=Sum("payment__amount"))
                .order_by("batch__cashier__username", "tender"))
    by_cashier = [{"cashier": r["batch__cashier__username"], "tender": r["tender"],
                   "tender_label": Tender(r["tender"]).label, "count": r["n"], "total": round_cents(r["s"] or ZERO)}
                  for r in rows]
    by_tender = {t.value: ZERO for t in Tender}
    for r in by_cashier:
        by_tender[r["tender"]] += r["total"]
    fees = [{"cashier": r["batch__cashier__username"], "kind": r["kind"], "kind_label": FeeKind(r["kind"]).label,
             "tender": r["tender"], "tender_label": Tender(r["tender"]).label, "count": r["n"],
             "total": round_cents(r["s"] or ZERO)}
            for r in FeeReceipt.objects.filter(issued_at__gte=start, issued_at__lt=end)
            .values("batch__cashier__username", "kind", "tender").annotate(n=Count("id"), s=Sum("amount"))
            .order_by("batch__cashier__username", "kind", "tender")]
    for r in fees:  # the drawer holds them too
        by_tender[r["tender"]] += r["total"]
    reversed_total = round_cents(receipts.filter(payment__reversal__isnull=False)
                                 .aggregate(s=Sum("payment__amount"))["s"] or ZERO)
    files = list(PaymentBatch.objects.filter(posted_at__gte=start, posted_at__lt=end).order_by("posted_at"))
    held = received_totals(f.pk for f in files)
    for f in files:  # what the file brought: posted, and rows held in suspense (issue 25)
        f.in_suspense = held.get(f.pk, ZERO)
        f.received = f.total + f.in_suspense
    batches = list(CashBatch.objects.filter(Q(opened_on=day) | Q(closed_at__gte=start, closed_at__lt=end))
                   .select_related("cashier").order_by("id"))
    return DailyCash(day=day, by_cashier=by_cashier, by_tender=by_tender,
                     receipts_total=sum((r["total"] for r in by_cashier), ZERO),
                     receipts_count=sum(r["count"] for r in by_cashier), files=files,
                     files_total=sum((f.received for f in files), ZERO), batches=batches, reversed_total=reversed_total,
                     fees=fees, fees_total=sum((r["total"] for r in fees), ZERO))


@dataclass
class DepositLine:
    deposit: Deposit
    batches_total: Decimal
    files_total: Decimal

    @property
    def expected(self) -> Decimal:
        return self.batches_total + self.files_total

    @property
    def difference(self) -> Decimal:
        return self.deposit.bank_amount - self.expected


def deposit_lines(deposits) -> list[DepositLine]:
    """Each deposit with what it should be (batches as counted + files as posted) and the bank's difference."""
    deposits = list(deposits)
    ids = [d.pk for d in deposits]
    b = {r["deposit"]: r["s"] for r in CashBatch.objects.filter(deposit__in=ids).values("deposit")
         .annotate(s=Sum("counted_total"))}
    f = {r["deposit"]: r["s"] for r in DepositFile.objects.filter(deposit__in=ids).values("deposit")
         .annotate(s=Sum("file__total"))}
    # A file's rows held in suspense came with it to the bank (issue 25): the deposit carries them too.
    for r in (SuspenseItem.objects.filter(file__deposit_file__deposit__in=ids)
              .values("file__deposit_file__deposit").annotate(s=Sum("amount")).order_by()):
        d = r["file__deposit_file__deposit"]
        f[d] = (f.get(d) or ZERO) + (r["s"] or ZERO)
    return [DepositLine(deposit=d, batches_total=round_cents(b.get(d.pk) or ZERO),
                        files_total=round_cents(f.get(d.pk) or ZERO)) for d in deposits]


UNDEPOSITED_FILE_DAYS = 90


def undeposited(today: date | None = None):
    """Closed batches and posted files not yet in a deposit: what the next deposit should carry. Files are offered
    from the last 90 days (files posted before the office recorded deposits would otherwise be offered for ever);
    → (batches, files, the number of older undeposited files, said on the page)."""
    today = today or timezone.localdate()
    start, _ = _day_bounds(today - timedelta(days=UNDEPOSITED_FILE_DAYS))
    batches = CashBatch.objects.filter(state=BatchState.CLOSED).select_related("cashier").order_by("id")
    files = PaymentBatch.objects.filter(deposit_file__isnull=True)
    return (batches, files.filter(posted_at__gte=start).annotate(in_suspense=Sum("suspense__amount"))
            .order_by("posted_at"),
            files.filter(posted_at__lt=start).count())


def payments_of_deposit(deposit: Deposit):
    return Payment.objects.filter(Q(receipt__batch__deposit=deposit) | Q(batch__deposit_file__deposit=deposit))
