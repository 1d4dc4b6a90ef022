from stormwater.accounts.roles import Perm


def nav(request):
    user = getattr(request, "user", None)
    if not user or not user.is_authenticated:
        return {"nav": []}
    items = [("home", "Home"), ("parcel_list", "Parcels")]
    if not user.is_staff_role:
        items.insert(1, ("portal_home", "Online services"))
    if user.can(Perm.GIS_VIEW):
        items.append(("gis_home", "GIS"))
    if user.can(Perm.BILLING_VIEW_ALL):
        items.append(("bill_run_list", "Bill runs"))
    items.append(("bill_list", "Bills"))
    if user.can(Perm.BILLING_RUN):
        items.append(("billing_problems", "Billing problems"))
    if user.can(Perm.PAYMENT_POST):
        items.append(("collections_home", "Collections"))
    if user.can(Perm.RATES_VIEW):
        items.append(("resolution_list", "Rates"))
    if user.can(Perm.FUND_VIEW):
        items.append(("fund_home", "Fund"))
    if user.can(Perm.REVIEW_RUN):
        items.append(("review_list", "Engineering reviews"))
    if user.can(Perm.PERMIT_APPLY) or user.can(Perm.PERMIT_VIEW_ALL) or user.can(Perm.PERMIT_CONSULT):
        items.append(("permit_list", "Permits"))
    if user.can(Perm.PERMIT_REVIEW):
        items.append(("meeting_list", "Pre-application"))
    if user.can(Perm.RELIEF_APPLY) or user.can(Perm.RELIEF_VIEW_ALL):
        items.append(("relief_home", "Credits & appeals"))
    if user.can(Perm.INSPECTION_FILE) or user.can(Perm.INSPECT) or user.can(Perm.SURETY):
        items.append(("construction_list", "Construction"))
    if user.can(Perm.STEWARDSHIP) or user.can(Perm.INSPECT) or user.can(Perm.PERMIT_APPLY):
        items.append(("site_list", "Stewardship"))
    if user.can(Perm.USERS_MANAGE):
        items.append(("user_list", "Users"))
    if user.is_staff_role:
        items.append(("job_list", "Jobs"))
    if user.can(Perm.API_TOKENS):
        items.append(("api_tokens", "API tokens"))
    return {"nav": items}
