"""Everything tied to a parcel, for its page /parcels/<id>/ (issue 16 "Record pages"): its accounts with their
balances and its bills, its impervious surveys over time, credit and abatement cases, credits in force, permits,
construction files and O&M sites — each read through the app's own access function (``*_for_user``), so a person
sees on the parcel page only what they may open anywhere else. The pages gather them because they sit above every
app; the parcel app itself stays below them (parcels ← utility ← relief, permits, construction, stewardship) and
takes this through its registry (``parcels.record``), filled when the pages app is ready
(``pages.apps.PagesConfig.ready``)."""
from __future__ import annotations

from datetime import date

from django.db.models import Q

from stormwater.parcels import record
from stormwater.parcels.models import Parcel, ParcelImpervious
from stormwater.roles import Perm


@record.register
def parcel_record(*, parcel: Parcel, user, today: date) -> dict:
    from stormwater.construction.selectors import projects_for_user
    from stormwater.permits.selectors import permits_for_user
    from stormwater.relief.models import CreditGrant
    from stormwater.relief.selectors import relief_cases_for_user
    from stormwater.stewardship.selectors import sites_for_user
    from stormwater.receivables.owed import DueNow
    from stormwater.utility.selectors import bills_for_user

    # The bills the person may see, and the parcel's accounts with what each owes today ("Due now", the one figure:
    # receivables.owed; only those of their own bills unless they see every bill).
    bills = bills_for_user(user=user).filter(parcel=parcel).prefetch_related("installments")
    accounts = [(a, a.due_now) for a in parcel.accounts.select_related("unit").annotate(due_now=DueNow(as_of=today))]
    if not user.can(Perm.BILLING_VIEW_ALL):
        own = {b.account_id for b in bills}
        accounts = [(a, bal) for a, bal in accounts if a.pk in own]

    surveys = (ParcelImpervious.objects.filter(parcel=parcel).select_related("survey")
               .order_by("-survey__surveyed_on", "-survey_id"))
    relief = (relief_cases_for_user(user)
              .filter(Q(credit_application__parcel=parcel) | Q(abatement__bill__parcel=parcel)
                      | Q(appeal__bill__parcel=parcel) | Q(parent__credit_application__parcel=parcel)
                      | Q(parent__abatement__bill__parcel=parcel))
              .distinct().order_by("-opened_at", "-id"))
    # Credits in force are public facts of the fee (the public parcel page shows them too).
    credits = (CreditGrant.objects.filter(parcel=parcel).select_related("application__case", "credit_type")
               .order_by("-effective_from", "-id"))
    permits = permits_for_user(user).filter(parcels=parcel).select_related("case").distinct().order_by("-case__opened_at")
    projects = (projects_for_user(user).filter(permit__parcels=parcel).select_related("case", "permit__case")
                .distinct().order_by("-case__opened_at"))
    sites = (sites_for_user(user).filter(Q(parcels=parcel) | Q(permit__parcels=parcel)).select_related("case")
             .distinct().order_by("-case__opened_at"))
    return {"bills": bills, "accounts": accounts, "can_gis": user.can(Perm.GIS_VIEW), "surveys": list(surveys),
            "relief_cases": list(relief), "credit_grants": list(credits), "permits": list(permits),
            "projects": list(projects), "sites": list(sites)}
