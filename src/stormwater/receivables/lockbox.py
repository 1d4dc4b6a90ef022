"""Lockbox and payment-processor files (Ch. 295 Art. IV billing and collection ¶C): a CSV of payments
posted all or nothing, set-based.

The rules are those of ``services.payment_post`` — interest brought up to the day received, then oldest
installment first, demand charges → interest → principal, an overpayment kept as a credit balance, one
audit row a payment — applied to every payment of the file with a constant number of queries a round
(issue 15: a 5,000-row file used to post row by row inside one request, about 105 s). A round is the
first payment of each account in the file, then the second, … (an account's payments apply in the
file's order); within a round, one read of the positions (``positions.installment_figures``) per
day received, the allocation in memory, one insert per table. tests/receivables/test_lockbox.py holds
a file's ledger equal to the same payments posted one at a time.

The same file (same bytes) posted twice posts nothing twice: its SHA-256 is unique. Posted twice at the
same moment, the second waits for the first at the unique key and is told "already posted".

A payment is a duplicate by its content — account, amount, day received and check/reference — whatever
file carried it (``selectors.payment_duplicates_each``, the one duplicate rule of the app, here ``FILE_ROW``) (issue 17: the same rows re-saved with CRLF line endings, and a bank's cumulative file
carrying yesterday's rows again, used to post again). Such rows are skipped and named in the message; a
file whose every row was posted before posts nothing and says "already posted".

Reading and validation are the import pipeline's (issue 20, ``stormwater.imports.pipeline``): the encoding is
detected (UTF-8, a BOM, else Windows-1252, said so — never refused or replaced for an accent), a binary or empty
file is named for what it is, and a row with fewer or more fields than the header (a cut-off last row) refuses
the file; then every row is checked (account, amount, day received, reference, method) before anything posts,
each finding naming the row and the column. ``dry_run`` lists what would post. Every file leaves an
``imports.ImportRecord`` (kind ``lockbox`` or ``processor_payments``: the file's SHA-256, the SHA-256 of its
payments, outcome applied / unchanged / refused, counts).
"""
from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.db import IntegrityError, transaction

from stormwater.audit.services import actor_or_none as _user, audit_record, audit_record_many
from stormwater.imports.pipeline import CsvTable, ImportRefused, Problem, bytes_checksum, content_checksum, read_csv_bytes
from stormwater.rules.money import ZERO, fmt, round_cents, to_decimal
from stormwater.utility.models import Account, Component, EntryKind, LedgerEntry
from stormwater.utility.posting import ALLOCATION_ORDER

from .base import ERR_CLOSED, ERR_FUTURE, ERR_UNKNOWN_ACCOUNT, CollectionError, payment_amount_check
from .models import Payment, PaymentBatch, PaymentMethod, SuspenseItem, SuspenseReason
from .online_fees import fee_refunds_due, fee_rows_split, fee_rows_settle
from .positions import AccountFilter, installment_figures
from .selectors import (FILE_ROW, PaymentContent, books_open_from, books_open_refusal, closed_through,
                        payment_duplicates_each)

BATCH_COLUMNS = ("account", "amount", "received_on", "reference")
MSG_ALREADY_POSTED = "This file was already posted on {at:%Y-%m-%d %H:%M} ({rows} payments): nothing posted again."
MSG_ALL_POSTED = ("Every payment of this file ({rows}) was already posted (the same account, amount, date and "
                  "reference): nothing posted again.")
MSG_SKIPPED = ("{n} row{s} {were} already posted (the same account, amount, date and reference) and skipped: "
               "rows {lines}.")
SKIPPED_LINES_SHOWN = 50


@dataclass
class BatchResult:
    batch: PaymentBatch | None
    posted: int
    total: Decimal
    already_posted: bool = False
    message: str = ""
    skipped: tuple[int, ...] = ()  # the file's lines already posted before (duplicates by content), not posted
    problems: tuple[Problem, ...] = ()  # what reading found that did not stop the file (an encoding, said so)
    dry_run: bool = False
    held: tuple[int, ...] = ()  # the file's lines put in suspense (issue 25), not posted


class BatchRejected(CollectionError):
    """The file posts nothing: ``errors`` (one line each, "row N: column: what") and the same as pipeline findings
    (``problems``: file, rows and column)."""

    def __init__(self, errors: list[str], problems: list[Problem] | None = None):
        self.errors = errors
        self.problems = problems if problems is not None else [Problem("bad_file", "file", e, [], "error")
                                                                for e in errors]
        super().__init__("The file was not posted: " + "; ".join(errors))

    def json_detail(self) -> dict:
        """The rejected rows, each by line, and every finding, for the API's 400 answer."""
        return {"rows": self.errors, "problems": [p.as_json() for p in self.problems]}


def _refused(name: str, problems: list[Problem]) -> BatchRejected:
    """The pipeline's findings that stop a file (its own reading errors) as a BatchRejected."""
    errs = [p for p in problems if p.severity == "error"]
    return BatchRejected([p.message + (f" — {', '.join(p.ids[:20])}" + (" …" if len(p.ids) > 20 else "")
                                       if p.ids else "") for p in errs], errs)


def payment_file_table(*, filename: str, content: bytes) -> CsvTable:
    """Read a payment file through the import pipeline (encoding detected; binary, empty, unterminated quotes,
    repeated columns, cut-off or overlong rows refused naming the file and rows) → its table; BatchRejected else."""
    try:
        t = read_csv_bytes(content, name=filename)
    except ImportRefused as e:
        raise _refused(filename, e.problems) from None
    if any(p.severity == "error" for p in t.problems):
        raise _refused(filename, t.problems)
    return t


@dataclass(frozen=True)
class BatchRow:
    line: int
    account: Account
    amount: Decimal
    received_on: date
    reference: str
    method: str


@dataclass(frozen=True)
class HeldRow:
    """A well-formed row that does not post (issue 25): it waits in suspense (``models.SuspenseItem``)."""

    line: int
    account_text: str
    amount: Decimal
    received_on: date
    reference: str
    method: str
    reason: str
    detail: str


def _parse_batch(table: CsvTable) -> tuple[list[BatchRow], list[HeldRow]]:
    """Every row checked (one query for the accounts); a malformed row rejects the file, naming each (row and
    column). Header names are matched without regard to case. A well-formed row that matches no account, or repeats
    a reference of its account with another amount (in the file or already posted), is held in suspense (issue 25:
    one unidentifiable row used to refuse the whole day's file)."""
    cols = {c.lower(): c for c in table.columns}
    missing = [c for c in BATCH_COLUMNS if c not in cols]
    if missing:
        msg = (f"header: missing column(s) {', '.join(missing)} (expected {', '.join(BATCH_COLUMNS)}[, method]; "
               f"the file has {', '.join(table.columns) or 'no header'})")
        raise BatchRejected([msg], [Problem("missing_column", table.name, msg, missing, "error")])
    raw = [(n, {k: r.get(cols[k], "") if k in cols else None for k in (*BATCH_COLUMNS, "method")})
           for n, r in zip(table.row_numbers, table.rows)]
    numbers = {(r.get("account") or "").strip() for _, r in raw}
    accounts = {a.number: a for a in Account.objects.filter(number__in=numbers)}
    through = closed_through()
    opens = books_open_from()
    today = date.today()
    rows, held, errors, problems, seen = [], [], [], [], set()
    first_amount: dict[tuple[int, str], Decimal] = {}  # (account, reference as compared) → the file's first amount
    for line, r in raw:
        try:
            number = (r.get("account") or "").strip()
            acct = accounts.get(number)
            amount = to_decimal(r.get("amount"), field="amount")
            payment_amount_check(amount)
            if amount != round_cents(amount):
                raise CollectionError("amount: must be in whole cents")
            try:
                day = date.fromisoformat((r.get("received_on") or "").strip())
            except ValueError:
                raise CollectionError(f"received_on: {r.get('received_on')!r} is not a date (YYYY-MM-DD)") from None
            if day > today:
                raise CollectionError(ERR_FUTURE.format(day=day))
            if through and day <= through:
                raise CollectionError(ERR_CLOSED.format(field="received_on", day=day, through=through))
            refusal = books_open_refusal(day, "received_on", opens)
            if refusal:
                raise CollectionError(refusal)
            ref = (r.get("reference") or "").strip()
            key = (number, ref, amount, day)
            if ref and key in seen:
                raise CollectionError(f"reference: {ref!r} appears twice for account {number}")
            seen.add(key)
            method = (r.get("method") or PaymentMethod.LOCKBOX).strip().lower()
            if method not in PaymentMethod.values:
                raise CollectionError(f"method: {method!r} is not one of {', '.join(PaymentMethod.values)}")
            if acct is None:
                held.append(HeldRow(line, number[:80], round_cents(amount), day, ref, method,
                                    SuspenseReason.NO_ACCOUNT, ERR_UNKNOWN_ACCOUNT.format(number=number)[:300]))
                continue
            if ref:
                k = (acct.pk, ref.upper())
                if k in first_amount and first_amount[k] != amount:
                    held.append(HeldRow(line, number, round_cents(amount), day, ref, method,
                                        SuspenseReason.DUPLICATE_REFERENCE,
                                        f"reference {ref!r} is on an earlier row of the file for "
                                        f"${fmt(first_amount[k])}"))
                    continue
                first_amount.setdefault(k, amount)
            rows.append(BatchRow(line, acct, round_cents(amount), day, ref, method))
        except ValueError as e:
            errors.append(f"row {line}: {e}")
            column = str(e).split(":", 1)[0]
            problems.append(Problem("bad_row", table.name, str(e),
                                    [f"row {line} ({cols.get(column, column)})" if column in cols else f"row {line}"],
                                    "error"))
    if errors:
        raise BatchRejected(errors, problems)
    if not rows and not held:
        raise BatchRejected(["the file has no payment rows"])
    return rows, held


def _posted_with_another_amount(rows: list[BatchRow]) -> tuple[list[BatchRow], list[HeldRow]]:
    """Rows whose reference is already on their account (a payment posted before, not reversed) with another
    amount: held in suspense rather than posted (issue 25; docs/imports.md "a reference twice for one account").
    One query over the file's accounts and references."""
    refs = {r.reference.upper() for r in rows if r.reference}
    if not refs:
        return rows, []
    prior: dict[tuple[int, str], list] = defaultdict(list)
    for p in (Payment.objects.filter(account_id__in={r.account.pk for r in rows}, reversal__isnull=True)
              .exclude(reference="").only("pk", "account_id", "reference", "amount", "received_on")):
        if p.reference.strip().upper() in refs:
            prior[(p.account_id, p.reference.strip().upper())].append(p)
    keep, held = [], []
    for r in rows:
        earlier = prior.get((r.account.pk, r.reference.upper())) if r.reference else None
        if earlier and all(p.amount != r.amount for p in earlier):
            p = earlier[0]
            held.append(HeldRow(r.line, r.account.number, r.amount, r.received_on, r.reference, r.method,
                                SuspenseReason.DUPLICATE_REFERENCE,
                                f"reference {r.reference!r} was posted to {r.account.number} on {p.received_on} for "
                                f"${fmt(p.amount)} (payment {p.pk})"))
        else:
            keep.append(r)
    return keep, held


def _content(rows: list[BatchRow]) -> str:
    """The SHA-256 of what the file says: its payments, whatever the bytes (CRLF, BOM, encoding)."""
    return content_checksum([(r.account.number, str(r.amount), str(r.received_on), r.reference, r.method)
                             for r in rows])


def _record(*, kind: str, filename: str, content: bytes, rows: list[BatchRow] | None, outcome: str, counts: dict,
            report: dict, acting_user) -> None:
    from stormwater.imports.models import ImportRecord
    from stormwater.imports.services import import_record_create

    checksum = bytes_checksum(content)
    if rows:
        what = _content(rows)
    else:  # the same bytes as a file on record: the same content
        what = (ImportRecord.objects.filter(kind=kind, checksum=checksum).exclude(content_checksum="")
                .values_list("content_checksum", flat=True).first() or "") if outcome == "unchanged" else ""
    import_record_create(kind=kind, source=filename, path=None, checksum=checksum, content_checksum=what,
                         outcome=outcome, counts=counts, report=report, acting_user=acting_user)


def _already_posted(prior: PaymentBatch) -> BatchResult:
    return BatchResult(prior, 0, ZERO, already_posted=True,
                       message=MSG_ALREADY_POSTED.format(at=prior.posted_at, rows=prior.rows))


def payment_batch_post(*, filename: str, content: bytes, acting_user, dry_run: bool = False,
                       record_kind: str = "lockbox", original: bytes | None = None) -> BatchResult:
    """Post a lockbox/bank CSV (columns account, amount, received_on, reference[, method]).

    All or nothing: the whole file is read and checked first (the import pipeline; see the module's docstring)
    and any bad row rejects it, naming each bad row and column. The same file (same bytes) posted again posts
    nothing. ``dry_run``: what would post (and which rows are already posted), nothing written. Every file but a
    dry run leaves an import record of ``record_kind`` with the SHA-256 of ``original`` (the file as received,
    when ``content`` is its translation: the processor's file) or of ``content``.
    """
    received = original if original is not None else content
    digest = hashlib.sha256(content).hexdigest()
    prior = PaymentBatch.objects.filter(sha256=digest).first()
    if prior:
        if not dry_run:
            _record(kind=record_kind, filename=filename, content=received, rows=None, outcome="unchanged",
                    counts={"rows": prior.rows, "posted": 0, "batch": prior.pk},
                    report={"message": "already posted as batch %d" % prior.pk}, acting_user=acting_user)
        res = _already_posted(prior)
        res.dry_run = dry_run
        return res
    try:
        table = payment_file_table(filename=filename, content=content)
        rows, held = _parse_batch(table)
    except BatchRejected as e:
        if not dry_run:
            _record(kind=record_kind, filename=filename, content=received, rows=None, outcome="refused", counts={},
                    report=e.json_detail(), acting_user=acting_user)
        raise
    found = tuple(p for p in table.problems if p.severity != "error")
    if dry_run:
        skipped = _posted_before(rows)
        new = [r for r in rows if r.line not in skipped]
        new, later = _posted_with_another_amount(new)
        waiting = _not_yet_held(held + later)
        fees, waiting, fees_before = fee_rows_split(waiting, lock=False)
        fees, refunds = fee_refunds_due(fees, HeldRow)
        waiting += refunds
        skipped |= set(fees_before)
        total = sum((r.amount for r in new), ZERO)
        message = (f"Check only: {len(new)} payment{'s' if len(new) != 1 else ''}, ${fmt(total)}, would post"
                   + (f"; {len(skipped)} row{'s' if len(skipped) != 1 else ''} already posted: rows "
                      + ", ".join(str(n) for n in sorted(skipped)[:SKIPPED_LINES_SHOWN]) if skipped else "") + ".")
        message += _fees_message(fees, would=True) + _held_message(waiting, would=True)
        return BatchResult(None, len(new), total, message=message + _findings(found),
                           skipped=tuple(sorted(skipped)), problems=found, dry_run=True,
                           held=tuple(h.line for h in waiting))
    res = _post_file(filename=filename, digest=digest, rows=rows, held=held, received=received,
                     record_kind=record_kind, acting_user=acting_user)
    res.problems = found
    res.message += _findings(found)
    return res


def _findings(found) -> str:
    return "".join(f" {p.message}." for p in found if p.code == "encoding")


@transaction.atomic
def _post_file(*, filename: str, digest: str, rows: list[BatchRow], held: list[HeldRow], received: bytes,
               record_kind: str, acting_user) -> BatchResult:
    """Post the checked rows of a file (not yet posted by its bytes), with its import record, in one transaction;
    the rows that do not post wait in suspense (issue 25), each once whatever number of files carry it."""
    all_rows = rows

    def record(outcome: str, counts: dict, report: dict) -> None:
        _record(kind=record_kind, filename=filename, content=received, rows=all_rows, outcome=outcome, counts=counts,
                report=report, acting_user=acting_user)

    # Lock the file's accounts (id order: no deadlock) before looking for earlier payments of the same content,
    # so that two files carrying one payment at the same moment post it once.
    ids = sorted({r.account.pk for r in rows})
    list(Account.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))
    skipped = _posted_before(rows)
    rows = [r for r in rows if r.line not in skipped]
    rows, later = _posted_with_another_amount(rows)
    held = _not_yet_held(held + later)
    # issue 30: a row that is a permit fee paid online is receipted with the file (or, the fee paid by then, held as
    # a refund due); one receipted by an earlier file is skipped (receivables/online_fees.py)
    fees, held, fees_before = fee_rows_split(held)
    fees, refunds = fee_refunds_due(fees, HeldRow)
    held += refunds
    skipped |= set(fees_before)
    if not rows and not held and not fees:
        n = len(all_rows) + len(later) + len(fees_before)
        record("unchanged", {"rows": n, "posted": 0, "skipped": len(skipped)},
               {"message": MSG_ALL_POSTED.format(rows=n)})
        return BatchResult(None, 0, ZERO, already_posted=True, message=MSG_ALL_POSTED.format(rows=n),
                           skipped=tuple(sorted(skipped)))
    total = sum((r.amount for r in rows), ZERO) + sum((f.amount for f in fees), ZERO)
    try:
        # The unique SHA-256 is the lock: a second post of the same file at the same moment waits here for
        # the first to commit (PostgreSQL), then fails the insert and is told the file is posted.
        with transaction.atomic():
            batch = PaymentBatch.objects.create(filename=filename, sha256=digest, rows=len(rows) + len(fees),
                                                total=total,
                                                posted_by=_user(acting_user))
    except IntegrityError:
        prior = PaymentBatch.objects.filter(sha256=digest).first()
        if prior is None:
            raise
        record("unchanged", {"rows": prior.rows, "posted": 0, "batch": prior.pk},
               {"message": "already posted as batch %d" % prior.pk})
        return _already_posted(prior)
    _post_rows(batch, rows, acting_user)
    fee_rows_settle(batch, fees, acting_user)
    SuspenseItem.objects.bulk_create([
        SuspenseItem(file=batch, line=h.line, account_text=h.account_text, amount=h.amount, received_on=h.received_on,
                     reference=h.reference[:80], method=h.method, reason=h.reason, detail=h.detail[:300])
        for h in held])
    held_total = sum((h.amount for h in held), ZERO)
    audit_record(actor=acting_user, action="payment_batch.post", obj=batch,
                 data={"filename": filename, "rows": len(rows), "total": fmt(total),
                       "skipped_lines": sorted(skipped), "suspense_lines": [h.line for h in held],
                       "suspense_total": fmt(held_total), "permit_fee_lines": [f.line for f in fees]})
    paid = sum((r.amount for r in rows), ZERO)
    message = f"Posted {len(rows)} payments, ${fmt(paid)}." + _fees_message(fees) + _held_message(held)
    if skipped:
        lines = sorted(skipped)
        shown = ", ".join(str(n) for n in lines[:SKIPPED_LINES_SHOWN]) + (" …" if len(lines) > SKIPPED_LINES_SHOWN
                                                                          else "")
        message += " " + MSG_SKIPPED.format(n=len(lines), s="s" if len(lines) != 1 else "",
                                            were="were" if len(lines) != 1 else "was", lines=shown)
    counts = {"rows": len(all_rows) + len(held) + len(fees), "posted": len(rows), "skipped": len(skipped),
              "total": fmt(total)}
    if fees:
        counts.update(permit_fees=len(fees))
    if held:
        counts.update(suspense=len(held), suspense_total=fmt(held_total))
    record("applied", counts, {"batch": batch.pk, "skipped_lines": sorted(skipped)[:500],
                               "suspense_lines": [h.line for h in held][:500]})
    return BatchResult(batch, len(rows), total, message=message, skipped=tuple(sorted(skipped)),
                       held=tuple(h.line for h in held))


def _fees_message(fees, would: bool = False) -> str:
    if not fees:
        return ""
    n = len(fees)
    return (f" {n} permit fee{'s' if n != 1 else ''} paid online {'would be' if would else 'were' if n != 1 else 'was'}"
            f" receipted (${fmt(sum((f.amount for f in fees), ZERO))}): "
            + ", ".join(f.online.permit.case.number for f in fees) + ".")


def _held_message(held: list[HeldRow], would: bool = False) -> str:
    if not held:
        return ""
    n = len(held)
    shown = "; ".join(f"row {h.line}: {h.detail}" for h in held[:SKIPPED_LINES_SHOWN])
    return (f" {n} row{'s' if n != 1 else ''} {'would wait' if would else ('waits' if n == 1 else 'wait')} in "
            f"suspense for the Collector to match, return or refund (${fmt(sum((h.amount for h in held), ZERO))}): "
            f"{shown}{' …' if n > SKIPPED_LINES_SHOWN else ''}.")


def _not_yet_held(held: list[HeldRow]) -> list[HeldRow]:
    """``held`` less the rows already in suspense from an earlier file (a bank's cumulative file carries yesterday's
    rows again: the same account as written, amount, day and reference), so that nothing waits twice."""
    if not held:
        return []
    known: dict[tuple, int] = defaultdict(int)
    for i in SuspenseItem.objects.filter(received_on__in={h.received_on for h in held},
                                         amount__in={h.amount for h in held}):
        known[(i.account_text.upper(), i.amount, i.received_on, i.reference.upper())] += 1
    # As _posted_before: a file may carry the same content k times; as many as are held already are skipped.
    out = []
    for h in held:
        k = (h.account_text.upper(), h.amount, h.received_on, h.reference.upper())
        if known[k] > 0:
            known[k] -= 1
            continue
        out.append(h)
    return out


def _posted_before(rows: list[BatchRow]) -> set[int]:
    """The lines of ``rows`` whose payment is already posted: ``selectors.payment_duplicates_each`` under the
    ``FILE_ROW`` rule (account, amount, day received, reference; a payment reversed since still counts), in one
    query over the file's accounts and days. A file may carry the same content k times (two equal payments without
    a reference): as many of them as were posted before are skipped, the rest are new."""
    contents = [PaymentContent(r.account.pk, r.amount, r.received_on, r.reference) for r in rows]
    found = payment_duplicates_each(contents, rule=FILE_ROW)
    seen: dict[tuple, int] = defaultdict(int)
    skipped = set()
    for r, c, prior in zip(rows, contents, found):
        key = (c.account_id, c.amount, c.received_on, c.ref)
        if seen[key] < len(prior):
            skipped.add(r.line)
        seen[key] += 1
    return skipped


def _post_rows(batch: PaymentBatch, rows: list[BatchRow], acting_user) -> None:
    # Lock every account of the file at once, in id order (two files sharing accounts cannot deadlock).
    ids = sorted({r.account.pk for r in rows})
    list(Account.objects.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))
    rounds: list[list[BatchRow]] = []
    nth: dict[int, int] = defaultdict(int)
    for r in rows:  # the k-th payment of each account goes in round k: an account's payments in file order
        k = nth[r.account.pk]
        nth[r.account.pk] += 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(r)
    for round_rows in rounds:
        by_day: dict[date, list[BatchRow]] = defaultdict(list)
        for r in round_rows:
            by_day[r.received_on].append(r)
        for day, day_rows in by_day.items():
            _post_day(batch, day, day_rows, acting_user)


def _post_day(batch: PaymentBatch, day: date, rows: list[BatchRow], acting_user) -> None:
    """Post payments received on ``day``, at most one per account: the positions read once, interest
    posted to the day, each payment allocated as ``utility.posting.allocate`` does, one insert per table."""
    user = _user(acting_user)
    figures = installment_figures(day, AccountFilter(ids=[r.account.pk for r in rows]))
    payments = Payment.objects.bulk_create(
        [Payment(account=r.account, amount=r.amount, received_on=day, method=r.method, reference=r.reference,
                 batch=batch, batch_line=r.line, created_by=user) for r in rows], batch_size=2000)
    entries: list[LedgerEntry] = []
    audits = []
    for r, payment in zip(rows, payments):
        dues = figures.get(r.account.pk, [])
        # services._materialize_interest: interest earned through the day and not yet posted is posted.
        for d in dues:
            if d.unposted > 0:
                entries.append(LedgerEntry(account_id=r.account.pk, kind=EntryKind.INTEREST,
                                           component=Component.INTEREST, amount=d.unposted, effective_on=day,
                                           bill_id=d.bill_id, installment_id=d.inst_id, created_by=user,
                                           memo=f"Interest through {day} (Ch. 295 Art. IV billing ¶C)"))
        memo = f"Payment {payment.pk}" + (f" ref {r.reference}" if r.reference else "")
        left = r.amount
        # utility.posting.allocate: oldest installment first; demand charges → interest → principal.
        for d in dues:
            if left <= 0:
                break
            owed = {Component.DEMAND: d.demand, Component.INTEREST: d.interest + d.unposted,
                    Component.PRINCIPAL: d.principal}
            for comp in ALLOCATION_ORDER:
                take = min(left, owed[comp])
                if take > 0:
                    entries.append(LedgerEntry(account_id=r.account.pk, kind=EntryKind.PAYMENT, component=comp,
                                               amount=-take, effective_on=day, bill_id=d.bill_id,
                                               installment_id=d.inst_id, payment=payment, created_by=user,
                                               memo=memo))
                    left -= take
        if left > 0:
            entries.append(LedgerEntry(account_id=r.account.pk, kind=EntryKind.PAYMENT, component=Component.UNAPPLIED,
                                       amount=-left, effective_on=day, payment=payment, created_by=user,
                                       memo=memo + " (overpayment: credit balance)"))
        audits.append((payment, {"account": r.account.number, "amount": fmt(r.amount), "received_on": str(day),
                                 "unapplied": fmt(max(left, ZERO))}))
    LedgerEntry.objects.bulk_create(entries, batch_size=2000)
    audit_record_many(actor=acting_user, action="payment.post", items=audits)
