"""Credits (Ch. 295 Art. IV credits ¶A–¶E): the policy as data with an effective date, eligibility,
completeness, the Director's 30 days, grants in force prospectively, stacking and caps, recertification
and revocation."""
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.cases.services import TransitionError
from stormwater.relief import services as sv
from stormwater.relief import workflow as wf
from stormwater.relief.models import CreditCategory, CreditType
from stormwater.relief.selectors import combine_percents, credit_percent_by_parcel, policy_in_force
from stormwater.utility.selectors import parcel_fee

from .conftest import pdf_upload


def full_app(parcel, ctype, user):
    return sv.credit_apply(parcel=parcel, credit_type=ctype, statement="Meets the criteria.", acting_user=user,
                           uploads=[(t, pdf_upload(f"{t}.pdf")) for t, _ in ctype.required_documents])


def test_the_demo_policy_has_every_kind_of_credit_the_ordinance_names(policy):
    assert {t.category for t in policy.types.all()} == set(CreditCategory.values)
    assert policy.is_demo and policy_in_force(date(2026, 6, 30)) is None and policy_in_force(date(2026, 7, 1)) == policy


def test_a_new_policy_takes_over_from_its_effective_date(policy, personas):
    newer = sv.credit_policy_adopt(label="FY2028 policy", approved_on=date(2027, 5, 1), effective_from=date(2027, 7, 1),
                                   max_combined_percent=D("40"), acting_user=personas["clerk"], types=[dict(
                                       code="BMP", category="improvements", name="BMPs", eligibility="x",
                                       required_documents=[["plan", "Plan"]], amount_kind="percent", amount=D("20"),
                                       max_percent=D("40"))])
    assert policy_in_force(date(2027, 6, 30)) == policy and policy_in_force(date(2027, 7, 1)) == newer


def test_no_credit_without_a_policy_in_force_nor_from_an_old_policy(billed, personas, at):
    from stormwater.relief.models import CreditPolicy

    with pytest.raises(sv.ReliefError, match="No credit policy is in force"):
        sv.credit_apply(parcel=billed["house"], credit_type=CreditType(name="x"), statement="x",
                        acting_user=personas["owner"])
    assert not CreditPolicy.objects.exists()


def test_eligibility_by_property_class_is_checked(billed, policy, personas):
    senior = CreditType.objects.get(policy=policy, code="SENIOR")
    with pytest.raises(sv.ReliefError, match="for small_residential property; parcel 02-01-1 is nonresidential"):
        sv.credit_apply(parcel=billed["shops"], credit_type=senior, statement="x", acting_user=personas["staff"])


def test_completeness_names_the_missing_documents_then_the_30_days_start(billed, policy, personas, at):
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    at(date(2026, 10, 1))
    app = sv.credit_apply(parcel=billed["house"], credit_type=bmp, statement="x", acting_user=personas["owner"])
    with pytest.raises(TransitionError, match="Missing: Site plan .*; Operation and maintenance plan; Latest"):
        sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    with pytest.raises(TransitionError):  # the Director cannot decide an application not yet complete
        sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    for t, _ in bmp.required_documents:
        sv.credit_upload(application=app, upload=pdf_upload(), tag=t, acting_user=personas["owner"])
    at(date(2026, 10, 13))
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    clock = app.case.clocks.get(kind="credit_decision")
    assert clock.start == date(2026, 10, 13) and clock.state().due == date(2026, 11, 12)


@pytest.mark.parametrize("decision,percent,reasons,expect", [
    ("grant", None, "", D("25")),
    ("grant_part", D("10"), "Serves half the roof.", D("10")),
    ("deny", None, "Not built to the standards.", None),
])
def test_the_director_grants_in_whole_or_part_or_denies_in_writing(billed, policy, personas, at, decision, percent,
                                                                   reasons, expect):
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    at(date(2026, 10, 1))
    app = full_app(billed["house"], bmp, personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    at(date(2026, 10, 31))  # the 30th day
    sv.credit_decide(application=app, decision=decision, percent=percent, reasons=reasons,
                     acting_user=personas["director"])
    app.refresh_from_db()
    assert app.granted_percent == expect
    assert app.case.clocks.get(kind="credit_decision").met_on == date(2026, 10, 31)
    pct = credit_percent_by_parcel(on=date(2026, 10, 31)).get(billed["house"].pk, (D(0), ""))[0]
    assert pct == (expect or 0)
    assert credit_percent_by_parcel(on=date(2026, 10, 30)) == {}  # prospective: not before the decision
    assert app.case.documents.filter(tag="decision", generated=True).exists()
    assert app.case.clocks.filter(kind="appeal_filing").exists() == (decision != "grant")


def test_a_grant_in_part_is_less_than_the_full_credit(billed, policy, personas):
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = full_app(billed["house"], bmp, personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    with pytest.raises(sv.ReliefError, match="less than the full credit of 25"):
        sv.credit_decide(application=app, decision="grant_part", percent=D("25"), reasons="x",
                         acting_user=personas["director"])


def test_a_fixed_dollar_credit_becomes_the_percent_of_the_fee_it_is(billed, policy, personas, at):
    senior = CreditType.objects.get(policy=policy, code="SENIOR")
    at(date(2026, 10, 1))
    app = full_app(billed["house"], senior, personas["owner"])
    assert app.requested_percent == D("28.217")  # $15 of $53.16
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    assert "$15.00 a year of a $53.16 annual fee" in app.grants.get().basis


def test_stacking_rules_and_the_cap(billed, policy, personas, at):
    assert combine_percents([(D(25), True), (D(20), True)], cap=D(50)) == D(45)
    assert combine_percents([(D(30), False), (D(28), False), (D(10), True)], cap=D(50)) == D(40)
    assert combine_percents([(D(25), True), (D(20), True), (D(10), True)], cap=D(50)) == D(50)
    at(date(2026, 10, 1))
    for code in ("BMP", "PROTECTED", "MULTI"):
        ct = CreditType.objects.get(policy=policy, code=code)
        app = full_app(billed["shops"], ct, personas["staff"])
        sv.credit_determine_complete(application=app, acting_user=personas["staff"])
        sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    pct, note = credit_percent_by_parcel(on=date(2026, 10, 1))[billed["shops"].pk]
    assert pct == D(50) and "cap" in note  # 25 + 20 + 10 = 55, capped at 50
    fee = parcel_fee(billed["shops"], as_of=date(2026, 10, 1)).fee
    assert fee.credit_percent == D(50) and fee.annual_fee == fee.gross_fee - fee.credit_amount


def test_a_second_application_for_a_credit_in_force_is_refused(billed, policy, personas):
    bmp = CreditType.objects.get(policy=policy, code="BMP")
    app = full_app(billed["house"], bmp, personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    with pytest.raises(sv.ReliefError, match=f"already has .* in force \\({app.case.number}\\)"):
        full_app(billed["house"], bmp, personas["owner"])


def test_recertification_lapses_then_the_credit_may_be_revoked_and_the_fee_returns(billed, policy, personas, at):
    bmp = CreditType.objects.get(policy=policy, code="BMP")  # recertified every 36 months, no expiry
    at(date(2026, 10, 1))
    app = full_app(billed["house"], bmp, personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    g = app.grants.get()
    assert g.recertify_by == date(2029, 10, 1) and app.case.clocks.get(kind="recertification").state().due == \
        date(2029, 10, 1)
    at(date(2029, 10, 1))  # the day it is due: not lapsed yet
    with pytest.raises(sv.ReliefError, match="due by 2029-10-01: it has not lapsed"):
        sv.credit_revoke(grant=g, lapsed=True, reason="No recertification.", acting_user=personas["director"])
    at(date(2029, 10, 2))
    with pytest.raises(sv.ReliefError, match="state the noncompliance"):
        sv.credit_revoke(grant=g, lapsed=True, reason="", acting_user=personas["director"])
    sv.credit_revoke(grant=g, lapsed=True, reason="No recertification received.", acting_user=personas["director"])
    g.refresh_from_db()
    assert g.revoked_on == date(2029, 10, 2)
    assert billed["house"].pk in credit_percent_by_parcel(on=date(2029, 10, 1))
    assert credit_percent_by_parcel(on=date(2029, 10, 2)) == {}
    assert app.case.clocks.get(kind="recertification").met_on == date(2029, 10, 2)
    assert app.case.documents.filter(tag="revocation").exists()


def test_recertification_renews_the_clock(billed, policy, personas, at):
    bmp = CreditType.objects.get(policy=policy, code="BMP")  # every 36 months, no expiry
    at(date(2026, 10, 1))
    app = full_app(billed["house"], bmp, personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    at(date(2029, 9, 1))
    g = sv.credit_recertify(grant=app.grants.get(), note="Inspection report 2029", acting_user=personas["staff"])
    assert g.recertify_by == date(2032, 9, 1)
    assert [c.met_on for c in app.case.clocks.filter(kind="recertification").order_by("id")] == [date(2029, 9, 1), None]
    assert app.case.documents.filter(tag="recertified").exists()


def test_an_expired_credit_stops_without_revocation(billed, policy, personas, at):
    edu = CreditType.objects.get(policy=policy, code="EDU")  # 12 months
    at(date(2026, 10, 1))
    app = full_app(billed["shops"], edu, personas["staff"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.credit_decide(application=app, decision="grant", reasons="", acting_user=personas["director"])
    assert billed["shops"].pk in credit_percent_by_parcel(on=date(2027, 9, 30))
    assert credit_percent_by_parcel(on=date(2027, 10, 1)) == {}


def test_withdrawal_stops_the_clock(billed, policy, personas):
    app = full_app(billed["house"], CreditType.objects.get(policy=policy, code="BMP"), personas["owner"])
    sv.credit_determine_complete(application=app, acting_user=personas["staff"])
    sv.relief_withdraw(case=app.case, acting_user=personas["owner"])
    app.case.refresh_from_db()
    assert app.case.status == wf.CreditStatus.WITHDRAWN and app.case.closed_at
    assert app.case.clocks.get(kind="credit_decision").met_on is not None
