"""Counts for the town's annual MS4 report: the construction and post-construction programs for a permit
year (July 1 – June 30). Massachusetts Small MS4 General Permit (2016) Part 2.3.5 (construction site
stormwater runoff control) and 2.3.6 (post-construction stormwater management): plan reviews,
inspections, enforcement, O&M certifications, the BMP inventory."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db.models import Count

from stormwater.rules.inspections import permit_year
from stormwater.web.files import csv_text


@dataclass(frozen=True)
class Row:
    program: str
    measure: str
    count: int
    source: str


def _span(year: int):
    start, end = permit_year(year)
    tz = ZoneInfo(settings.TIME_ZONE)
    return start, end, datetime.combine(start, time.min, tz), datetime.combine(end, time.max, tz)


def ms4_counts(year: int) -> list[Row]:
    from stormwater.cases.models import CaseEvent
    from stormwater.construction.models import (ConstructionProject, EnforcementReferral, Inspection, StopWorkOrder,
                                                Violation)
    from stormwater.permits.models import PermitApplication

    from .models import AnnualCertification, Bmp, MaintenanceNotice, Structure

    start, end, t0, t1 = _span(year)
    rows = [
        Row("Construction", "Plan reviews begun (applications determined complete)",
            CaseEvent.objects.filter(case__kind="permit", kind="status", to_status="under_review",
                                     from_status="filed", on__range=(start, end)).count(), "permits: § 380-10 D"),
        Row("Construction", "Permit decisions made", PermitApplication.objects.filter(
            decided_on__range=(start, end)).exclude(decision="").count(), "permits: § 380-10 I(1)"),
        Row("Construction", "Permits issued (approved, with or without conditions)",
            PermitApplication.objects.filter(issued_on__range=(start, end)).count(), "permits: § 380-10 I(1)(a)–(b)"),
        Row("Construction", "Projects started (land disturbance)",
            ConstructionProject.objects.filter(started_on__range=(start, end)).count(), "§ 380-10 K"),
    ]
    by_kind = dict(Inspection.objects.filter(inspected_at__range=(t0, t1)).values_list("kind").annotate(n=Count("id")))
    from stormwater.construction.models import InspectionKind

    rows.append(Row("Construction", "Construction site inspections (all)", sum(by_kind.values()), "§ 380-16 C(4)"))
    for k in InspectionKind:
        rows.append(Row("Construction", f"— {k.label}", by_kind.get(k.value, 0), "§ 380-16 C(4)"))
    rows += [
        Row("Construction", "Enforcement: written violation notices",
            Violation.objects.filter(found_on__range=(start, end), kind="notice").count(), "§ 380-16 C(4)(e)[5]"),
        Row("Construction", "Enforcement: stop-work orders",
            StopWorkOrder.objects.filter(issued_on__range=(start, end)).count(), "§ 380-16 C(4)(e)[5]"),
        Row("Construction", "Enforcement: referrals (§ 380-19)",
            EnforcementReferral.objects.filter(referred_on__range=(start, end)).count(), "§ 380-19"),
        Row("Construction", "Certificates of completion issued",
            ConstructionProject.objects.filter(certificate_on__range=(start, end)).count(), "§ 380-18"),
        Row("Post-construction", "Annual O&M certifications received",
            AnnualCertification.objects.filter(received_on__range=(start, end)).count(), "§ 380-14 C(2)(l)"),
        Row("Post-construction", "— of which late",
            AnnualCertification.objects.filter(received_on__range=(start, end), late=True).count(), "§ 380-14 C(2)(l)"),
        Row("Post-construction", "Failure-to-maintain notices",
            MaintenanceNotice.objects.filter(noticed_on__range=(start, end)).count(), "§ 380-14 E"),
        Row("Post-construction", "Failure-to-maintain enforcement referrals",
            MaintenanceNotice.objects.filter(referred_on__range=(start, end)).count(), "§ 380-14 E"),
        Row("Post-construction", "BMPs in the inventory at year end",
            Bmp.objects.filter(added_on__lte=end).count(), "§ 380-14 C(2)(c)"),
        Row("Post-construction", "BMPs added during the year",
            Bmp.objects.filter(added_on__range=(start, end)).count(), "§ 380-14 C(2)(c)"),
    ]
    cats = dict(Bmp.objects.filter(added_on__lte=end).values_list("region1_category").annotate(n=Count("id")))
    for cat in sorted(cats, key=lambda c: (c == "", c)):
        rows.append(Row("Post-construction", f"— BMPs, EPA Region 1 category: {cat or '(none applies)'}", cats[cat],
                        "§ 380-11 A(4)"))
    rows.append(Row("Post-construction", "Drainage structures in the inventory",
                    Structure.objects.count(), "inventory import"))
    return rows


def ms4_csv(year: int) -> str:
    start, end = permit_year(year)
    return csv_text(["permit_year", "from", "to", "program", "measure", "count", "source"],
                    ([f"{year - 1}-{year}", start, end, r.program, r.measure, r.count, r.source]
                     for r in ms4_counts(year)))
