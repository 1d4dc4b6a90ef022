"""The one import pipeline (issue 20): read → validate the whole file → dry run → apply all-or-nothing → record.

Every importer (assessor records, GIS layers, BMP inventory, plans, water/sewer accounts) uses these steps:

1. **read**: ``read_text`` detects the encoding (a BOM, else strict UTF-8, else Windows-1252/Latin-1, said so as a
   finding: a character is never replaced silently) and refuses what is not text at all, naming what the file
   looks like (a GeoPackage, a zip or Excel workbook, a PDF…); ``read_csv`` adds the rows with their row numbers and
   refuses a row with fewer or more fields than the header (a truncated or re-saved file).
2. **validate**: each importer checks types, ranges, required and mapped columns, row counts, geometry; every
   finding is a ``Problem`` naming the file (``layer``), the rows or features (``ids``, e.g. ``row 7 (LOT)``) and
   what was done. ``severity="error"`` stops the import.
3. **dry run**: the same code as the import, rolled back, listing every finding and the changes.
4. **apply**: ``refuse_on_errors`` first (raises ``ImportRefused`` before anything is written), then one
   ``transaction.atomic``.
5. **record**: ``stormwater.imports.services.import_record_create`` stores the file's checksum, the checksum of its
   content (so the same content re-saved with CRLF, a BOM or another encoding is recognised) and the results.

Imports no Django, so reading and validation can run anywhere (a job, the CLI, a test).
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from stormwater.gis.overlay import Problem

__all__ = ["Problem", "ImportRefused", "TextFile", "CsvTable", "read_text", "read_csv", "read_csv_bytes", "sniff",
           "cut_last_value",
           "file_checksum", "bytes_checksum",
           "content_checksum", "refuse_on_errors", "error", "MAX_TEXT_BYTES"]

# A text import larger than this is not an assessor, account or inventory file of a town of 16,000 people.
MAX_TEXT_BYTES = 200 * 1024 * 1024

# What a binary file looks like, from its first bytes (so "a GeoPackage named .csv" says so).
MAGIC = [
    (b"SQLite format 3\x00", "a GeoPackage or SQLite database"),
    (b"PK\x03\x04", "a zip archive or an Excel (.xlsx) workbook"),
    (b"%PDF", "a PDF document"),
    (b"\xd0\xcf\x11\xe0", "an old Excel (.xls) or Word document"),
    (b"\x89PNG", "a PNG image"),
    (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF8", "a GIF image"),
    (b"\x1f\x8b", "a gzip archive"),
]
ERR_BINARY = "{name}: this is {what}, not a text file; export the data as CSV (UTF-8) and import that"
ERR_EMPTY = "{name}: the file is empty (no rows to import)"
ERR_NO_ROWS = "{name}: the file has a header row and no data rows"
ERR_TOO_BIG = "{name}: {mb:,} MB is more than this importer reads ({limit:,} MB)"
ERR_SHORT_ROW = "rows with fewer fields than the header (a truncated or cut-off file?): nothing imported"
ERR_LONG_ROW = "rows with more fields than the header (a comma inside an unquoted value?): nothing imported"
ERR_BAD_QUOTE = "{name}: row {row}: {why} (an unterminated quote? the file may be truncated)"
ERR_DUP_HEADER = "{name}: the header names a column twice: {cols}"
ERR_CUT = ("{name}: row {row} ({column}): the file ends inside this value, {value!r}, without a final newline, and "
           "{why} — the file was cut off (a transfer stopped early?): nothing imported; ask for the complete file")


class ImportRefused(ValueError):
    """The file cannot be imported as it is: ``problems`` (each with severity "error") say why, nothing was written."""

    def __init__(self, source: str, problems: list[Problem]):
        self.source = source
        self.problems = problems
        lines = [p.summary() for p in problems if p.severity == "error"]
        super().__init__(f"{source}: not imported, nothing changed — " + "; ".join(lines))

    def json_detail(self) -> dict:
        """Every finding, for the JSON API's 400 (web.jsonapi.api_errors)."""
        return {"problems": [p.as_json() for p in self.problems]}


def error(code: str, source: str, message: str, ids: list[str] | None = None) -> Problem:
    return Problem(code, source, message, list(ids or []), severity="error")


def refuse_on_errors(source: str, problems: list[Problem]) -> None:
    """Raise ``ImportRefused`` if any finding is an error (call before the first write)."""
    if any(p.severity == "error" for p in problems):
        raise ImportRefused(source, problems)


def sniff(head: bytes) -> str | None:
    """What a binary file is, from its first bytes; None when it may be text."""
    for magic, what in MAGIC:
        if head.startswith(magic):
            return what
    if b"\x00" in head[:4096] and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "a binary file"
    return None


@dataclass
class TextFile:
    name: str
    text: str
    encoding: str
    problems: list[Problem]


def decode(data: bytes, name: str) -> tuple[str, str, list[Problem]]:
    """Bytes → text, the encoding's name, findings. A BOM decides; else strict UTF-8; else Windows-1252 (Excel's
    "CSV" on Windows), a superset of Latin-1 for letters; bytes it leaves undefined are read as Latin-1. Never
    a replacement character."""
    what = sniff(data[:8192])
    if what:
        raise ImportRefused(name, [error("not_text", name, ERR_BINARY.format(name=name, what=what))])
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="strict"), "UTF-8 with BOM", []
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16"), "UTF-16", []
    try:
        return data.decode("utf-8"), "UTF-8", []
    except UnicodeDecodeError as e:
        at = e.start
    try:
        text, enc = data.decode("cp1252"), "Windows-1252"
    except UnicodeDecodeError:
        text, enc = data.decode("latin-1"), "Latin-1 (ISO-8859-1)"
    line = data[:at].count(b"\n") + 1
    return text, enc, [Problem("encoding", name, f"not UTF-8 (first at line {line}): read as {enc}; check the "
                                                 "accented names on the changes list", [], severity="info")]


def read_text(path: str | Path, *, name: str | None = None) -> TextFile:
    p = Path(path)
    name = name or p.name
    _check_size(name, p.stat().st_size)
    text, enc, problems = decode(p.read_bytes(), name)
    return TextFile(name, text, enc, problems)


def _check_size(name: str, size: int) -> None:
    if size > MAX_TEXT_BYTES:
        raise ImportRefused(name, [error("too_big", name, ERR_TOO_BIG.format(name=name, mb=size // 2**20,
                                                                              limit=MAX_TEXT_BYTES // 2**20))])


@dataclass
class CsvTable:
    name: str
    columns: list[str]
    rows: list[dict[str, str]]   # values stripped; "" for an empty cell
    row_numbers: list[int]       # the file's line number of each row (the header is row 1)
    encoding: str
    problems: list[Problem]


def read_csv(path: str | Path, *, name: str | None = None, require_rows: bool = True) -> CsvTable:
    """A CSV (comma, semicolon, tab or bar; any line ending) → its columns and rows, every row the header's width.

    Refused (``ImportRefused``): binary content, an empty file, a header without rows, a repeated column name, an
    unterminated quote, and any row with fewer or more fields than the header — a cut-off last row must never
    import as a row with blank facts."""
    return parse_csv(read_text(path, name=name), require_rows=require_rows)


def read_csv_bytes(data: bytes, *, name: str, require_rows: bool = True) -> CsvTable:
    """``read_csv`` of a file received as bytes (an upload, a request body): the same checks and findings."""
    _check_size(name, len(data))
    text, enc, problems = decode(data, name)
    return parse_csv(TextFile(name, text, enc, problems), require_rows=require_rows)


def parse_csv(tf: TextFile, *, require_rows: bool = True) -> CsvTable:
    """The CSV reading of ``read_csv`` on text already decoded."""
    name = tf.name
    text = tf.text
    if not text.strip():
        raise ImportRefused(name, [error("empty", name, ERR_EMPTY.format(name=name))])
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text, newline=""), dialect=dialect, strict=True)
    rows, numbers, short, long_ = [], [], [], []
    try:
        header = [h.strip() for h in next(reader, [])]
        dups = sorted({h for h in header if h and header.count(h) > 1})
        if dups:
            raise ImportRefused(name, [error("duplicate_column", name, ERR_DUP_HEADER.format(name=name, cols=", ".join(dups)))])
        width = len(header)
        for fields in reader:
            n = reader.line_num
            if not any(f.strip() for f in fields):
                continue  # a blank line (Excel leaves them at the end)
            if len(fields) < width:
                short.append(f"row {n} ({len(fields)} of {width} fields)")
                continue
            if len(fields) > width:
                if any(f.strip() for f in fields[width:]):
                    long_.append(f"row {n} ({len(fields)} fields, the header has {width})")
                    continue
                fields = fields[:width]
            rows.append({h: v.strip() for h, v in zip(header, fields)})
            numbers.append(n)
    except csv.Error as e:
        raise ImportRefused(name, [error("bad_csv", name, ERR_BAD_QUOTE.format(name=name, row=reader.line_num, why=e))]) from None
    problems = list(tf.problems)
    if rows and not text.endswith(("\n", "\r")):
        cut = cut_last_value(header, rows, name=name, last_row=numbers[-1])
        if cut:
            problems.append(cut)
    if short:
        problems.append(error("short_row", name, ERR_SHORT_ROW, short))
    if long_:
        problems.append(error("long_row", name, ERR_LONG_ROW, long_))
    if require_rows and not rows and not short and not long_:
        problems.append(error("no_rows", name, ERR_NO_ROWS.format(name=name)))
    return CsvTable(name, header, rows, numbers, tf.encoding, problems)


def _shape(value: str) -> str:
    """A value's pattern: runs of letters → ``A``, runs of digits → ``9``, everything else as it is
    (``REL-1003`` → ``A-9``, ``125.00`` → ``9.9``, ``10/05/2026`` → ``9/9/9``)."""
    out = []
    for ch in value:
        c = "9" if ch.isdigit() else "A" if ch.isalpha() else ch
        if not (out and out[-1] == c and c in "9A"):
            out.append(c)
    return "".join(out)


def _places(value: str) -> int | None:
    """Digits after the decimal point of a plain number (``125.00`` → 2, ``12`` → 0), None if not a number."""
    v = value.replace("$", "").replace(",", "").strip()
    try:
        float(v)
    except ValueError:
        return None
    return len(v.split(".", 1)[1]) if "." in v else 0


def cut_last_value(columns: list[str], rows: list[dict[str, str]], *, name: str, last_row: int) -> Problem | None:
    """The one "this file was cut" check of every line-based reader (issue 26): call it when the file's last line
    has no newline. Only the last value of the last row can be cut inside (a cut anywhere before leaves the row
    short, refused as such), so that value is compared with the same column's values of the other rows (at
    least two): it is cut when it is empty and they are not, when it is shorter than every one of them (a
    number: fewer decimal places than all of them have), or when it does not have the pattern they all share
    (``REL-10`` for ``REL-1003`` among ``REL-1001, REL-1002``; ``W000`` for ``W000011``; ``C`` for a name).
    → an error ``Problem`` naming the file, the row and the column, or None."""
    if not columns or len(rows) < 3:
        return None
    column = columns[-1]
    value = rows[-1].get(column, "")
    others = [r.get(column, "") for r in rows[:-1]]
    filled = [v for v in others if v]
    if len(filled) < 2:
        return None
    why = None
    places = [_places(v) for v in filled]
    shapes = {_shape(v) for v in filled}
    if not value and len(filled) == len(others):
        why = "empty where every other row has a value"
    elif all(p is not None for p in places):  # a number column: amounts vary in length, not in their places
        mine = _places(value)
        if mine is None:
            why = "not a number where every other row has one"
        elif len(set(places)) == 1 and mine < places[0]:
            why = f"with {mine} decimal places where every other row has {places[0]}"
    elif len(value) < min(len(v) for v in filled):
        why = f"shorter than every other value of the column ({min(len(v) for v in filled)} characters or more)"
    elif len(shapes) == 1 and any(c == "9" for c in next(iter(shapes))) and _shape(value) not in shapes:
        # a code or a date (digits in its pattern); free text such as a payer's name has no one pattern
        why = f"not of the pattern every other value of the column has (like {filled[-1]!r})"
    if why is None:
        return None
    return error("cut_file", name, ERR_CUT.format(name=name, row=last_row, column=column, value=value, why=why),
                 [f"row {last_row} ({column})"])


def file_checksum(path: str | Path) -> str:
    """SHA-256 of the file's bytes (hex)."""
    h = hashlib.sha256()
    p = Path(path)
    if p.is_dir():  # a File Geodatabase folder: its files in name order
        for f in sorted(x for x in p.rglob("*") if x.is_file()):
            h.update(f.relative_to(p).as_posix().encode())
            h.update(f.read_bytes())
        return h.hexdigest()
    with p.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def bytes_checksum(data: bytes) -> str:
    """SHA-256 of bytes received (hex): ``file_checksum`` of an upload that was never a file."""
    return hashlib.sha256(data).hexdigest()


def content_checksum(content) -> str:
    """SHA-256 of what a file says, not how it is written: ``content`` (what the importer understood: records, rows)
    as canonical JSON. The same content re-saved with CRLF, a BOM or Latin-1 has the same content checksum."""
    return hashlib.sha256(json.dumps(content, sort_keys=True, default=str, separators=(",", ":")).encode()).hexdigest()
