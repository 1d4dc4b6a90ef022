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


def read_table(path: str, layer: str | None = None) -> tuple[list[str], list[dict[str, str]]]:
    """Columns and rows (all values as text) of a CSV, an .xlsx, or a GIS layer's attributes."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix in {".csv", ".txt"}:
        raw = p.read_bytes().decode("utf-8-sig", errors="replace")
        try:
            dialect = csv.Sniffer().sniff(raw[:4096], delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel
        reader = csv.DictReader(io.StringIO(raw), dialect=dialect)
        rows = [{k: (v or "").strip() for k, v in r.items() if k is not None} for r in reader]
        return list(reader.fieldnames or []), rows
    if suffix in {".xlsx", ".xlsm"}:
        import openpyxl

        wb = openpyxl.load_workbook(p, read_only=True, data_only=True)
        ws = wb[layer] if layer else wb.worksheets[0]
        it = ws.iter_rows(values_only=True)
        header = [str(h).strip() if h is not None else f"column {i + 1}" for i, h in enumerate(next(it, []))]
        rows = [{h: _text(v) for h, v in zip(header, r)} for r in it if any(v is not None for v in r)]
        return header, rows
    try:
        import pyogrio

        df = pyogrio.read_dataframe(path, layer=layer, read_geometry=False)
    except Exception as e:  # noqa: BLE001 - any reader error becomes the one message the user can act on
        raise ValueError(ERR_UNREADABLE.format(name=p.name) + f" ({e})") from None
    cols = [str(c) for c in df.columns]
    return cols, [{c: _text(v) for c, v in zip(cols, r)} for r in df.itertuples(index=False, name=None)]


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
        return int(Decimal(text))
    except (InvalidOperation, ValueError):
        return None


def _dec(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", "")) if text else None
    except InvalidOperation:
        return None


def map_rows(rows: list[dict[str, str]], mapping: dict) -> tuple[list[AssessorRecord], list[Problem]]:
    """Apply the field mapping and validate. ``mapping``: target → [columns], ``_lot_unit``."""
    problems: list[Problem] = []
    for t in REQUIRED:
        if not mapping.get(t):
            raise ValueError(ERR_MISSING_TARGET.format(target=TARGETS[t]))
    unit = LOT_UNITS[mapping.get("_lot_unit") or "sqft"]

    def get(row: dict, target: str, sep: str = " ") -> str:
        return sep.join(v for v in (row.get(c, "").strip() for c in mapping.get(target) or []) if v)

    no_id, bad_code, units_from_code, bad_units, bad_lot = [], [], [], [], []
    by_id: dict[str, list[tuple[int, AssessorRecord]]] = defaultdict(list)
    for n, row in enumerate(rows, start=2):  # row 1 is the header
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
        if units_text and units is None:
            bad_units.append(f"{pid} ({units_text})")
        if (units is None or units == 0) and code in UNITS_BY_CODE:
            units_from_code.append(pid)
            units = UNITS_BY_CODE[code]
        lot_text = get(row, "lot_size")
        lot = _dec(lot_text)
        if lot_text and lot is None:
            bad_lot.append(f"{pid} ({lot_text})")
        lot_sqft = (lot * unit).quantize(Decimal("0.01")) if lot is not None else None
        rec = AssessorRecord(pid, get(row, "address"), get(row, "owner_name"), get(row, "owner_address", "\n"),
                             code, units, lot_sqft, [n])
        by_id[pid].append((n, rec))
    if no_id:
        problems.append(Problem("missing_id", "assessor", "rows with no parcel id: not imported", no_id))
    if bad_code:
        problems.append(Problem("bad_use_code", "assessor",
                                "land-use codes that are not DOR codes: imported as given; the class must be set "
                                "by staff", bad_code))
    if units_from_code:
        problems.append(Problem("units_from_use_code", "assessor",
                                "dwelling units missing or 0: taken from the land-use code "
                                "(101/102 → 1, 104 → 2, 105 → 3)", units_from_code, severity="info"))
    if bad_units:
        problems.append(Problem("bad_units", "assessor", "dwelling units that are not a number: left unknown",
                                bad_units))
    if bad_lot:
        problems.append(Problem("bad_lot_size", "assessor", "lot sizes that are not a number: left blank", bad_lot))
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
