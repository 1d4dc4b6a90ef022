"""Distinct, explained case-number prefixes (issue 16 "Record pages"): construction files had the credit
applications' prefix SWC; they are SWD now, existing numbers are renumbered by a migration that keeps each old
number as an alias (old links redirect) and records the renumbering on the case's append-only timeline."""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from stormwater.cases.models import Case, CaseEvent, CaseNumber, CaseNumberAlias


def test_a_construction_file_and_a_credit_application_never_share_a_prefix(project, personas):
    from stormwater.relief.workflow import CREDIT_MACHINE

    assert project.case.number.startswith("SWD-")
    assert CREDIT_MACHINE.number_prefix == "SWC"


def test_an_old_number_redirects_to_the_new_one_and_an_unknown_one_is_still_not_found(project, client_for, personas):
    new = project.case.number
    old = "SWC" + new[3:]
    CaseNumberAlias.objects.create(old_number=old, case=project.case, reason="test")
    c = client_for(personas["director"])
    r = c.get(f"/construction/{old}/?x=1")
    assert r.status_code == 301 and r.url == f"/construction/{new}/?x=1"
    assert c.get(r.url).status_code == 200
    r = c.get(f"/api/construction/{old}/")
    assert r.status_code == 301 and r.url == f"/api/construction/{new}/"
    assert c.post(f"/construction/{old}/start/", {"on": "2026-04-20"}).status_code == 404  # a form is not replayed
    assert c.get("/construction/SWC-2026-9999/").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_migration_renumbers_construction_files_keeps_aliases_and_records_an_event():
    executor = MigrationExecutor(connection)
    before = [("cases", "0004_clock_start_event")]
    after = executor.loader.graph.leaf_nodes("cases")
    executor.migrate(before)
    apps = executor.loader.project_state(before).apps
    OldCase = apps.get_model("cases", "Case")
    OldCounter = apps.get_model("cases", "CaseNumber")
    credit = OldCase.objects.create(kind="credit", number="SWC-2026-0006", status="filed", title="A credit")
    built = OldCase.objects.create(kind="construction", number="SWC-2026-0007", status="active", title="A site")
    OldCounter.objects.create(prefix="SWC", year=2026, last=7)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)

    assert Case.objects.get(pk=credit.pk).number == "SWC-2026-0006"         # credits keep SWC
    case = Case.objects.get(pk=built.pk)
    assert case.number == "SWD-2026-0007"
    assert CaseNumberAlias.objects.get(old_number="SWC-2026-0007").case_id == case.pk
    ev = CaseEvent.objects.get(case=case, kind="renumbered")
    assert ev.data == {"from": "SWC-2026-0007", "to": "SWD-2026-0007"} and "SWC-2026-0007" in ev.why
    assert CaseNumber.objects.get(prefix="SWD", year=2026).last == 7        # the next SWD file is 0008
    with pytest.raises(Exception):                                           # the alias is append-only
        CaseNumberAlias.objects.filter(old_number="SWC-2026-0007").update(old_number="SWC-2026-0001")
    connection.close()  # the failed statement must not leave the test's connection in an aborted transaction
