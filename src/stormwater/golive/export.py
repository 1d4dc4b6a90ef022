"""Reading the old system's export of open bills and its control totals (issue 32): the pipeline's read and
validate steps, no Django (``stormwater.imports.pipeline``; CSV or Excel through ``gis.assessor.read_source``).

The export: one row per open bill or installment (and per credit balance), columns found by name (case-insensitive,
the aliases below) or mapped ``target=COLUMN`` as the assessor importer maps them:

    account, parcel_id, bill_number, installment, fiscal_year, issue_date, due_date, principal, interest,
    demand_charge, demand_date, lien_amount, lien_date, lien_tax_year, credit_balance

What each means (docs/golive.md):
- ``principal``, ``interest``, ``demand_charge``: what the installment carries in the old system — for one committed
  to the tax lien, what was committed; ``interest`` is accrued to the cut-over date (to the lien date if committed).
- ``lien_amount``/``lien_date``: committed to the tax bill (billing ¶D): the whole of principal + interest + demand.
- ``credit_balance``: the account's credit balance (an overpayment held), on a row of its own or on a bill row.

Refused, by row and field (``Problem`` ids ``row 7 (due_date): …``): a missing column; a blank account; money that is
not a number of dollars and cents or is negative; a date that is not a date; dates out of order (due before issue,
anything after the cut-over, a demand before interest starts, a commitment before the owner's 14 days after the
demand have run — Ch. 295 Art. IV billing ¶C–¶D, MGL c.4 §9); interest on an installment not yet due; a demand
charge without its date or a date without a charge; a lien without a demand, or whose amount is not principal +
interest + demand charge; the same bill and installment twice; one bill on two accounts or fiscal years; an account
given two different credit balances. The control totals: fiscal year (blank for credits carried by no fiscal year)
and principal, interest, demand, liens, credits, accounts.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path

from stormwater.imports.pipeline import Problem, error
from stormwater.rules.deadlines import deadline
from stormwater.rules.interest import interest_start
from stormwater.rules.money import ZERO

TARGETS = {
    "account": ("account", "account_number", "acct", "account_no"),
    "parcel_id": ("parcel_id", "parcel", "map_block_lot", "mbl", "loc_id"),
    "bill_number": ("bill_number", "bill", "bill_no", "billno"),
    "installment": ("installment", "inst", "installment_number", "seq"),
    "fiscal_year": ("fiscal_year", "fy", "year"),
    "issue_date": ("issue_date", "issued", "bill_date"),
    "due_date": ("due_date", "due"),
    "principal": ("principal", "principal_due", "charge"),
    "interest": ("interest", "interest_due", "interest_accrued"),
    "demand_charge": ("demand_charge", "demand_fee", "demand"),
    "demand_date": ("demand_date", "demand_mailed", "demand_served"),
    "lien_amount": ("lien_amount", "committed", "lien", "committed_amount"),
    "lien_date": ("lien_date", "committed_on", "commitment_date"),
    "lien_tax_year": ("lien_tax_year", "tax_year"),
    "credit_balance": ("credit_balance", "credit", "overpayment"),
}
MONEY_TARGETS = ("principal", "interest", "demand_charge", "lien_amount", "credit_balance")
DATE_TARGETS = ("issue_date", "due_date", "demand_date", "lien_date")
BILL_REQUIRED = ("fiscal_year", "issue_date", "due_date", "principal")
CONTROL_COLUMNS = ("fiscal_year", "principal", "interest", "demand", "liens", "credits", "accounts")
BUCKETS = ("principal", "interest", "demand", "liens", "credits", "accounts")
MAX_MONEY = Decimal("999999999.99")  # one stormwater bill of a town: far below the ledger's column


@dataclass
class OldRow:
    """One row of the export, validated."""

    row: int
    account: str
    parcel_id: str
    bill_number: str
    installment: int
    fiscal_year: int | None
    issue_date: date | None
    due_date: date | None
    principal: Decimal = ZERO
    interest: Decimal = ZERO
    demand_charge: Decimal = ZERO
    demand_date: date | None = None
    lien_amount: Decimal = ZERO
    lien_date: date | None = None
    lien_tax_year: int | None = None
    credit_balance: Decimal = ZERO

    @property
    def is_bill(self) -> bool:
        return bool(self.bill_number)

    @property
    def key(self) -> str:
        """The old bill number and installment: what makes the conversion idempotent."""
        return f"{self.bill_number}#{self.installment}"

    @property
    def outstanding(self) -> Decimal:
        return self.principal + self.interest + self.demand_charge - self.lien_amount

    def facts(self) -> dict:
        """What the row says (compared on a re-run; stored with the converted bill)."""
        return {k: (str(v) if v is not None else None) for k, v in (
            ("account", self.account), ("parcel_id", self.parcel_id), ("fiscal_year", self.fiscal_year),
            ("issue_date", self.issue_date), ("due_date", self.due_date), ("principal", self.principal),
            ("interest", self.interest), ("demand_charge", self.demand_charge), ("demand_date", self.demand_date),
            ("lien_amount", self.lien_amount), ("lien_date", self.lien_date), ("lien_tax_year", self.lien_tax_year))}


@dataclass
class Export:
    name: str
    rows: list[OldRow]
    credits: dict[str, tuple[int, Decimal, int | None, str]]  # account key → (row, amount, fiscal year, parcel id)
    problems: list[Problem] = field(default_factory=list)
    mapping: dict[str, str] = field(default_factory=dict)


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


REFUSED = object()  # row_status's answer for a status refused


def row_status(get, refuse, *, known: dict, not_converted, why_not_converted: str, why_unknown: str):
    """A case row's status (``known``: normalized name → status; None when the row gives none), or ``REFUSED`` after
    refusing (``refuse(column, why)``) a status the conversion leaves to its page or does not know."""
    s = _norm(get("status"))
    if s in not_converted:
        refuse("status", f"{get('status')!r}: {why_not_converted}")
        return REFUSED
    if get("status") and s not in known:
        refuse("status", f"{get('status')!r} {why_unknown}")
        return REFUSED
    return known.get(s)


def resolve_columns(columns: list[str], mapping: dict[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """target → the file's column: ``mapping`` first (``target=COLUMN``), else by name or alias. → (map, errors)."""
    low = {_norm(c): c for c in columns}
    out, errs = {}, []
    for target, col in (mapping or {}).items():
        if target not in TARGETS:
            errs.append(f"--map {target}: not a column this importer knows (one of {', '.join(TARGETS)})")
        elif col not in columns:
            errs.append(f"{col} ({target}): mapped but not in the file")
        else:
            out[target] = col
    for target, aliases in TARGETS.items():
        if target not in out:
            hit = next((low[a] for a in aliases if a in low), None)
            if hit and hit not in out.values():
                out[target] = hit
    return out, errs


def parse_money(text: str) -> Decimal | None:
    """'$1,234.50' → Decimal('1234.50'); blank → 0; None when it is not dollars and cents."""
    t = text.strip().replace("$", "").replace(",", "")
    if not t:
        return ZERO
    if t.startswith("(") and t.endswith(")"):  # accountants' negative
        t = "-" + t[1:-1]
    try:
        d = Decimal(t)
    except InvalidOperation:
        return None
    if not d.is_finite() or d != d.quantize(Decimal("0.01")):
        return None  # not a number, or fractions of a cent
    return d.quantize(Decimal("0.01"))


def parse_date(text: str) -> date | None:
    """ISO (2026-09-10), US (9/10/2026) or an Excel date-time ('2026-09-10 00:00:00'); None when none of them."""
    t = text.strip()
    for fmt in ("%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"):
        try:
            return datetime.strptime(t, fmt).date()
        except ValueError:
            continue
    return None


def _parse_year(text: str) -> int | None:
    t = text.strip().upper().removeprefix("FY").strip()
    if t.isdigit() and len(t) in (2, 4):
        y = int(t)
        y = 2000 + y if y < 100 else y
        return y if 1990 <= y <= 2200 else None
    return None


def commitment_first_day(demand_date: date) -> date:
    """The first day a demand mailed on ``demand_date`` may be committed (billing ¶D; MGL c.4 §9)."""
    return deadline("demand_to_commitment", demand_date).due


def validate_rows(name: str, columns: list[str], rows: list[dict[str, str]], numbers: list[int], *, as_of: date,
                  mapping: dict[str, str] | None = None) -> Export:
    """Validate the whole export (no database): every finding names the row and field."""
    cols, errs = resolve_columns(columns, mapping)
    problems: list[Problem] = []
    if errs:
        problems.append(error("missing_column", name, "columns mapped but not in the file: nothing converted", errs))
    missing = [t for t in ("bill_number", *BILL_REQUIRED) if t not in cols]
    if "account" not in cols and "parcel_id" not in cols:
        missing.insert(0, "account (or parcel_id)")
    if missing:
        problems.append(error("missing_column", name, f"the file has no column for {', '.join(missing)} (its columns: "
                              f"{', '.join(columns) or 'none'}); name them or map them (target=COLUMN)"))
        return Export(name, [], {}, problems, cols)
    bad: dict[str, list[str]] = {}

    def refuse(code: str, n: int, fld: str, why: str) -> None:
        bad.setdefault(code, []).append(f"row {n} ({fld}): {why}")

    out: list[OldRow] = []
    credits: dict[str, tuple[int, Decimal, int | None, str]] = {}
    seen: dict[str, int] = {}
    bills: dict[str, tuple[int, str, int | None]] = {}
    for n, raw in zip(numbers, rows):
        get = lambda t: raw.get(cols[t], "").strip() if t in cols else ""  # noqa: E731
        account, pid = get("account"), get("parcel_id")
        if not account and not pid:
            refuse("missing_account", n, cols.get("account") or cols["parcel_id"], "blank")
            continue
        vals: dict = {}
        ok = True
        for t in MONEY_TARGETS:
            v = parse_money(get(t))
            if v is None:
                refuse("bad_money", n, cols[t], f"{get(t)!r} is not an amount in dollars and cents")
                ok = False
            elif v < 0:
                refuse("bad_money", n, cols[t], f"{get(t)} is negative (a credit goes in credit_balance)")
                ok = False
            elif v > MAX_MONEY:
                refuse("bad_money", n, cols[t], f"{get(t)} is not a plausible stormwater amount")
                ok = False
            vals[t] = v
        for t in DATE_TARGETS:
            text = get(t)
            vals[t] = parse_date(text) if text else None
            if text and vals[t] is None:
                refuse("bad_date", n, cols[t], f"{text!r} is not a date (YYYY-MM-DD or MM/DD/YYYY)")
                ok = False
        fy = _parse_year(get("fiscal_year")) if get("fiscal_year") else None
        if get("fiscal_year") and fy is None:
            refuse("bad_value", n, cols["fiscal_year"], f"{get('fiscal_year')!r} is not a fiscal year")
            ok = False
        ty = _parse_year(get("lien_tax_year")) if get("lien_tax_year") else None
        if get("lien_tax_year") and ty is None:
            refuse("bad_value", n, cols["lien_tax_year"], f"{get('lien_tax_year')!r} is not a fiscal year")
            ok = False
        inst_text = get("installment") or "1"
        if not inst_text.isdigit() or not 1 <= int(inst_text) <= 12:
            refuse("bad_value", n, cols.get("installment", "installment"), f"{inst_text!r} is not an installment 1–12")
            ok = False
        if not ok:
            continue
        r = OldRow(n, account, pid, get("bill_number"), int(inst_text), fy, vals["issue_date"], vals["due_date"],
                   **{t: vals[t] for t in MONEY_TARGETS}, demand_date=vals["demand_date"], lien_date=vals["lien_date"],
                   lien_tax_year=ty)
        who = account or f"parcel {pid}"
        if r.credit_balance > 0:
            prior = credits.get(who)
            if prior and prior[1] != r.credit_balance:
                refuse("conflicting_credit", n, cols["credit_balance"], f"{who} has {r.credit_balance} here and "
                       f"{prior[1]} on row {prior[0]} (an account's credit balance is given once)")
                continue
            credits.setdefault(who, (n, r.credit_balance, fy, pid))
        if not r.is_bill:
            if r.credit_balance <= 0:
                refuse("missing_value", n, cols["bill_number"], "no bill number and no credit balance: nothing to "
                       "convert")
            elif any((r.principal, r.interest, r.demand_charge, r.lien_amount)):
                refuse("missing_value", n, cols["bill_number"], "amounts owed without a bill number")
            continue
        if not _check_bill(r, cols, as_of, refuse):
            continue
        if r.key in seen:
            refuse("duplicate_row", n, cols["bill_number"], f"bill {r.bill_number} installment {r.installment} is "
                   f"also on row {seen[r.key]}")
            continue
        seen[r.key] = n
        first = bills.setdefault(r.bill_number, (n, who, fy))
        if first[1:] != (who, fy):
            refuse("conflicting_bill", n, cols["bill_number"], f"bill {r.bill_number} is {who} FY{fy} here and "
                   f"{first[1]} FY{first[2]} on row {first[0]}")
            continue
        out.append(r)
    messages = {
        "missing_account": "rows with no account or parcel id",
        "bad_money": "amounts that are not dollars and cents of zero or more",
        "bad_date": "dates that cannot be read",
        "bad_value": "values that cannot be read",
        "missing_value": "rows with nothing to convert or a value missing",
        "dates_out_of_order": "dates out of order (Ch. 295 Art. IV billing ¶B–¶D; MGL c.4 §9)",
        "totals_disagree": "amounts that do not add up",
        "duplicate_row": "the same bill and installment twice",
        "conflicting_bill": "one bill on two accounts or fiscal years",
        "conflicting_credit": "an account given two credit balances",
    }
    for code, ids in bad.items():
        problems.append(error(code, name, messages[code] + ": nothing converted", ids))
    return Export(name, out, credits, problems, cols)


def _check_bill(r: OldRow, cols: dict[str, str], as_of: date, refuse) -> bool:
    """The rules a converted installment's dates and amounts must keep (billing ¶B–¶D). False: refused."""
    n = r.row
    errors: list[tuple[str, str, str]] = []
    for t in BILL_REQUIRED:
        if getattr(r, t) in (None, ""):
            errors.append(("missing_value", cols.get(t, t), "required on a bill row"))
    if errors:
        for e in errors:
            refuse(e[0], n, e[1], e[2])
        return False
    if r.due_date < r.issue_date:
        errors.append(("dates_out_of_order", cols["due_date"], f"{r.due_date} is before the issue date {r.issue_date}"))
    if r.issue_date > as_of:
        errors.append(("dates_out_of_order", cols["issue_date"], f"{r.issue_date} is after the cut-over {as_of}"))
    if r.principal + r.interest + r.demand_charge <= 0:
        errors.append(("missing_value", cols["principal"], "nothing owed on this installment: leave it out"))
    if r.interest > 0 and interest_start(r.due_date) > (r.lien_date or as_of):
        errors.append(("dates_out_of_order", cols.get("interest", "interest"),
                       f"{r.interest} of interest on an installment due {r.due_date}: interest starts "
                       f"{interest_start(r.due_date)} (billing ¶C)"))
    if (r.demand_charge > 0) != (r.demand_date is not None):
        fld = cols.get("demand_date", "demand_date") if r.demand_charge > 0 else cols.get("demand_charge",
                                                                                          "demand_charge")
        errors.append(("missing_value", fld, "a demand charge and its date go together"))
    if r.demand_date:
        if r.demand_date > as_of:
            errors.append(("dates_out_of_order", cols["demand_date"], f"{r.demand_date} is after the cut-over {as_of}"))
        elif r.demand_date < interest_start(r.due_date):
            errors.append(("dates_out_of_order", cols["demand_date"], f"{r.demand_date}: no demand before interest "
                           f"accrues ({interest_start(r.due_date)}; billing ¶D)"))
    if (r.lien_amount > 0) != (r.lien_date is not None):
        fld = cols.get("lien_date", "lien_date") if r.lien_amount > 0 else cols.get("lien_amount", "lien_amount")
        errors.append(("missing_value", fld, "a lien amount and its date go together"))
    if r.lien_date:
        if r.demand_date is None:
            errors.append(("dates_out_of_order", cols["lien_date"], "committed without a demand (billing ¶D)"))
        elif r.lien_date > as_of:
            errors.append(("dates_out_of_order", cols["lien_date"], f"{r.lien_date} is after the cut-over {as_of}"))
        elif r.lien_date < commitment_first_day(r.demand_date):
            errors.append(("dates_out_of_order", cols["lien_date"], f"{r.lien_date}: the demand mailed "
                           f"{r.demand_date} may be committed from {commitment_first_day(r.demand_date)} (billing ¶D)"))
        whole = r.principal + r.interest + r.demand_charge
        if r.lien_amount != whole:
            errors.append(("totals_disagree", cols["lien_amount"], f"{r.lien_amount} is not principal + interest + "
                           f"demand charge ({whole}): a commitment takes the whole amount due"))
    for e in errors:
        refuse(e[0], n, e[1], e[2])
    return not errors


def read_export(path: str | Path, *, as_of: date, mapping: dict[str, str] | None = None,
                name: str | None = None) -> Export:
    """Read (CSV or .xlsx, through the pipeline) and validate the old system's export."""
    from stormwater.gis.assessor import read_source

    t = read_source(str(path))
    ex = validate_rows(name or t.name, t.columns, t.rows, t.row_numbers, as_of=as_of, mapping=mapping)
    ex.problems[:0] = list(t.problems)
    return ex


@dataclass
class ControlTotals:
    name: str
    by_year: dict[str, dict[str, Decimal | int]]   # "FY2026" or "" (no fiscal year) → bucket → amount
    problems: list[Problem] = field(default_factory=list)


def fy_key(fy: int | None) -> str:
    return f"FY{fy}" if fy else ""


def read_control(path: str | Path, *, name: str | None = None) -> ControlTotals:
    """The old system's control totals: one row per fiscal year (blank: credits carried by none)."""
    from stormwater.gis.assessor import read_source

    t = read_source(str(path))
    name = name or t.name
    problems = list(t.problems)
    low = {_norm(c): c for c in t.columns}
    missing = [c for c in CONTROL_COLUMNS if c not in low]
    if missing:
        problems.append(error("missing_column", name, f"the control totals have no column {', '.join(missing)} "
                              f"(columns: {', '.join(CONTROL_COLUMNS)})"))
        return ControlTotals(name, {}, problems)
    out: dict[str, dict] = {}
    bad = []
    for n, raw in zip(t.row_numbers, t.rows):
        fy_text = raw[low["fiscal_year"]].strip()
        fy = _parse_year(fy_text) if fy_text and fy_text.lower() not in ("none", "-", "—") else None
        if fy_text and fy is None and fy_text.lower() not in ("none", "-", "—"):
            if fy_text.lower() in ("total", "totals", "all"):
                continue  # the report's own grand total: the sum of the rows above
            bad.append(f"row {n} (fiscal_year): {fy_text!r}")
            continue
        rec: dict = {}
        for b in BUCKETS:
            text = raw[low[b]].strip()
            if b == "accounts":
                rec[b] = int(text) if text.isdigit() else None
            else:
                rec[b] = parse_money(text)
            if rec[b] is None:
                bad.append(f"row {n} ({b}): {text!r}")
        key = fy_key(fy)
        if key in out:
            bad.append(f"row {n} (fiscal_year): {key or 'no fiscal year'} twice")
        out[key] = rec
    if bad:
        problems.append(error("bad_value", name, "control totals that cannot be read: nothing converted", bad))
    return ControlTotals(name, out, problems)
