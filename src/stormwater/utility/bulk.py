"""Writing many rows fast: PostgreSQL ``COPY … FROM STDIN`` (psycopg 3's ``cursor.copy``), SQLite's
``executemany`` of one prepared INSERT (the fastest bulk path its Python driver has).

Used by the bill run (issue 15: "write bills, installments and ledger entries with COPY"). Rows are plain
tuples in the order of ``columns``; callers give primary keys themselves (``allocate_ids``) where later rows
must point at them, because COPY returns none.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection


def _qn(name: str) -> str:
    return connection.ops.quote_name(name)


def allocate_ids(model, n: int) -> list[int]:
    """``n`` fresh primary keys for ``model``'s table, taken from its sequence so that no concurrent insert can
    take them. Call inside the transaction that inserts the rows."""
    if n <= 0:
        return []
    table = model._meta.db_table
    pk = model._meta.pk.column
    with connection.cursor() as c:
        if connection.vendor == "postgresql":
            c.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)", [table, pk, n])
            return [r[0] for r in c.fetchall()]
        # SQLite: the write lock is held from BEGIN (IMMEDIATE transactions), so nobody else inserts meanwhile.
        # AUTOINCREMENT keys are never reused: start above both the largest key and sqlite_sequence.
        c.execute(f"SELECT COALESCE(MAX({_qn(pk)}), 0) FROM {_qn(table)}")
        top = c.fetchone()[0]
        c.execute("SELECT seq FROM sqlite_sequence WHERE name = %s", [table])
        row = c.fetchone()
        top = max(top, row[0] if row else 0)
    return list(range(top + 1, top + 1 + n))


def copy_rows(table: str, columns: Sequence[str], rows: Iterable[tuple]) -> int:
    """Insert ``rows`` into ``table`` (a bulk path; no model save(), no signals). Returns how many."""
    n = 0
    cols = ", ".join(_qn(c) for c in columns)
    with connection.cursor() as c:
        if connection.vendor == "postgresql":
            with c.cursor.copy(f"COPY {_qn(table)} ({cols}) FROM STDIN") as cp:
                for r in rows:
                    cp.write_row(r)
                    n += 1
            return n
        data = rows if isinstance(rows, list) else list(rows)
        marks = ", ".join(["?"] * len(columns))
        # The driver's own cursor: one prepared statement, the loop in C (Django's wrapper would rewrite %s).
        c.cursor.executemany(f"INSERT INTO {_qn(table)} ({cols}) VALUES ({marks})", data)
        return len(data)


def analyze(*models) -> None:
    """Tell PostgreSQL's planner how big the tables just written are (``ANALYZE``; "Populating a Database", PostgreSQL
    manual §14.4.9: run ANALYZE after a bulk load). Inside the writing transaction too: ANALYZE counts the rows the
    transaction itself inserted. Without it the planner may still hold statistics from when a table was empty or
    held only the dead rows of a rolled-back dry run (0 rows over many pages), and plans nested loops over
    thousands of rows (seen: a go-live conversion of 500 accounts taking 30 minutes instead of 10 seconds). A role
    that does not own the table gets a warning and the old statistics; SQLite's planner keeps no statistics unless
    asked, so nothing is done there."""
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as c:
        for m in models:
            c.execute(f"ANALYZE {_qn(m._meta.db_table)}")


def columns_of(model, exclude: Iterable[str] = ()) -> list[str]:
    """The concrete column names of ``model`` (for a COPY of all of them)."""
    skip = set(exclude)
    return [f.column for f in model._meta.concrete_fields if f.column not in skip]
