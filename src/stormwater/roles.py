"""Roles and what each may do. One table, checked by every view and endpoint (accounts.access).

It sits at the foundation (docs/architecture.md "Layers"): the town configuration checks role names against it
and the toolkit's template tags ask it who may open a page; ``accounts.roles`` re-exports it."""
from __future__ import annotations

from django.db import models


class Role(models.TextChoices):
    DIRECTOR = "director", "DPW Director"
    STAFF = "staff", "Stormwater staff"
    COLLECTOR = "collector", "Collector / Finance"
    ASSESSOR = "assessor", "Assessor"
    CLERK = "clerk", "Select Board clerk"
    INSPECTOR = "inspector", "Inspector"
    CONSULTANT = "consultant", "Consultant"
    OWNER = "owner", "Owner / Applicant"


class Perm:
    PARCEL_VIEW_ALL = "parcel.view_all"          # every parcel, not only one's own
    PARCEL_CLASSIFY = "parcel.classify"          # manual class override (with reason)
    PARCEL_EDIT = "parcel.edit"                  # owners, associations, assessor data
    RATES_VIEW = "rates.view"
    RATES_ADOPT = "rates.adopt"                  # enter a Select Board rate resolution
    BILLING_VIEW_ALL = "billing.view_all"        # every bill, account and ledger
    BILLING_RUN = "billing.run"                  # prepare a bill run's proof, discard a proof, record the mailing
    BILLING_APPROVE = "billing.approve"          # approve a proof (issues the bills), void an unmailed run
    AUDIT_VIEW = "audit.view"
    PAYMENT_POST = "payment.post"                # post payments and lockbox files
    COLLECT = "collect"                          # demands, commitments/liens, back bills, reversals, close periods
    # The Collector's office (issue 17; docs/collector.md): deposits and their reconciliation, refund vouchers
    # requested, municipal lien certificates issued, the general ledger export are COLLECT; approving a refund
    # voucher is its own permission (and never by the person who requested it: cashier.refunds).
    REFUND_APPROVE = "refund.approve"
    FUND_VIEW = "fund.view"                      # Stormwater Management Account, rate model, fund reports
    FUND_BUDGET = "fund.budget"                  # enter budget lines and other revenue of the account
    # Ch. 380 permits (docs/permits.md "Who does what")
    PERMIT_APPLY = "permit.apply"                # start/file an application (owner or agent; staff for walk-ins)
    PERMIT_VIEW_ALL = "permit.view_all"          # every permit file, not only one's own
    PERMIT_REVIEW = "permit.review"              # completeness, notices, information requests, extensions
    PERMIT_DECIDE = "permit.decide"              # Director: decisions, consultant selection, waivers, rules
    PERMIT_ACCOUNT = "permit.account"            # 53G special account: deposits, interest, refunds
    PERMIT_APPEAL_RECORD = "permit.appeal_record"  # record the Select Board's decision on a consultant appeal
    PERMIT_CONSULT = "permit.consult"            # outside consultant: the files they are engaged on
    # Ch. 295 Art. IV ¶B, ¶E, ¶F: GIS (docs/gis.md)
    GIS_VIEW = "gis.view"                        # impervious surveys, ERU determination, change reports, exports
    GIS_IMPORT = "gis.import"                    # import assessor records and GIS layers as a dated survey
    # Ch. 380 engineering review (issue 7; docs/engineering.md "Review")
    REVIEW_RUN = "review.run"                    # upload a plan, run the review, see one's own/case's reviews
    REVIEW_VIEW_ALL = "review.view_all"          # every review run
    BMP_TABLES_LOAD = "bmp_tables.load"          # load / retire official BMP performance tables (DPW engineer)
    # Ch. 380 construction and stewardship (issue 8; docs/construction.md "Who does what")
    INSPECT = "construction.inspect"             # every project: inspection reports, rain, areas, violations
    INSPECTION_FILE = "construction.file"        # file reports on one's own projects (design engineer, ESC inspector)
    CONSTRUCTION_MANAGE = "construction.manage"  # open projects, stop-work orders, as-builts, certificate
    SURETY = "construction.surety"               # post, release and forfeit surety (Director, Finance)
    STEWARDSHIP = "stewardship.manage"           # O&M plans, easements, inventory, certifications, notices
    # Ch. 295 Art. IV credits, abatements, appeals (issue 5; docs/relief.md "Who does what")
    RELIEF_APPLY = "relief.apply"                # apply for a credit or an abatement, appeal (own parcels/bills)
    RELIEF_VIEW_ALL = "relief.view_all"          # every credit, abatement and appeal case; the work queue
    RELIEF_REVIEW = "relief.review"              # completeness, record transmittal, recertification, paper filings
    RELIEF_DECIDE = "relief.decide"              # Director: decide credits and abatements, revoke credits
    RELIEF_POLICY = "relief.policy"              # enter the credit policy the Select Board approved
    APPEAL_RECORD = "relief.appeal_record"       # Select Board clerk: hearings, notices, the Board's decisions
    # People (issue 14; docs/accounts.md): the Director's users page — create accounts, change roles,
    # deactivate/reactivate, reset someone's two-factor sign-in. The Director only (every Perm is the Director's).
    USERS_MANAGE = "users.manage"
    # Issue 15: tokens for other systems (docs/api.md)
    API_TOKENS = "api.tokens"                    # Director: issue and revoke API tokens


_ALL = {v for k, v in vars(Perm).items() if k.isupper()}

ROLE_PERMS: dict[str, frozenset[str]] = {
    Role.DIRECTOR: frozenset(_ALL),
    Role.STAFF: frozenset({Perm.PARCEL_VIEW_ALL, Perm.PARCEL_CLASSIFY, Perm.PARCEL_EDIT, Perm.RATES_VIEW,
                           Perm.GIS_VIEW, Perm.GIS_IMPORT,
                           Perm.BILLING_VIEW_ALL, Perm.BILLING_RUN, Perm.AUDIT_VIEW, Perm.FUND_VIEW,
                           Perm.PERMIT_APPLY, Perm.PERMIT_VIEW_ALL, Perm.PERMIT_REVIEW,
                           Perm.REVIEW_RUN, Perm.REVIEW_VIEW_ALL, Perm.BMP_TABLES_LOAD,
                           Perm.RELIEF_APPLY, Perm.RELIEF_VIEW_ALL, Perm.RELIEF_REVIEW,
                           Perm.INSPECT, Perm.INSPECTION_FILE, Perm.CONSTRUCTION_MANAGE, Perm.STEWARDSHIP}),
    Role.COLLECTOR: frozenset({Perm.PARCEL_VIEW_ALL, Perm.RATES_VIEW, Perm.BILLING_VIEW_ALL, Perm.BILLING_RUN,
                               Perm.BILLING_APPROVE,
                               Perm.PAYMENT_POST, Perm.COLLECT, Perm.REFUND_APPROVE,
                               Perm.AUDIT_VIEW, Perm.FUND_VIEW, Perm.FUND_BUDGET,
                               Perm.PERMIT_VIEW_ALL, Perm.PERMIT_ACCOUNT, Perm.RELIEF_VIEW_ALL,
                               Perm.SURETY}),
    Role.ASSESSOR: frozenset({Perm.PARCEL_VIEW_ALL, Perm.PARCEL_EDIT, Perm.RATES_VIEW, Perm.GIS_VIEW, Perm.GIS_IMPORT}),
    Role.CLERK: frozenset({Perm.PARCEL_VIEW_ALL, Perm.RATES_VIEW, Perm.RATES_ADOPT, Perm.BILLING_VIEW_ALL, Perm.GIS_VIEW,
                        Perm.FUND_VIEW, Perm.PERMIT_VIEW_ALL, Perm.PERMIT_APPEAL_RECORD,
                        Perm.RELIEF_VIEW_ALL, Perm.RELIEF_POLICY, Perm.APPEAL_RECORD}),
    Role.INSPECTOR: frozenset({Perm.PARCEL_VIEW_ALL, Perm.PERMIT_VIEW_ALL, Perm.INSPECT, Perm.INSPECTION_FILE}),
    Role.CONSULTANT: frozenset({Perm.PERMIT_CONSULT, Perm.REVIEW_RUN, Perm.INSPECTION_FILE}),
    Role.OWNER: frozenset({Perm.PERMIT_APPLY, Perm.RELIEF_APPLY, Perm.INSPECTION_FILE}),
}


def role_has(role: str, perm: str) -> bool:
    return perm in ROLE_PERMS.get(role, frozenset())
