"""Writing a job's downloadable file row by row (CSV; Excel in write-only mode, a new sheet before Excel's
1,048,576-row limit) so a 1,000,000-row export never sits whole in memory."""
from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Sequence
from decimal import Decimal
from pathlib import Path

EXCEL_MAX_ROWS = 1_048_576  # rows per worksheet, the header included (Excel's limit)


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Sequence], *,
              each: Callable[[int], None] = lambda n: None) -> int:
    n = 0
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for n, row in enumerate(rows, 1):
            w.writerow(row)
            each(n)
    return n


def write_xlsx(path: Path, sheet: str, columns: Sequence[str], rows: Iterable[Sequence],
               money_columns: frozenset[str] = frozenset(), *, each: Callable[[int], None] = lambda n: None,
               max_rows: int = EXCEL_MAX_ROWS) -> int:
    """Money cells (strings like "12.34") become numbers; past ``max_rows`` a sheet "<name> (2)" starts."""
    from openpyxl import Workbook

    wb = Workbook(write_only=True)
    money = [c in money_columns for c in columns]
    ws, in_sheet, sheets, n = None, max_rows, 0, 0
    for n, row in enumerate(rows, 1):
        if in_sheet >= max_rows:
            sheets += 1
            ws = wb.create_sheet((sheet[:24] + (f" ({sheets})" if sheets > 1 else ""))[:31])
            ws.append(list(columns))
            in_sheet = 1
        ws.append([Decimal(v) if m and v != "" else v for m, v in zip(money, row)])
        in_sheet += 1
        each(n)
    if ws is None:
        wb.create_sheet(sheet[:31]).append(list(columns))
    wb.save(path)
    return n
