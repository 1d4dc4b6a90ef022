"""The bill run (Ch. 295 Art. IV ¶B, ¶E, ¶G): proof → approval (issue) → void; set-based, streamed, resumable.

States (``RunState``; TRANSITIONS below, one guarded service per arrow, each audited):

    preparing ──► proof ──► issued ──► voided
        │           │
        └───────────┴──► discarded

- ``bill_run_start``: a short transaction that opens the period's run in "preparing" (or finds the open one:
  one proof per period at a time, a database constraint backs it).
- ``bill_run_prepare``: computes every parcel's bill in slices of ``CHUNK`` parcels (by primary key), each
  slice its own short transaction that writes the slice's bills and installments in bulk (PostgreSQL COPY,
  SQLite executemany: ``utility.bulk``) and records the slice (``BillRunChunk``). Memory stays flat (one
  slice at a time, never the whole town). Killed mid-way, it resumes after the last slice recorded; two
  processes preparing one run skip each other's slices. Then the proof (counts and totals by class and ERU
  band, against last year: ``utility.proof``) is stored and the run becomes a "proof". A proof's bills are
  invisible to owners, balances, reports, exports and mailings (``Bill.objects`` shows issued runs only) and
  are in no ledger.
- ``bill_run_approve`` (Collector or Director, ``Perm.BILLING_APPROVE``): one short transaction flips the run
  to "issued" and posts every installment's charge to the append-only ledger set-based
  (``INSERT … SELECT``), then applies credit balances. Nothing is half-visible: before the commit nothing of
  the run shows, after it all of it.
- ``bill_run_void`` (before mailing): reversing entries for the run's charges (and credit balances applied to
  it), the run "voided" (so the period can be billed again). No bill or installment row is changed or deleted
  (append-only, issue 14): whether a bill counts is its run's state, and a bill's ``revision`` keeps one per
  account and period (see ``Bill``).
- ``bill_run_discard``: a proof not approved is set aside (its bills, never issued nor in any ledger, stay as
  rows of the discarded run).
- ``bill_run_prepare_later``: the page's way: the preparation as a background job (kind "bill_run"), its
  progress live on the run's page; a worker killed mid-way is taken back and resumes (``background.py``).
- ``bill_run_issue``: the one-step path of the CLI and ``POST /api/bill-runs/``: start, prepare, approve.

Invariants (tests/utility/test_bill_run.py, test_bill_run_proof.py): idempotent (re-running a billed period
changes nothing; one live bill per account and period: the unique (account, period, revision)); exact cents (Decimal, the
installments sum to the bill, association units to the parcel's fee); the ledger append-only; every step
audited; parcels that cannot be billed are listed with why, never billed $0.
"""
from .common import (CHUNK, DUE_DAYS, ERR_PERIOD, TRANSITIONS, BillingError, BillRunResult, fiscal_year,
                     installment_schedule, run_problems)
from .background import bill_run_prepare_later, gone_run_message, preparing_job
from .issue import approval_refusal, bill_run_approve, bill_run_issue
from .prepare import BILL_COLUMNS, INSTALLMENT_COLUMNS, bill_run_prepare, bill_run_start
from .undo import bill_run_discard, bill_run_mark_mailed, bill_run_void

__all__ = ["CHUNK", "DUE_DAYS", "ERR_PERIOD", "TRANSITIONS", "BILL_COLUMNS", "INSTALLMENT_COLUMNS", "BillingError",
           "BillRunResult", "approval_refusal", "bill_run_approve", "bill_run_discard", "bill_run_issue",
           "bill_run_mark_mailed", "bill_run_prepare", "bill_run_prepare_later", "bill_run_start", "bill_run_void",
           "fiscal_year", "gone_run_message", "installment_schedule", "preparing_job", "run_problems"]
