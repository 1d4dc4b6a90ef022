"""Assessor records → parcel records: reading, field mapping, validation. Imports no Django.

Ch. 295 Art. IV ¶E: parcels "in single and separate ownership" are identified "from the records of
the Town Board of Assessors". A town's assessor file comes as CSV or Excel, or as the MassGIS
Level 3 standard (a table or the attributes of a parcel layer: GeoPackage, GeoJSON, FileGDB).

What the mapping step decides: which column is the parcel id, the address, the owner of record,
the owner's mailing address (several columns are joined, one per line), the land-use code, the
dwelling units and the lot size (and its unit: ft², acres, m²).

What validation reports (each with its ids, never a silent drop):
- rows with no parcel id (row numbers); not imported;
- land-use codes that are not DOR codes; imported as given, the fee engine will ask for a class;
- dwelling units missing or 0 on a 101/102/104/105 code: taken from the code (MassGIS ``UNITS``
  is 0 on most two- and three-family rows), and said so;
- several rows for one parcel id: condominium unit rows (DOR 102) are combined into their parcel
  (dwelling units = the number of unit rows; lot size and address from the master row); any other
  repeat keeps the row with the largest lot and lists the others as not imported.
"""
from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from pathlib import Path

from stormwater.rules.classes import ClassificationError, normalize_use_code

from .overlay import Problem

TARGETS = {
    "parcel_id": "Parcel id (map-block-lot / LOC_ID)",
    "address": "Property address",
    "owner_name": "Owner of record",
    "owner_address": "Owner mailing address (several columns are joined line by line)",
    "land_use_code": "Land-use code (DOR)",
    "dwelling_units": "Dwelling units",
    "lot_size": "Lot size",
}
REQUIRED = ("parcel_id", "address", "land_use_code")
LOT_UNITS = {"sqft": Decimal(1), "acres": Decimal(43560), "sqm": Decimal("10.76391041670972")}
# DOR codes whose dwelling-unit count the code itself says (101 one-family, 102 one condominium unit,
# 104 two-family, 105 three-family).
UNITS_BY_CODE = {"101": 1, "102": 1, "104": 2, "105": 3}
CONDO_UNIT_CODE = "102"

# Well-known schemas, offered as the default mapping when their columns are present.
PRESETS = {
    "MassGIS Level 3": {"parcel_id": ["LOC_ID"], "address": ["SITE_ADDR"], "owner_name": ["OWNER1"],
                        "owner_address": ["OWN_ADDR", "OWN_CITY", "OWN_STATE", "OWN_ZIP"],
                        "land_use_code": ["USE_CODE"], "dwelling_units": ["UNITS"], "lot_size": ["LOT_SIZE"],
                        "_lot_unit": "acres"},
    "Cambridge assessing": {"parcel_id": ["ML"], "address": ["Location"], "land_use_code": ["UseCode"],
                            "lot_size": ["LandArea"], "_lot_unit": "sqft"},
}

# A number's thousands separators (issue 26: "15589,5" is a decimal comma, not 155,895).
THOUSANDS = re.compile(r"[-+]?\d{1,3}(,\d{3})+(\.\d*)?")
ERR_UNREADABLE = "{name}: not a CSV, Excel (.xlsx) or GIS table this importer reads"
ERR_MISSING_TARGET = "map a column to {target}"


@dataclass
class AssessorRecord:
    parcel_id: str
    address: str
    owner_name: str
    owner_address: str
    land_use_code: str
    dwelling_units: int | None
    lot_sqft: Decimal | None
    rows: list[int] = field(default_factory=list)

    def as_json(self) -> dict:
        return {"parcel_id": self.parcel_id, "address": self.address, "owner_name": self.owner_name,
                "owner_address": self.owner_address, "land_use_code": self.land_use_code,
                "dwelling_units": self.dwelling_units,
                "lot_sqft": str(self.lot_sqft) if self.lot_sqft is not None else None, "rows": self.rows}

    @classmethod
    def from_json(cls, d: dict) -> AssessorRecord:
        return cls(d["parcel_id"], d["address"], d["owner_name"], d["owner_address"], d["land_use_code"],
                   d["dwelling_units"], Decimal(d["lot_sqft"]) if d.get("lot_sqft") is not None else None,
                   d.get("rows", []))


@dataclass
class Table:
    """What an assessor file holds: its columns, rows (values as text) with their row numbers, and what reading
    found (``problems``; errors such as a truncated row stop the import, stormwater.imports.pipeline)."""

    name: str
    columns: list[str]
    rows: list[dict[str, str]]
    row_numbers: list[int]
    problems: list[Problem] = field(default_factory=list)


ERR_XLSX = "{name}: not a readable Excel workbook ({why}); open it in Excel, save it again as .xlsx, and upload that"
ERR_SHEET = "{name}: no sheet named {sheet!r} (sheets: {sheets})"
MAX_MERGED_ROWS = 1_000_000  # rows covered by merged ranges, summed: past it the sheet is not an assessor table


def read_source(path: str, layer: str | None = None) -> Table:
    """Read an assessor file through the import pipeline: CSV (encoding detected, truncated rows found), Excel
    (.xlsx; header on the first row with any values, merged title rows above it skipped), or a GIS table.
    Raises ``ImportRefused`` (a ValueError) with the file's name when it cannot be read at all."""
    from stormwater.imports.pipeline import ImportRefused, error, read_csv, sniff

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in {".csv", ".txt"}:
        t = read_csv(p)
        return Table(t.name, t.columns, t.rows, t.row_numbers, t.problems)
    if suffix in {".xlsx", ".xlsm"}:
        return _read_xlsx(p, layer)
    try:
        with p.open("rb") as f:
            head = f.read(64) if p.is_file() else b""
        what = sniff(head)
        if what == "a PDF document" or (what and "image" in what):
            raise ValueError(f"this is {what}")
        import pyogrio

        df = pyogrio.read_dataframe(path, layer=layer, read_geometry=False)
    except Exception as e:  # noqa: BLE001 - any reader error becomes the one message the user can act on
        raise ImportRefused(p.name, [error("unreadable", p.name, ERR_UNREADABLE.format(name=p.name) + f" ({e})")]) from None
    cols = [str(c) for c in df.columns]
    rows = [{c: _text(v) for c, v in zip(cols, r)} for r in df.itertuples(index=False, name=None)]
    problems = [] if rows else [error("no_rows", p.name, f"{p.name}: the table has no rows")]
    return Table(p.name, cols, rows, list(range(2, len(rows) + 2)), problems)


def _merged_ranges(ws) -> list[tuple[int, int, int, int]]:
    """(min_col, min_row, max_col, max_row) of every merged range of a read-only sheet. openpyxl's read-only mode
    does not read them, so the sheet's XML is streamed for its ``<mergeCell ref="C1:E1"/>`` elements (openpyxl's
    own parser; a sheet without them costs one pass over its XML)."""
    from openpyxl.utils.cell import range_boundaries
    from openpyxl.xml.functions import iterparse

    out = []
    try:
        with ws._get_source() as src:
            for _, el in iterparse(src):
                if el.tag.endswith("}mergeCell") and el.get("ref"):
                    out.append(tuple(range_boundaries(el.get("ref"))))
                elif el.tag.endswith("}row"):
                    el.clear()  # rows are read by iter_rows; keep the memory flat
    except (AttributeError, KeyError, ValueError, TypeError):
        return []
    return [r for r in out if None not in r]


def _read_xlsx(p: Path, sheet: str | None) -> Table:
    """An .xlsx sheet → its table. Merged cells read as their value in every cell they cover (a merged owner over
    three condominium rows is each row's owner). Title rows above the header (one or two cells of a wide sheet)
    are skipped; a header over two or more rows joined by merged cells (``Owner`` over ``Name | Street | City``,
    ``Parcel id`` merged down over both rows) becomes one row of column names, each the parts above it joined
    (``Owner Name``, ``Parcel id``), said so as a finding. Two columns of one name refuse the sheet."""
    import zipfile

    import openpyxl

    from stormwater.imports.pipeline import ImportRefused, error

    try:
        wb = openpyxl.load_workbook(p, read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, TypeError) as e:
        raise ImportRefused(p.name, [error("unreadable", p.name, ERR_XLSX.format(name=p.name, why=e))]) from None
    except Exception as e:  # noqa: BLE001 - openpyxl raises many kinds on a damaged workbook
        raise ImportRefused(p.name, [error("unreadable", p.name, ERR_XLSX.format(name=p.name, why=type(e).__name__))]) from None
    try:
        if sheet and sheet not in wb.sheetnames:
            raise ImportRefused(p.name, [error("no_sheet", p.name, ERR_SHEET.format(name=p.name, sheet=sheet,
                                                                                   sheets=", ".join(wb.sheetnames)))])
        ws = wb[sheet] if sheet else wb.worksheets[0]
        merges = _merged_ranges(ws)
        covering: dict[int, list[tuple[int, int, int, int]]] = defaultdict(list)
        spans = sum(m[3] - m[1] + 1 for m in merges)
        if spans > MAX_MERGED_ROWS:  # an assessor sheet merges titles and a few cells, not a million rows
            raise ImportRefused(p.name, [error("unreadable", p.name, ERR_XLSX.format(
                name=p.name, why=f"{len(merges):,} merged ranges over {spans:,} rows"))])
        for m in merges:
            for row in range(m[1], m[3] + 1):
                covering[row].append(m)
        top_left: dict[tuple[int, int], object] = {}
        raw = []
        for n, r in enumerate(ws.iter_rows(values_only=True), start=1):
            if covering.get(n):
                r = list(r)
                for c0, r0, c1, r1 in covering[n]:
                    if n == r0 and c0 <= len(r):
                        top_left[(r0, c0)] = r[c0 - 1]
                    v = top_left.get((r0, c0))
                    r += [None] * max(0, c1 - len(r))
                    for c in range(c0, c1 + 1):
                        r[c - 1] = v
            if any(v not in (None, "") for v in r):
                raw.append((n, r))
    except ImportRefused:
        raise
    except Exception as e:  # noqa: BLE001 - a damaged sheet
        raise ImportRefused(p.name, [error("unreadable", p.name, ERR_XLSX.format(name=p.name, why=e))]) from None
    finally:
        wb.close()
    if not raw:
        raise ImportRefused(p.name, [error("empty", p.name, f"{p.name}: the sheet is empty (no rows to import)")])
    # Merged title rows above the header ("Town of …, FY2027 assessment") fill one or two cells of a wide sheet
    # (a merged title's value is in each cell it covers, so a row whose cells all hold one value is a title):
    # the header is the first row that fills at least half of the widest row with values of its own.
    def filled(r) -> int:
        return sum(v not in (None, "") for v in r)

    def own(r) -> int:
        vals = [v for v in r if v not in (None, "")]
        return filled(r) if len(set(map(str, vals))) > 1 else min(filled(r), 1)

    width = max(filled(r) for _, r in raw)
    start = next(i for i, (_, r) in enumerate(raw) if own(r) * 2 >= width)
    problems = []
    if start:
        problems.append(Problem("title_rows", p.name, "rows above the header skipped (titles or merged cells)",
                                [f"row {n}" for n, _ in raw[:start]], severity="info"))
    hn, _ = raw[start]
    # The header runs down as far as a merged cell starting in it does (merged down: "Parcel id" over two rows),
    # and one row further under a merged group label ("Owner" across three columns, its parts on the row below).
    end = hn
    for c0, r0, c1, r1 in merges:
        if r0 == hn:
            end = max(end, r1 if r1 > r0 else (r0 + 1 if c1 > c0 else r0))
    header_rows = [(n, r) for n, r in raw[start:] if n <= end]
    body = [(n, r) for n, r in raw[start:] if n > end]
    ncols = max(len(r) for _, r in header_rows)
    header = []
    for i in range(ncols):
        parts: list[str] = []
        for _, r in header_rows:
            v = str(r[i]).strip() if i < len(r) and r[i] not in (None, "") else ""
            if v and v not in parts:
                parts.append(v)
        header.append(" ".join(parts) or f"column {i + 1}")
    if len(header_rows) > 1:
        joined = [h for h in header if " " in h and h not in {str(v).strip() for _, r in header_rows for v in r if v}]
        problems.append(Problem("merged_header", p.name,
                                f"rows {hn}–{header_rows[-1][0]} are one header (merged cells): each column is named "
                                "by the parts above it, joined", joined or header, severity="info"))
    dups = sorted({h for h in header if header.count(h) > 1})
    if dups:
        raise ImportRefused(p.name, [error("duplicate_column", p.name,
                                           f"{p.name}: the header names a column twice: {', '.join(dups)}")])
    rows, numbers = [], []
    for n, r in body:
        rows.append({h: _text(v) for h, v in zip(header, r)})
        numbers.append(n)
    if not rows:
        problems.append(error("no_rows", p.name, f"{p.name}: the sheet has a header row and no data rows"))
    return Table(p.name, header, rows, numbers, problems)


def read_table(path: str, layer: str | None = None) -> tuple[list[str], list[dict[str, str]]]:
    """Columns and rows (all values as text) of a CSV, an .xlsx, or a GIS layer's attributes; a file with errors
    (truncated, empty) is refused (``ImportRefused``)."""
    from stormwater.imports.pipeline import refuse_on_errors

    t = read_source(path, layer)
    refuse_on_errors(t.name, t.problems)
    return t.columns, t.rows


def _text(v) -> str:
    if v is None:
        return ""
    if isinstance(v, float):
        if v != v:  # NaN
            return ""
        return str(int(v)) if v.is_integer() else repr(v)
    return str(v).strip()


def guess_mapping(columns: list[str]) -> dict:
    """The preset whose columns are all present, else an empty mapping."""
    have = set(columns)
    for name, preset in PRESETS.items():
        needed = [c for k, cols in preset.items() if not k.startswith("_") for c in cols]
        if all(c in have for c in needed):
            return {"_preset": name, **preset}
    return {}


def _int(text: str) -> int | None:
    try:
        d = Decimal(text.replace(",", ""))
        return int(d) if d.is_finite() and d == d.to_integral_value() else None
    except (InvalidOperation, ValueError):
        return None


def _dec(text: str) -> Decimal | None:
    try:
        d = Decimal(text.replace(",", "")) if text else None
    except InvalidOperation:
        return None
    return d if d is None or d.is_finite() else None


def map_rows(rows: list[dict[str, str]], mapping: dict, *, columns: list[str] | None = None,
             row_numbers: list[int] | None = None, source: str = "assessor", max_lot_sqft: Decimal | None = None,
             max_units: int | None = None) -> tuple[list[AssessorRecord], list[Problem]]:
    """Apply the field mapping and validate the whole file. ``mapping``: target → [columns], ``_lot_unit``.

    Errors (severity "error": the import is refused, stormwater.imports.pipeline), each naming the row and column:
    a mapped column the file does not have; dwelling units that are not a whole number, negative or over
    ``max_units``; a lot size that is not a finite number, negative or over ``max_lot_sqft`` (town configuration
    ``import_max_*``). A blank cell is a fact the file does not carry: the import leaves the parcel's as it is."""
    problems: list[Problem] = []
    for t in REQUIRED:
        if not mapping.get(t):
            raise ValueError(ERR_MISSING_TARGET.format(target=TARGETS[t]))
    if columns is not None:
        have = set(columns)
        missing = [f"{c} ({t})" for t in TARGETS for c in mapping.get(t) or [] if c not in have]
        if missing:
            problems.append(Problem("missing_column", source, "columns mapped but not in the file (a different export? "
                                    "map the file's own columns): nothing imported", missing, severity="error"))
            return [], problems
    unit = LOT_UNITS[mapping.get("_lot_unit") or "sqft"]
    numbers = row_numbers or list(range(2, len(rows) + 2))  # row 1 is the header

    def get(row: dict, target: str, sep: str = " ") -> str:
        return sep.join(v for v in (row.get(c, "").strip() for c in mapping.get(target) or []) if v)

    def col(target: str) -> str:
        return ",".join(mapping.get(target) or [])

    no_id, bad_code, units_from_code, bad_units, bad_lot, comma_lot = [], [], [], [], [], []
    by_id: dict[str, list[tuple[int, AssessorRecord]]] = defaultdict(list)
    for n, row in zip(numbers, rows):
        pid = get(row, "parcel_id")
        if not pid:
            no_id.append(f"row {n}")
            continue
        raw_code = get(row, "land_use_code")
        try:
            code = normalize_use_code(raw_code)
        except ClassificationError:
            code = raw_code[:8]
            bad_code.append(f"{pid} ({raw_code or 'blank'})")
        units_text = get(row, "dwelling_units")
        units = _int(units_text) if units_text else None
        if units_text and (units is None or units < 0 or (max_units is not None and units > max_units)):
            bad_units.append(f"row {n} ({col('dwelling_units')}): {units_text}")
            units = None
        if (units is None or units == 0) and code in UNITS_BY_CODE:
            units_from_code.append(pid)
            units = UNITS_BY_CODE[code]
        lot_text = get(row, "lot_size")
        if "," in lot_text and not THOUSANDS.fullmatch(lot_text):
            comma_lot.append(f"row {n} ({col('lot_size')}): {lot_text}")
            lot_text = ""
        lot = _dec(lot_text)
        lot_sqft = (lot * unit).quantize(Decimal("0.01")) if lot is not None and abs(lot) < Decimal("1e12") else None
        if lot_text and (lot_sqft is None or lot_sqft < 0 or (max_lot_sqft is not None and lot_sqft > max_lot_sqft)):
            bad_lot.append(f"row {n} ({col('lot_size')}): {lot_text}")
            lot_sqft = None
        rec = AssessorRecord(pid, get(row, "address"), get(row, "owner_name"), get(row, "owner_address", "\n"),
                             code, units, lot_sqft, [n])
        by_id[pid].append((n, rec))
    if no_id:
        problems.append(Problem("missing_id", source, "rows with no parcel id: not imported", no_id))
    if bad_code:
        problems.append(Problem("bad_use_code", source,
                                "land-use codes that are not DOR codes: imported as given (a blank one leaves the "
                                "parcel's as it is); the class must be set by staff", bad_code))
    if units_from_code:
        problems.append(Problem("units_from_use_code", source,
                                "dwelling units missing or 0: taken from the land-use code "
                                "(101/102 → 1, 104 → 2, 105 → 3)", units_from_code, severity="info"))
    if bad_units:
        problems.append(Problem("bad_units", source, "dwelling units that are not a whole number from 0 to "
                                f"{max_units if max_units is not None else 'the limit'} (town configuration "
                                "import_max_dwelling_units): nothing imported", bad_units, severity="error"))
    if bad_lot:
        problems.append(Problem("bad_lot_size", source, "lot sizes that are not a number from 0 to the town's limit "
                                "(import_max_lot_acres): nothing imported", bad_lot, severity="error"))
    if comma_lot:
        problems.append(Problem("decimal_comma", source, "lot sizes with a comma that is not a thousands separator (a "
                                "decimal comma? 15589,5 would read as 155,895): write the decimal point; nothing "
                                "imported", comma_lot, severity="error"))
    records, condos, dropped = [], [], []
    for pid, group in by_id.items():
        if len(group) == 1:
            records.append(group[0][1])
            continue
        recs = [r for _, r in group]
        unit_rows = [r for r in recs if r.land_use_code == CONDO_UNIT_CODE]
        master = max(recs, key=lambda r: (r.land_use_code != CONDO_UNIT_CODE, r.lot_sqft or 0))
        if unit_rows:
            condos.append(f"{pid} ({len(unit_rows)} units)")
            records.append(AssessorRecord(pid, master.address, master.owner_name, master.owner_address,
                                          CONDO_UNIT_CODE, len(unit_rows), max((r.lot_sqft or 0) for r in recs) or None,
                                          [n for n, _ in group]))
        else:
            keep = max(recs, key=lambda r: r.lot_sqft or 0)
            dropped.append(f"{pid}: kept row {keep.rows[0]}, not imported rows "
                           + ", ".join(str(r.rows[0]) for r in recs if r is not keep))
            records.append(keep)
    if condos:
        problems.append(Problem("condominium_combined", "assessor",
                                "condominium unit rows (DOR 102) combined into their parcel; dwelling units = "
                                "the number of unit rows", condos, severity="info"))
    if dropped:
        problems.append(Problem("duplicate_id", "assessor",
                                "several rows share a parcel id: the row with the largest lot is kept", dropped))
    return records, problems
