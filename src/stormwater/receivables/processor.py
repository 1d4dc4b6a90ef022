"""The online payment processor's daily payment file (issue 17, "Paying online").

A resident pays on the processor's hosted page (the "Pay" hand-off, ``TownConfig.payment_url_template``); the
processor sends the Town a daily file of the payments it settled. Each processor names its columns its own
way, so the town configuration maps them (``TownConfig.processor_columns``: ``field=Header`` pairs for
account, amount, received_on and reference; ``processor_date_format``, a ``strftime`` pattern). The file is
translated, row for row (line numbers kept), into the lockbox file's columns with method ``ach`` and posted
by ``lockbox.payment_batch_post``: the same checks (all or nothing, by row and column), the same
duplicate-by-content rule (a payment already posted from any file or screen is skipped and named; a
cumulative file posts only its new rows), the same set-based posting. The file is read through the import
pipeline (issue 20: encoding detected — a payer's accented name no longer refuses the file —, binary, empty and
cut-off files named) and recorded as an ``imports.ImportRecord`` of kind ``processor_payments`` with the
checksum of the file as the processor sent it.
"""
from __future__ import annotations

import csv
import io
from datetime import datetime

from stormwater.imports.pipeline import Problem
from stormwater.townconfig import town_config

from .lockbox import BATCH_COLUMNS, BatchRejected, BatchResult, _record, payment_batch_post, payment_file_table
from .models import PaymentMethod

FIELDS = BATCH_COLUMNS  # account, amount, received_on, reference


def processor_mapping() -> dict[str, str]:
    """{lockbox field: the processor file's header} from the town configuration."""
    out = {}
    for pair in town_config().processor_columns:
        field, _, header = pair.partition("=")
        out[field.strip()] = header.strip()
    return out


def processor_file_translate(content: bytes, *, filename: str = "processor file") -> bytes:
    """The processor's file as a lockbox CSV (BatchRejected naming the missing header or the bad rows, each by row
    and column)."""
    return _translate(content, filename)[0]


def _translate(content: bytes, filename: str) -> tuple[bytes, tuple[Problem, ...]]:
    """→ the lockbox CSV and what reading the processor's bytes found that does not stop it (its encoding)."""
    cfg = town_config()
    mapping = processor_mapping()
    table = payment_file_table(filename=filename, content=content)
    headers = table.columns
    missing = [f"{mapping[f]!r} (for {f})" for f in FIELDS if mapping.get(f) not in headers]
    if missing:
        msg = (f"header: missing column(s) {', '.join(missing)} — the town configuration's processor_columns maps "
               f"them; the file has {', '.join(headers) or 'no header'}")
        raise BatchRejected([msg], [Problem("missing_column", filename, msg, missing, "error")])
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([*FIELDS, "method"])
    errors, problems = [], []
    for line, row in zip(table.row_numbers, table.rows):
        raw_day = row.get(mapping["received_on"], "")
        try:
            day = datetime.strptime(raw_day, cfg.processor_date_format).date().isoformat()
        except ValueError:
            msg = (f"received_on: {raw_day!r} is not a date in the processor's format {cfg.processor_date_format!r} "
                   f"(column {mapping['received_on']!r})")
            errors.append(f"row {line}: {msg}")
            problems.append(Problem("bad_row", filename, msg, [f"row {line} ({mapping['received_on']})"], "error"))
            day = ""
        amount = row.get(mapping["amount"], "").replace("$", "").replace(",", "")
        w.writerow([row.get(mapping["account"], ""), amount, day, row.get(mapping["reference"], ""),
                    PaymentMethod.ACH])
    if errors:
        raise BatchRejected(errors, problems)
    return out.getvalue().encode(), tuple(p for p in table.problems if p.severity != "error")


def processor_file_post(*, filename: str, content: bytes, acting_user, dry_run: bool = False) -> BatchResult:
    """Post the processor's daily payment file (see the module's docstring); ``dry_run``: what would post."""
    try:
        lockbox_csv, found = _translate(content, filename)
    except BatchRejected as e:
        if not dry_run:
            _record(kind="processor_payments", filename=filename, content=content, rows=None, outcome="refused",
                    counts={}, report=e.json_detail(), acting_user=acting_user)
        raise
    res = payment_batch_post(filename=filename, content=lockbox_csv, acting_user=acting_user, dry_run=dry_run,
                             record_kind="processor_payments", original=content)
    # What reading the processor's own bytes found (its encoding) is said on the result.
    res.problems = found + tuple(res.problems)
    res.message += "".join(f" {p.message}." for p in found if p.code == "encoding")
    return res
