"""Reads of permit files. ``permit_get_for_user`` is the only way a view or endpoint reaches one:
an applicant reaches their own files, a consultant the files they are engaged on, staff all of them;
anything else is 404 (no probing of numbers)."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import Http404

from stormwater.accounts.roles import Perm
from stormwater.cases.selectors import case_clock, case_clocks
from stormwater.parcels.models import Owner, Parcel
from stormwater.parcels.selectors import parcels_for_user
from stormwater.rules.money import ZERO, fmt, fmt_usd
from stormwater.rules.permit_fees import FeeTerms, account_summary, fees_total, permit_fees

from . import workflow as wf
from .models import AccountEntry, PermitApplication, PermitFeeSchedule
from .terms import LINKABLE_ROLES

ERR_NOT_FOUND = "No such permit application."
ERR_NOT_APPLICANT = "Only the applicant (or staff recording a paper filing) may do this."


def permits_for_user(user) -> QuerySet[PermitApplication]:
    qs = PermitApplication.objects.select_related("case", "owner")
    if user.can(Perm.PERMIT_VIEW_ALL):
        return qs
    parties = Q(case__parties__user=user)  # issue 18: the people linked to the permit (design engineer, contractor …)
    if user.can(Perm.PERMIT_CONSULT):
        return qs.filter(Q(consultants__user=user) | parties).distinct()
    return qs.filter(Q(case__applicant=user) | Q(owner__user=user) | parties).distinct()


def permit_get_for_user(*, user, number: str) -> PermitApplication:
    app = permits_for_user(user).filter(case__number=number).first()
    if app is None:
        raise Http404(ERR_NOT_FOUND)
    return app


def is_applicant(user, app: PermitApplication) -> bool:
    """The person who filed (owner or agent) or the owner-permittee's own sign-in."""
    return app.case.applicant_id == user.pk or (app.owner is not None and app.owner.user_id == user.pk)


def is_design_engineer(user, app: PermitApplication) -> bool:
    """A design engineer the applicant or staff linked to the permit (issue 18): adds the plan's documents."""
    from stormwater.cases.models import PartyRole

    return app.case.parties.filter(user=user, role=PartyRole.DESIGN_ENGINEER).exists()


def may_upload(user, app: PermitApplication, tag: str) -> bool:
    """Who adds a document to the file: the applicant or staff (``may_act_for_applicant``), the linked design
    engineer (issue 18), an outside consultant only their report."""
    if user.can(Perm.PERMIT_CONSULT) and tag == "consultant_report":
        return True
    return may_act_for_applicant(user, app) or is_design_engineer(user, app)


def may_act_for_applicant(user, app: PermitApplication) -> bool:
    """Applicant acts (upload, file, respond, withdraw, appeal): the applicant, or staff recording a paper filing."""
    return (user.can(Perm.PERMIT_APPLY) and is_applicant(user, app)) or user.can(Perm.PERMIT_REVIEW)


def permit_get_for_applicant(*, user, number: str) -> PermitApplication:
    """A file reached as for ``permit_get_for_user`` (404 otherwise), for an applicant act (403 unless
    ``may_act_for_applicant``). The web views and the JSON API both use it."""
    app = permit_get_for_user(user=user, number=number)
    if not may_act_for_applicant(user, app):
        raise PermissionDenied(ERR_NOT_APPLICANT)
    return app


def permit_site_parcels(*, user, parcel_ids: list[str]) -> tuple[list[Parcel], list[str], list[str]]:
    """The site parcels a user may name on a new application (issue 14): permit staff any parcel (a walk-in or an
    agent's filing), anyone else only their own (``parcels_for_user``). → (parcels, unknown ids, ids that exist but
    are not theirs). Parcel ids are public (the portal's lookup), so saying "not yours" reveals nothing."""
    found = list(Parcel.objects.filter(parcel_id__in=parcel_ids).select_related("owner"))
    unknown = sorted(set(parcel_ids) - {p.parcel_id for p in found})
    if user.can(Perm.PERMIT_REVIEW):
        return found, unknown, []
    mine = set(parcels_for_user(user=user).filter(pk__in=[p.pk for p in found]).values_list("pk", flat=True))
    return [p for p in found if p.pk in mine], unknown, sorted(p.parcel_id for p in found if p.pk not in mine)


def permit_owner_for(*, user, parcels):
    """The permittee of a new draft: the owner of record of the first site parcel; failing that, an owner
    (not staff) applying for themselves is the permittee (§ 380-10 B(1))."""
    owner = parcels[0].owner if parcels and parcels[0].owner else None
    if owner is None and user.can(Perm.PERMIT_APPLY) and not user.is_staff_role:
        owner = Owner.objects.filter(user=user).first()
    return owner


def fee_schedule_in_force(on: date) -> PermitFeeSchedule | None:
    return PermitFeeSchedule.objects.filter(effective_from__lte=on).order_by("-effective_from", "-id").first()


def fee_terms(schedule: PermitFeeSchedule) -> FeeTerms:
    return FeeTerms(application_fee=schedule.application_fee, inspection_fee_per_acre=schedule.inspection_fee_per_acre,
                    technical_review_fee_per_acre=schedule.technical_review_fee_per_acre)


def account_entries(app: PermitApplication) -> list[AccountEntry]:
    return list(app.account_entries.order_by("on", "id"))


def account_of(app: PermitApplication) -> dict[str, Decimal]:
    """Deposits, interest, expenditures, refunds and the balance of the project's 53G account."""
    return account_summary([(e.kind, e.amount) for e in app.account_entries.all()])


def account_balance_of(app: PermitApplication) -> Decimal:
    return account_of(app)["balance"] if app.account_entries.exists() else ZERO


def current_engagement(app: PermitApplication):
    return app.consultants.exclude(state="disqualified").order_by("-id").first()


def action_clock(app: PermitApplication):
    return case_clock(app.case, wf.ACTION)


def permit_clocks(app: PermitApplication, *, today: date | None = None):
    return case_clocks(app.case, today=today)


def checklist_missing(app: PermitApplication) -> list[str]:
    from .checklist import BY_KEY

    return [f"{BY_KEY[i.key].label} ({BY_KEY[i.key].citation})" for i in app.checklist.all() if not i.done]


ERR_NOT_READY = ("The application cannot be filed yet: the package is filed complete and the fees are paid with it "
                 "(§ 380-10 B(1), G(1), H(1)).")
ERR_NOT_READY_MISSING = "Missing: {items}."
ERR_NOT_READY_FEE = ("The application fees of {total} are not paid: pay them at the DPW Stormwater Division counter, "
                     "where staff record the receipt (§ 380-10 B(1)(e), G(1)).")
ERR_NOT_READY_FEE_UNKNOWN = ("The application fees are not paid: pay them at the DPW Stormwater Division counter, where "
                             "staff record the receipt (§ 380-10 B(1)(e), G(1)).")


@dataclass
class FilingReadiness:
    """What filing needs (issue 30): § 380-10 B(1) "a completed application package" — each item in, or not
    applicable with its reason — and (e) with G(1) "the DPW shall obtain with each submission" the fees. The fee due
    is the one recorded with the payment, or before it the schedule in force on the day."""
    missing: list[str]
    fee_lines: list[dict]
    fee_total: Decimal | None
    schedule: PermitFeeSchedule | None
    paid_on: date | None
    receipt: str

    @property
    def fee_paid(self) -> bool:
        return self.paid_on is not None

    @property
    def ready(self) -> bool:
        return not self.missing and self.fee_paid

    def refusal(self) -> str | None:
        """The one wording the service, the page and the API give: each missing item, the unpaid fee."""
        if self.ready:
            return None
        parts = [ERR_NOT_READY]
        if self.missing:
            parts.append(ERR_NOT_READY_MISSING.format(items="; ".join(self.missing)))
        if not self.fee_paid:
            parts.append(ERR_NOT_READY_FEE.format(total=fmt_usd(self.fee_total)) if self.fee_total is not None
                         else ERR_NOT_READY_FEE_UNKNOWN)
        return " ".join(parts)


def fees_due(app: PermitApplication, on: date) -> tuple[list[dict], Decimal | None, PermitFeeSchedule | None]:
    """The fee lines, their total and the schedule: as recorded on the file, else from the schedule in force on
    ``on`` (§ 380-10 G(1))."""
    if app.fees_total is not None:
        return list(app.fees), app.fees_total, app.fee_schedule
    schedule = fee_schedule_in_force(on)
    if schedule is None:
        return [], None, None
    lines = permit_fees(app.disturbance_sqft, fee_terms(schedule))
    return ([{"label": x.label, "amount": fmt(x.amount), "citation": x.citation} for x in lines], fees_total(lines),
            schedule)


def filing_readiness(app: PermitApplication, on: date) -> FilingReadiness:
    from .checklist import BY_KEY

    missing = [f"{BY_KEY[i.key].label} ({BY_KEY[i.key].citation})" for i in app.checklist.all()
               if not i.done and i.key != "fees"]  # the fee is said with its amount
    lines, total, schedule = fees_due(app, on)
    return FilingReadiness(missing=missing, fee_lines=lines, fee_total=total, schedule=schedule,
                           paid_on=app.fees_paid_on, receipt=app.fees_receipt)


def permit_people(app: PermitApplication):
    """The signed-up people linked to the permit (issue 18): design engineer, contractor, the owner's agent — as the
    permit page's "People on this permit", ``GET /api/permits/<n>/parties/`` and ``stormwater permit parties`` list
    them."""
    return (app.case.parties.filter(user__isnull=False, role__in=list(LINKABLE_ROLES))
            .select_related("user", "user__registration").order_by("id"))


def party_json(party) -> dict:
    """One linked person as the API and the CLI show them (what the permit page shows: no e-mail address)."""
    reg = getattr(party.user, "registration", None) if party.user_id else None
    return {"id": party.pk, "role": party.role, "role_label": party.get_role_display(), "name": party.name,
            "firm": reg.firm if reg else "", "pe": reg.pe if reg else ""}


@dataclass(frozen=True)
class SheetsProposal:
    """The approved plan sheets proposed to the Director's decision form (issue 18), one line each as the form takes
    them ("number; title; revision; YYYY-MM-DD"), where they were read and what was left out."""

    lines: list[str]
    source: str
    note: str = ""


def approved_sheets_proposed(app: PermitApplication) -> SheetsProposal | None:
    """The sheet index of the plans under review, for the permit's list of approved plan sheets (Ch. 380 § 380-10 I):
    first the newest engineering review of this permit whose plan file lists its ``sheets`` (the design engineer's
    own index, review/plan.py); else the newest plan set PDF filed in the case (review/sheet_index.py: bookmarks,
    title blocks). None when neither has any sheet. Staff check it against the title blocks and edit it; hand entry
    stays (the decision form's field)."""
    from stormwater.review.models import PlanSheetSet, Review
    from stormwater.review.plan import PlanError, plan_parse
    from stormwater.review.sheet_index import sheet_index_from_pdf

    for review in Review.objects.filter(case=app.case).order_by("-created_at", "-id")[:20]:
        try:
            plan, _, _ = plan_parse(review.input_text, name=review.input_name)
        except PlanError:  # a plan the engine has since learnt to refuse: no index from it
            continue
        if plan.sheets:
            return SheetsProposal([s.line() for s in plan.sheets],
                                  f"the plan file of review {review.pk} ({review.input_name or review.title})")
    sheet_set = PlanSheetSet.objects.filter(case=app.case).select_related("document").order_by("-version").first()
    if sheet_set is None:
        return None
    try:
        with sheet_set.document.file.open("rb") as f:
            index = sheet_index_from_pdf(f.read())
    except (OSError, ValueError):
        return None
    if not index.sheets:
        return None
    note = ""
    if index.skipped:
        note = (f"No sheet number was found on page{'s' if len(index.skipped) > 1 else ''} "
                f"{', '.join(map(str, index.skipped))}: add {'them' if len(index.skipped) > 1 else 'it'} by hand.")
    return SheetsProposal([s.line() for s in index.sheets], f"plan set v{sheet_set.version} (PDF, {index.pages} pages)",
                          note)
