"""One check for issue 26 "a refused file changes nothing": every table's row count and every money (decimal)
column's sum, compared before and after. The refused file's own import record (``imports.ImportRecord``, outcome
``refused``) and its audit row are the only writes a refusal makes, so they are left out by default.

    from dbunchanged import nothing_changed
    with nothing_changed(), pytest.raises(ImportRefused):
        ...
"""
from __future__ import annotations

from contextlib import contextmanager

RECORDS = ("imports.importrecord", "audit.auditevent")


def db_snapshot(*, exclude: tuple[str, ...] = RECORDS) -> dict[str, object]:
    """{``app.model``: row count, ``app.model.field``: sum} for every concrete model of the project."""
    from django.apps import apps
    from django.db import models
    from django.db.models import Sum

    snap: dict[str, object] = {}
    for m in apps.get_models():
        label = m._meta.label_lower
        if label in exclude or m._meta.proxy or not m._meta.managed or not label.startswith(
                tuple(f"{c.label}." for c in apps.get_app_configs() if c.name.startswith("stormwater"))):
            continue
        snap[label] = m._base_manager.count()
        money = [f.name for f in m._meta.concrete_fields if isinstance(f, models.DecimalField)]
        if money:
            sums = m._base_manager.aggregate(**{f: Sum(f) for f in money})
            snap.update({f"{label}.{f}": v for f, v in sums.items()})
    return snap


@contextmanager
def nothing_changed(*, exclude: tuple[str, ...] = RECORDS):
    """Assert that the block leaves every row count and money sum as it found them (the difference is shown)."""
    before = db_snapshot(exclude=exclude)
    yield before
    after = db_snapshot(exclude=exclude)
    diff = {k: (before.get(k), after.get(k)) for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    assert not diff, f"the database changed (before, after): {diff}"
