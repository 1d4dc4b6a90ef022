"""Two parts of the one list mechanism (``web.lists``) that staff asked for (issue 25 "Staff lists"):

- ``amount_range_filters``: "at least" / "at most" dollars on a money column or annotation (e.g. the accounts that
  owe more than $500: ``?due_min=500``), a value that cannot be read named at its field as every filter's;
- ``choose_columns``: which columns a list shows (``?cols=number&cols=owner_name…``, ticked under "Columns"); the
  download follows the page (the columns shown), so a chosen set of columns is also the export's."""
from __future__ import annotations

import django_filters
from django import forms


def amount_range_filters(field: str, label: str) -> tuple[django_filters.NumberFilter, django_filters.NumberFilter]:
    """(at least, at most) filters on the money ``field`` (a column or an annotation), in dollars."""
    def one(lookup: str, words: str) -> django_filters.NumberFilter:
        return django_filters.NumberFilter(field_name=field, lookup_expr=lookup, label=f"{label} {words} ($)",
                                           widget=forms.NumberInput(attrs={"step": "0.01", "inputmode": "decimal"}))
    return one("gte", "at least"), one("lte", "at most")


def choose_columns(table, asked: list[str]) -> list[tuple[str, str, bool]]:
    """Hide the columns of ``table`` not in ``asked`` (none asked: all shown) and return the choice the page offers:
    (name, header, shown) of each column a person may choose (shown by the list and exported; the buttons of an
    actions column are not a column of data). A name that is no column is ignored."""
    choosable = [c for c in table.columns.iterall() if c.visible and not c.column.exclude_from_export]
    names = {c.name for c in choosable}
    keep = set(asked) & names
    if keep:
        for c in choosable:
            if c.name not in keep:
                table.columns.hide(c.name)
    return [(c.name, str(c.header), not keep or c.name in keep) for c in choosable]
