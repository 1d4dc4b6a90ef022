"""Reads of stewardship records. ``site_get_for_user`` is the only way a view reaches a site: staff and
inspectors see all; an owner or responsible party sees their own; anything else is 404."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from django.db.models import Prefetch, Q, QuerySet
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.rules.calendar import roll_forward
from stormwater.rules.inspections import certification_due

from .models import Easement, OMPlan, PartyRole, ResponsibleParty, Site

ERR_NOT_FOUND = "No such site."
EARLY_DAYS = 30     # a certification may be filed from 30 days before it is due (the year is nearly over)
REMIND_DAYS = 30    # reminders go out 30 days before the due date


def sites_for_user(user) -> QuerySet[Site]:
    qs = Site.objects.select_related("case", "permit")
    if user.can(Perm.STEWARDSHIP) or user.can(Perm.INSPECT) or user.can(Perm.PERMIT_VIEW_ALL):
        return qs
    return qs.filter(Q(owner_user=user) | Q(parties__user=user, parties__until__isnull=True)
                     | Q(permit__case__applicant=user)).distinct()


def site_get_for_user(*, user, number: str) -> Site:
    site = sites_for_user(user).filter(case__number=number).first()
    if site is None:
        raise Http404(ERR_NOT_FOUND)
    return site


def current_parties(site: Site) -> list[ResponsibleParty]:
    return list(site.parties.filter(until__isnull=True).order_by("role", "id"))


def final_plan_recorded(site: Site) -> OMPlan | None:
    """The latest final O&M plan recorded at the Registry with proof (§ 380-14 B)."""
    for plan in site.plans.filter(final=True, recorded_on__isnull=False).order_by("-version"):
        if plan.recorded and plan.proof_document_id:
            return plan
    return None


def easements_missing(site: Site) -> list[str]:
    """§ 380-14 D(4): easements recorded before the certificate of completion (naming each that is not)."""
    out = []
    eas = list(site.easements.all())
    if not eas and not site.easements_not_required_reason:
        out.append("stormwater management easements: none entered (enter them, or record that none is "
                   "necessary, § 380-14 D(1), D(3))")
    for e in eas:
        if not e.recorded:
            out.append(f"easement “{e.get_purpose_display()} — {e.location}” (grantor {e.grantor}) recorded at the "
                       "Hampden County Registry of Deeds (§ 380-14 D(4))")
    return out


@dataclass(frozen=True)
class CertificationDue:
    plan: OMPlan
    seq: int
    period_start: date
    period_end: date
    due_on: date
    opens_on: date

    @property
    def site(self) -> Site:
        return self.plan.site


def certification_period(plan: OMPlan, seq: int) -> CertificationDue:
    """Year ``seq`` of a recorded plan: the 12 months from the recording anniversary, due on the next
    anniversary rolled past a weekend/holiday (§ 380-14 C(2)(l); MGL c.4 §9)."""
    start = plan.recorded_on if seq == 1 else certification_due(plan.recorded_on, seq - 1)
    end_anniv = certification_due(plan.recorded_on, seq)
    due = roll_forward(end_anniv)
    return CertificationDue(plan=plan, seq=seq, period_start=start, period_end=end_anniv - timedelta(days=1),
                            due_on=due, opens_on=end_anniv - timedelta(days=EARLY_DAYS))


def next_certification(plan: OMPlan) -> CertificationDue:
    filed = set(plan.certifications.values_list("seq", flat=True))
    seq = 1
    while seq in filed:
        seq += 1
    return certification_period(plan, seq)


def _final_plans_prefetch() -> Prefetch:
    """Each site's recorded final plans, newest first, with their certifications: read once for many sites."""
    return Prefetch("plans", to_attr="recorded_final_plans",
                    queryset=OMPlan.objects.filter(final=True, recorded_on__isnull=False).order_by("-version")
                    .prefetch_related("certifications"))


def certifications_due(*, today: date, within_days: int | None = None, sites: QuerySet[Site] | None = None
                       ) -> list[CertificationDue]:
    """The next certification of every plan in force; ``within_days`` keeps those due by today + N; ``sites``
    restricts the sites (e.g. ``sites_for_user``). Three queries whatever the number of sites (the plan in force
    and the next year are ``final_plan_recorded`` and ``next_certification`` over prefetched rows)."""
    qs = (Site.objects.all() if sites is None else sites).select_related("case").prefetch_related(
        _final_plans_prefetch())
    out = []
    for site in qs:
        plan = next((p for p in site.recorded_final_plans if p.recorded and p.proof_document_id), None)
        if plan is None:
            continue
        filed = {c.seq for c in plan.certifications.all()}
        seq = 1
        while seq in filed:
            seq += 1
        d = certification_period(plan, seq)
        if within_days is None or d.due_on <= today + timedelta(days=within_days):
            out.append(d)
    return sorted(out, key=lambda d: d.due_on)


def certifications_overdue(*, today: date) -> list[CertificationDue]:
    """The overdue list: certifications whose due date has passed without one received."""
    return [d for d in certifications_due(today=today) if d.due_on < today]


def responsible_emails(site: Site) -> list[str]:
    return sorted({p.email for p in current_parties(site) if p.email and p.role in (PartyRole.OWNER,
                                                                                      PartyRole.OPERATOR)})


def easements_recorded(site: Site) -> list[Easement]:
    return [e for e in site.easements.all() if e.recorded]


def certifications_next_many(sites) -> dict[int, tuple[OMPlan, CertificationDue]]:
    """Site pk → (its final O&M plan recorded with proof, the next annual certification due) for every site in
    ``sites`` (a queryset), in two queries: the same rule as ``final_plan_recorded`` and ``next_certification``
    (§ 380-14 B, C(2)(l)), for a list of sites (issue 16)."""
    from .models import OMPlan

    plans = (OMPlan.objects.filter(site__in=sites, final=True, recorded_on__isnull=False)
             .order_by("site_id", "-version").prefetch_related("certifications"))
    out: dict[int, tuple[OMPlan, CertificationDue]] = {}
    for plan in plans:
        if plan.site_id in out or not (plan.recorded and plan.proof_document_id):
            continue
        filed = {c.seq for c in plan.certifications.all()}
        seq = 1
        while seq in filed:
            seq += 1
        out[plan.site_id] = (plan, certification_period(plan, seq))
    return out
