"""The online payment processor's daily payment file (issue 17, "Paying online").

A resident pays on the processor's hosted page (the "Pay" hand-off, ``TownConfig.payment_url_template``); the
processor sends the Town a daily file of the payments it settled. Each processor names its columns its own
way, so the town configuration maps them (``TownConfig.processor_columns``: ``field=Header`` pairs for
account, amount, received_on and reference; ``processor_date_format``, a ``strftime`` pattern). The file is
translated, row for row (line numbers kept), into the lockbox file's columns with method ``ach`` and posted
by ``lockbox.payment_batch_post``: the same checks (all or nothing, by row and column), the same
duplicate-by-content rule (a payment already posted from any file or screen is skipped and named; a
cumulative file posts only its new rows), the same set-based posting.
"""
from __future__ import annotations

import csv
import io
from datetime import datetime

from stormwater.townconfig import town_config

from .lockbox import BATCH_COLUMNS, BatchRejected, BatchResult, payment_batch_post
from .models import PaymentMethod

FIELDS = BATCH_COLUMNS  # account, amount, received_on, reference


def processor_mapping() -> dict[str, str]:
    """{lockbox field: the processor file's header} from the town configuration."""
    out = {}
    for pair in town_config().processor_columns:
        field, _, header = pair.partition("=")
        out[field.strip()] = header.strip()
    return out


def processor_file_translate(content: bytes) -> bytes:
    """The processor's file as a lockbox CSV (BatchRejected naming the missing header or the bad row)."""
    cfg = town_config()
    mapping = processor_mapping()
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise BatchRejected(["file: not UTF-8 text (CSV expected)"]) from None
    reader = csv.DictReader(io.StringIO(text, newline=""))
    headers = [h.strip() for h in (reader.fieldnames or [])]
    missing = [f"{mapping[f]!r} (for {f})" for f in FIELDS if mapping.get(f) not in headers]
    if missing:
        raise BatchRejected([f"header: missing column(s) {', '.join(missing)} — the town configuration's "
                             f"processor_columns maps them; the file has {', '.join(headers) or 'no header'}"])
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([*FIELDS, "method"])
    errors = []
    for line, row in enumerate(reader, start=2):
        row = {(k or "").strip(): (v or "").strip() for k, v in row.items() if k is not None}
        raw_day = row.get(mapping["received_on"], "")
        try:
            day = datetime.strptime(raw_day, cfg.processor_date_format).date().isoformat()
        except ValueError:
            errors.append(f"row {line}: received_on: {raw_day!r} is not a date in the processor's format "
                          f"{cfg.processor_date_format!r} (column {mapping['received_on']!r})")
            day = ""
        amount = row.get(mapping["amount"], "").replace("$", "").replace(",", "")
        w.writerow([row.get(mapping["account"], ""), amount, day, row.get(mapping["reference"], ""),
                    PaymentMethod.ACH])
    if errors:
        raise BatchRejected(errors)
    return out.getvalue().encode()


def processor_file_post(*, filename: str, content: bytes, acting_user) -> BatchResult:
    """Post the processor's daily payment file (see the module's docstring)."""
    return payment_batch_post(filename=filename, content=processor_file_translate(content), acting_user=acting_user)
