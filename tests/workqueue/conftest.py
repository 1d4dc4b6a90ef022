"""Fixtures for the work queue: N records of each provider's kind made in bulk (for the query-count tests),
all dated relative to a frozen day."""
from __future__ import annotations

from datetime import date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import itertools

import pytest

EASTERN = ZoneInfo("America/New_York")
TODAY = date(2026, 11, 16)   # a Monday


@pytest.fixture
def today(at):
    at(TODAY)
    return TODAY


_SEQ = itertools.count(1)
TITLES = {"RC": "Credit for a rain garden", "PP": "Stormwater permit", "CP": "Stormwater permit",
          "CC": "Construction oversight", "SS": "O&M of the detention basin", "SF": "Failure to maintain the basin"}


def _case(kind: str, status: str, n: int, prefix: str, **kw):
    from stormwater.cases.models import Case

    nums = [next(_SEQ) for _ in range(n)]
    return Case.objects.bulk_create([Case(kind=kind, status=status, number=f"{prefix}-2026-{i:05d}",
                                          title=f"{TITLES.get(prefix, prefix)}, {10 + i} Elm St",
                                          filed_on=TODAY - timedelta(days=10), **kw)
                                     for i in nums])


def _clocks(cases, kind: str, *, start: date, length: int, label: str = "a clock", citation: str = "test"):
    from stormwater.cases.models import Clock

    return Clock.objects.bulk_create([Clock(case=c, kind=kind, label=label, citation=citation, start=start,
                                            length=length) for c in cases])


def _doc(case):
    from stormwater.cases.models import CaseDocument

    return CaseDocument.objects.create(case=case, tag="proof", title="proof", file="x/proof.pdf",
                                       original_name="proof.pdf", content_type="application/pdf", size=1, sha256="0" * 64)


@pytest.fixture
def make_relief(personas):
    """make_relief(n, applicant=owner): n credit cases under review, each with its 30-day decision clock."""
    from stormwater.cases.models import CaseParty

    def _make(n, applicant=None):
        applicant = applicant or personas["owner"]
        cases = _case("credit", "under_review", n, "RC", applicant=applicant)
        CaseParty.objects.bulk_create([CaseParty(case=c, role="owner", name="O", user=applicant) for c in cases])
        _clocks(cases, "credit_decision", start=TODAY - timedelta(days=20), length=30,
                citation="Ch. 295 Art. IV credits ¶E")
        return cases
    return _make


@pytest.fixture
def make_permits(personas):
    """make_permits(n): n permit files filed by the owner persona, each with a running 42-day clock, an
    outstanding information request and a consultant appeal before the Select Board."""
    from stormwater.permits.models import ConsultantAppeal, ConsultantEngagement, InformationRequest, PermitApplication

    def _make(n, applicant=None):
        applicant = applicant or personas["owner"]
        cases = _case("permit", "info_requested", n, "PP", applicant=applicant)
        apps = PermitApplication.objects.bulk_create([
            PermitApplication(case=c, owner_name="O", site_address=f"{i} Elm St", description="d",
                              disturbance_sqft=Decimal(50000)) for i, c in enumerate(cases)])
        _clocks(cases, "action", start=TODAY - timedelta(days=30), length=42, citation="§ 380-10 I(2)")
        _clocks(cases, "consultant_payment", start=TODAY - timedelta(days=3), length=10,
                citation="§ 380-10 G(2)(d)")
        InformationRequest.objects.bulk_create([InformationRequest(application=a, requested_on=TODAY, items="x")
                                                for a in apps])
        engs = ConsultantEngagement.objects.bulk_create([
            ConsultantEngagement(application=a, name="C", services="review", fee=Decimal(100), notice_on=TODAY,
                                 user=personas["consultant"]) for a in apps])
        ConsultantAppeal.objects.bulk_create([ConsultantAppeal(engagement=e, received_on=TODAY, ground="conflict",
                                                               statement="s") for e in engs])
        return apps
    return _make


@pytest.fixture
def make_construction(personas):
    """make_construction(n): n projects under way (consultant = design engineer, inspector = ESC inspector),
    each with an erosion inspection 10 days ago, a storm since, a noticed final inspection, an area where work
    ceased and a violation to correct."""
    from stormwater.construction.models import (ConstructionProject, DisturbedArea, Inspection, InspectionNotice,
                                                RainEvent, Violation)
    from stormwater.permits.models import PermitApplication

    def _make(n):
        pcases = _case("permit", "approved", n, "CP", applicant=personas["owner"])
        apps = PermitApplication.objects.bulk_create([
            PermitApplication(case=c, owner_name="O", site_address=f"{i} Oak St", description="d",
                              disturbance_sqft=Decimal(50000)) for i, c in enumerate(pcases)])
        ccases = _case("construction", "active", n, "CC")
        projects = ConstructionProject.objects.bulk_create([
            ConstructionProject(case=c, permit=a, design_engineer=personas["consultant"],
                                esc_inspector=personas["inspector"], frequency="14day_storm",
                                started_on=TODAY - timedelta(days=30)) for c, a in zip(ccases, apps)])
        at = datetime(2026, 11, 6, 10, tzinfo=EASTERN)
        Inspection.objects.bulk_create([
            Inspection(project=p, kind="erosion_routine", inspected_at=at, location="site", inspector_name="I",
                       inspector_credentials="CPESC", weather="dry", precipitation_24h_in=Decimal(0),
                       evaluation="compliant") for p in projects])
        RainEvent.objects.bulk_create([RainEvent(project=p, ended_at=at + timedelta(days=3), rain_in=Decimal("0.40"),
                                                 source="gauge") for p in projects])
        InspectionNotice.objects.bulk_create([
            InspectionNotice(project=p, kind="final", scheduled_at=datetime(2026, 11, 18, 9, tzinfo=EASTERN),
                             noticed_at=at) for p in projects])
        DisturbedArea.objects.bulk_create([DisturbedArea(project=p, name="Lot 3", ceased_on=TODAY - timedelta(days=2))
                                           for p in projects])
        Violation.objects.bulk_create([Violation(project=p, found_on=TODAY, description="silt fence down",
                                                 corrective_actions="reset it", correct_by=TODAY + timedelta(days=5))
                                       for p in projects])
        return projects
    return _make


@pytest.fixture
def make_stewardship(personas):
    """make_stewardship(n): n sites of the owner persona whose final O&M plan was recorded a year ago (the first
    certification overdue), each with a failure-to-maintain notice and its 30-day clock."""
    from stormwater.stewardship.models import MaintenanceNotice, OMPlan, ResponsibleParty, Site

    def _make(n):
        scases = _case("stewardship", "in_force", n, "SS")
        sites = Site.objects.bulk_create([Site(case=c, name=f"Basin {i}", owner_user=personas["owner"])
                                          for i, c in enumerate(scases)])
        ResponsibleParty.objects.bulk_create([ResponsibleParty(site=s, role="operator", name="Op", since=TODAY,
                                                               user=personas["owner"]) for s in sites])
        OMPlan.objects.bulk_create([OMPlan(site=s, version=1, final=True, recorded_on=date(2025, 11, 3), book="1",
                                           page="2", proof_document=_doc(s.case)) for s in sites])
        mcases = _case("maintenance", "noticed", n, "SF")
        MaintenanceNotice.objects.bulk_create([MaintenanceNotice(case=c, site=s, noticed_on=TODAY - timedelta(days=5),
                                                                 violation="v", corrective_work="w")
                                               for c, s in zip(mcases, sites)])
        _clocks(mcases, "cure", start=TODAY - timedelta(days=5), length=30, citation="§ 380-14 E")
        return sites
    return _make


@pytest.fixture
def make_bills(personas, resolution):
    """make_bills(n): n parcels of the owner persona billed for FY2027 on Sep 10 (installments unpaid)."""
    from stormwater.parcels.models import ImperviousSurvey, Owner, Parcel, ParcelImpervious
    from stormwater.utility.services import bill_run_issue, fiscal_year

    def _make(n, owner_user=None):
        survey = ImperviousSurvey.objects.create(name="S", surveyed_on=date(2026, 4, 1))
        owner = Owner.objects.create(name="Olivia Owner", mailing_address="1 Elm St",
                                     user=owner_user or personas["owner"])
        parcels = Parcel.objects.bulk_create([
            Parcel(parcel_id=f"50-{i:04d}", address=f"{i} Birch St", owner=owner, land_use_code="325",
                   dwelling_units=None, lot_sqft=Decimal(500000)) for i in range(n)])
        ParcelImpervious.objects.bulk_create([ParcelImpervious(survey=survey, parcel=p, impervious_sqft=Decimal(20000))
                                              for p in parcels])
        label, start, end = fiscal_year(2027)
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                       acting_user=None)
        return parcels
    return _make
