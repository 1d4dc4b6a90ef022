"""The permit's people (issue 18): a signed-up design engineer, contractor or agent of the owner linked to a permit,
so that they see it (``selectors.permits_for_user``), or unlinked; the case timeline keeps both."""
from __future__ import annotations

from django.db import transaction

from stormwater.audit.services import audit_record
from stormwater.cases.models import CaseParty
from stormwater.cases.services import event_record

from .acts import PermitError, _lock
from .models import PermitApplication
from .terms import LINKABLE_ROLES

ERR_PARTY_ROLE = "Link a person as the design engineer, the contractor or the owner's agent."
ERR_PARTY_WHO = "No active account has the username or e-mail address {who!r}: ask them to sign up first."
ERR_PARTY_TWICE = "{name} is already linked to this permit as its {role}."
ERR_PARTY_NOT_LINKED = "{name} is not linked to this permit as its {role}."
ERR_PARTIES_WHO = "Only the applicant or staff link people to this permit."


def _account(who: str):
    from stormwater.accounts.models import User

    who = (who or "").strip()
    qs = User.objects.filter(is_active=True)
    found = list(qs.filter(email__iexact=who)[:2]) if "@" in who else []
    if len(found) != 1:
        found = list(qs.filter(username__iexact=who)[:1])
    if not who or not found:
        raise PermitError(ERR_PARTY_WHO.format(who=who), field="who")
    return found[0]


@transaction.atomic
def permit_party_link(*, application: PermitApplication, who: str, role: str, acting_user) -> CaseParty:
    """Link a signed-up person (username or e-mail) to the permit as its design engineer, contractor or the owner's
    agent: they then see the permit, and a design engineer adds its plan documents and attaches reviews to it
    (``permits.selectors.permits_for_user``). The applicant or staff link them (the view checks who may)."""
    if role not in LINKABLE_ROLES:
        raise PermitError(ERR_PARTY_ROLE, field="role")
    app = _lock(application)
    user = _account(who)
    name = user.get_full_name() or user.username
    if app.case.parties.filter(user=user, role=role).exists():
        raise PermitError(ERR_PARTY_TWICE.format(name=name, role=LINKABLE_ROLES[role]), field="who")
    party = CaseParty.objects.create(case=app.case, role=role, name=name[:200], email=user.email, user=user)
    event_record(case=app.case, kind="party", acting_user=acting_user,
                 why=f"{name} linked as the {LINKABLE_ROLES[role]}", data={"user": user.pk, "role": role})
    audit_record(actor=acting_user, action="permit.party_link", obj=app, data={"user": user.pk, "role": role})
    return party


@transaction.atomic
def permit_party_unlink(*, application: PermitApplication, party_id: int, acting_user) -> None:
    """Remove a linked person (they no longer see the permit through it); the timeline keeps that they were."""
    app = _lock(application)
    party = app.case.parties.filter(pk=party_id, role__in=list(LINKABLE_ROLES), user__isnull=False).first()
    if party is None:
        raise ValueError("No such linked person on this permit.")
    event_record(case=app.case, kind="party", acting_user=acting_user,
                 why=f"{party.name} no longer linked as the {LINKABLE_ROLES[party.role]}",
                 data={"user": party.user_id, "role": party.role})
    audit_record(actor=acting_user, action="permit.party_unlink", obj=app, data={"user": party.user_id,
                                                                               "role": party.role})
    party.delete()
