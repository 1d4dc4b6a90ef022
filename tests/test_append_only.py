"""The append-only guarantee at the database level (STYLE.md: ledger, audit; issue 14 "the append-only guarantee has
holes"). Every append-only table — the ledger, the audit log, the case timelines, and the money-bearing tables
interest is computed from (bills, installments, rate resolutions and their blocks) — refuses UPDATE and DELETE
through triggers that exist after all migrations; SQLite also refuses INSERT OR REPLACE (whose implicit delete fires
no trigger), PostgreSQL also refuses TRUNCATE; ``flush`` is refused in production. Runs on SQLite and PostgreSQL."""
from datetime import date

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction

from stormwater.appendonly import append_only_tables

MONEY_TABLES = {"utility_bill", "utility_installment", "utility_rateresolution", "utility_resolutionblock"}
sqlite_only = pytest.mark.skipif("connection.vendor != 'sqlite'", reason="SQLite's INSERT OR REPLACE")
postgres_only = pytest.mark.skipif("connection.vendor != 'postgresql'", reason="PostgreSQL's TRUNCATE")


def test_every_append_only_table_has_its_triggers(db):
    tables = append_only_tables()
    assert {"utility_ledgerentry", "audit_auditevent"} | MONEY_TABLES <= tables
    with connection.cursor() as c:
        if connection.vendor == "sqlite":
            c.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
            have = {(t, n) for t, n in c.fetchall()}
            missing = [t for t in tables if not {(t, f"{t}_no_{op}") for op in ("update", "delete", "replace")} <= have]
        else:
            c.execute("SELECT tgrelid::regclass::text, tgname FROM pg_trigger WHERE NOT tgisinternal")
            have = {(t, n) for t, n in c.fetchall()}
            missing = [t for t in tables if not {(t, f"{t}_append_only"), (t, f"{t}_no_truncate")} <= have]
    assert missing == []


def test_no_append_only_table_has_a_unique_expression():
    """The SQLite guard against INSERT OR REPLACE checks every unique key of the table, a conditional one with its
    condition (appendonly.conditional_unique_keys); a unique constraint on an expression it cannot check — give
    the guard a way to before adding one."""
    from django.apps import apps
    from django.db.models import UniqueConstraint

    from stormwater.appendonly import AppendOnlyModel

    odd = [f"{m._meta.db_table}.{c.name}" for m in apps.get_models() if issubclass(m, AppendOnlyModel)
           for c in m._meta.constraints if isinstance(c, UniqueConstraint) and c.contains_expressions]
    assert odd == []


@pytest.fixture
def billed(town, resolution):
    """A bill run: rows in the ledger, the audit log, bills, installments, the resolution and its blocks."""
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


def _refused(sql: str, params=()) -> str:
    with pytest.raises(DatabaseError) as e, transaction.atomic(), connection.cursor() as c:
        c.execute(sql, params)
    return str(e.value)


def _first(table: str) -> dict:
    with connection.cursor() as c:
        c.execute(f"SELECT * FROM {table} ORDER BY id LIMIT 1")
        return dict(zip([d[0] for d in c.description], c.fetchone()))


def _count(table: str) -> int:
    with connection.cursor() as c:
        c.execute(f"SELECT count(*) FROM {table}")
        return c.fetchone()[0]


GUARDED_WITH_ROWS = sorted({"utility_ledgerentry", "audit_auditevent"} | MONEY_TABLES)


@pytest.mark.parametrize("table", GUARDED_WITH_ROWS)
def test_update_and_delete_are_refused(billed, table):
    before, n = _first(table), _count(table)
    assert "append-only" in _refused(f"UPDATE {table} SET id = id WHERE id = %s", [before["id"]])
    assert "append-only" in _refused(f"DELETE FROM {table} WHERE id = %s", [before["id"]])
    assert "append-only" in _refused(f"DELETE FROM {table}")
    assert _first(table) == before and _count(table) == n


def test_interest_inputs_cannot_be_edited_through_the_orm_either(billed):
    from stormwater.utility.models import Bill, Installment, RateResolution

    bill = Bill.objects.first()
    bill.amount += 1
    with pytest.raises(ValueError, match="append-only"):
        bill.save()
    with pytest.raises(ValueError, match="append-only"):
        Installment.objects.first().delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        RateResolution.objects.update(interest_rate_percent=18)
    with pytest.raises(DatabaseError), transaction.atomic():
        Installment.objects.filter(seq=1).update(due_date=date(2030, 1, 1))
    assert not RateResolution.objects.filter(interest_rate_percent=18).exists()


def _replace_sql(table: str, row: dict, conflict: str = "") -> tuple[str, list]:
    cols = list(row)
    verb = "INSERT OR REPLACE INTO" if not conflict else "INSERT INTO"
    tail = f" ON CONFLICT(id) DO UPDATE SET {conflict}" if conflict else ""
    return (f"{verb} {table} ({', '.join(cols)}) VALUES ({', '.join(['%s'] * len(cols))}){tail}",
            [row[c] for c in cols])


@sqlite_only
@pytest.mark.parametrize("table,change", [("utility_ledgerentry", {"amount": "0.01"}),
                                          ("audit_auditevent", {"action": "nothing.happened"}),
                                          ("utility_installment", {"amount": "0.01"}),
                                          ("utility_rateresolution", {"interest_rate_percent": "18"})])
def test_sqlite_refuses_insert_or_replace_of_an_existing_row(billed, table, change):
    """REPLACE deletes the conflicting row without firing its DELETE trigger (SQLite: "delete triggers fire if and
    only if recursive triggers are enabled"), then inserts: before the guard it rewrote ledger and audit rows."""
    before = _first(table)
    assert "append-only" in _refused(*_replace_sql(table, {**before, **change}))
    assert "append-only" in _refused(*_replace_sql(table, {**before, **change},
                                                   conflict=", ".join(f"{k} = excluded.{k}" for k in change)))
    assert _first(table) == before


@sqlite_only
def test_sqlite_refuses_a_replace_through_another_unique_key(billed):
    """A new id with an existing bill number (unique) would make REPLACE delete the old bill."""
    before, n = _first("utility_bill"), _count("utility_bill")
    assert "append-only" in _refused(*_replace_sql("utility_bill", {**before, "id": None, "amount": "0.01"}))
    assert _first("utility_bill") == before and _count("utility_bill") == n


@sqlite_only
def test_sqlite_refuses_a_replace_through_a_conditional_unique_key(billed):
    """One charge per installment (a partial unique index: kind = 'charge'): a REPLACE of a new charge for a charged
    installment would delete the old charge; refused. A reversal of that installment (outside the condition) is
    an ordinary insert and goes in."""
    charge = _first("utility_ledgerentry")
    assert charge["kind"] == "charge" and charge["installment_id"]
    n = _count("utility_ledgerentry")
    assert "append-only" in _refused(*_replace_sql("utility_ledgerentry", {**charge, "id": None, "amount": "0.01"}))
    assert _first("utility_ledgerentry") == charge and _count("utility_ledgerentry") == n
    with connection.cursor() as c:
        c.execute(*_replace_sql("utility_ledgerentry", {**charge, "id": None, "kind": "reversal",
                                                        "amount": f"-{charge['amount']}", "reverses_id": charge["id"]}))
    assert _count("utility_ledgerentry") == n + 1


def test_ordinary_inserts_still_work(billed):
    from stormwater.audit.services import audit_record
    from stormwater.utility.models import Account, EntryKind, LedgerEntry

    n = LedgerEntry.objects.count()
    LedgerEntry.objects.create(account=Account.objects.first(), kind=EntryKind.CHARGE, amount="1.00",
                               effective_on=date(2026, 9, 10))
    audit_record(actor=None, action="test.append", obj=LedgerEntry.objects.last())
    assert LedgerEntry.objects.count() == n + 1


@postgres_only
@pytest.mark.parametrize("sql", ["TRUNCATE utility_ledgerentry CASCADE", "TRUNCATE audit_auditevent",
                                 "TRUNCATE utility_bill CASCADE", "TRUNCATE utility_rateresolution CASCADE",
                                 "TRUNCATE parcels_parcel CASCADE"])
def test_postgresql_refuses_truncate(billed, sql):
    """TRUNCATE fires no row trigger: before the guard it emptied the ledger and the audit log (a statement trigger
    now refuses it, also when a CASCADE from another table reaches an append-only one). The ledger is truncated with
    CASCADE: tables that reference it (refund vouchers) would otherwise refuse a plain TRUNCATE by their foreign key
    before the guard is reached."""
    n = _count("utility_ledgerentry"), _count("audit_auditevent"), _count("utility_bill")
    with connection.cursor() as c:  # the test's own inserts left deferred foreign-key checks pending
        c.execute("SET CONSTRAINTS ALL IMMEDIATE")
    assert "append-only" in _refused(sql)
    assert (_count("utility_ledgerentry"), _count("audit_auditevent"), _count("utility_bill")) == n


def test_flush_is_refused_in_production(billed, settings):
    """``stormwater flush`` with STORMWATER_ENV=production emptied the ledger and the audit log."""
    settings.PRODUCTION = True
    n = _count("utility_ledgerentry"), _count("audit_auditevent")
    with pytest.raises(CommandError, match="refused in production"):
        call_command("flush", interactive=False)
    assert (_count("utility_ledgerentry"), _count("audit_auditevent")) == n


@pytest.mark.django_db(transaction=True)
def test_flush_still_resets_a_development_database(town, resolution):
    """The test suite and a developer reset a database with flush: it lifts the guards for the reset only."""
    from stormwater.utility.services import bill_run_issue, fiscal_year

    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    assert _count("utility_ledgerentry") > 0
    call_command("flush", interactive=False)
    assert _count("utility_ledgerentry") == _count("audit_auditevent") == _count("utility_bill") == 0
    test_every_append_only_table_has_its_triggers(None)  # put back after the reset
    from stormwater.audit.models import AuditEvent

    AuditEvent.objects.create(action="test.after_flush", object_type="test", object_id="1")
    assert "append-only" in _refused("DELETE FROM audit_auditevent")


@pytest.mark.parametrize("app", ["audit", "utility", "cases", "accounts"])
def test_reversing_a_migration_of_an_append_only_app_is_refused_in_production(billed, settings, app):
    """Issue 27: ``stormwater migrate audit zero`` dropped ``audit_auditevent`` with STORMWATER_ENV=production
    (SQLite, and PostgreSQL as owner). ``accounts``: the reversal reaches the audit log through dependencies."""
    from stormwater.audit.management.commands.migrate import append_only_apps

    assert {"audit", "utility", "cases", "permits", "construction", "stewardship", "review"} <= append_only_apps()
    settings.PRODUCTION = True
    n = _count("utility_ledgerentry"), _count("audit_auditevent")
    with pytest.raises(CommandError, match="refused in production") as refused:
        call_command("migrate", app, "zero", interactive=False, verbosity=0)
    assert "audit" in str(refused.value) or app in str(refused.value)
    assert (_count("utility_ledgerentry"), _count("audit_auditevent")) == n
    test_every_append_only_table_has_its_triggers(None)


def test_migrating_forwards_in_production_is_not_refused(db, settings):
    settings.PRODUCTION = True
    call_command("migrate", interactive=False, verbosity=0)  # nothing to apply: the plan has no reversal
