"""The parts of an open permit file at go-live (issue 32) beyond its path through review (``permit_cases``), each
through the permits domain's own act on its real day so its clock and its money are as if kept here:

- **the outside consultant and the special account** (MGL c.44 §53G; Ch. 380 § 380-10 G(2)): ``consultant_name``,
  ``consultant_degree`` or ``consultant_years`` (G(2)(e): a degree or three years of practice), optional
  ``consultant_firm``, ``consultant_services``, ``consultant_fee`` and ``consultant_notice_on`` (the notice and
  request for payment: the 5-day withdrawal window, the 10-business-day payment countdown and the 10-day appeal window
  from it, ``permits.consultant_account.consultant_select``); ``consultant_paid_on`` (and ``consultant_deposit``,
  default the fee: deposited with the Treasurer, the consultant engaged, ``consultant_fee_deposit``); the account's
  ``account_interest`` with ``account_interest_on`` and ``account_expended`` with ``account_expended_on`` and
  ``account_payee`` (to date, ``account_interest``, ``account_expenditure``: never beyond the balance). A fee
  requested and not paid leaves the file "consultant fee due" with its countdown running;
- **a waiver** (§ 380-8): ``waiver_requirement``, ``waiver_justification``, ``waiver_requested_on``, optional
  ``waiver_comment_from`` (the opportunity for public comment, § 380-8 C), ``waiver_status`` (requested, default;
  granted or denied, with ``waiver_decided_on``: granted on the § 380-8 A findings the old office made);
- **an extension of the action clock** (§ 380-10 I(2)): ``extended_on``, ``extension_days``, ``extension_reason``
  (``permits.filing.permit_extend`` on that day).
"""
from __future__ import annotations

from datetime import date
from decimal import Decimal

from .export import parse_date, parse_money
from .rows import RowRefused

DATES = ("consultant_notice_on", "consultant_paid_on", "account_interest_on", "account_expended_on", "extended_on",
         "waiver_requested_on", "waiver_comment_from", "waiver_decided_on")
TARGETS = (*DATES, "consultant_name", "consultant_firm", "consultant_degree", "consultant_years",
           "consultant_services", "consultant_fee", "consultant_deposit", "account_interest", "account_expended",
           "account_payee", "extension_days", "extension_reason", "waiver_requirement", "waiver_justification",
           "waiver_status")
ALIASES = {"consultant_notice_on": ("consultant_notice", "consultant_selected_on"),
           "consultant_paid_on": ("consultant_fee_paid_on", "deposit_on"), "consultant_deposit": ("deposit",),
           "account_expended": ("account_spent", "expended"), "account_expended_on": ("account_spent_on",),
           "extended_on": ("extension_on", "extension_date"), "extension_days": ("extended_by",),
           "waiver_requested_on": ("waiver_requested", "waiver_filed_on")}
MONEY = ("consultant_fee", "consultant_deposit", "account_interest", "account_expended")
# Together, or not at all: the first column named when the others are given without it.
GROUPS = (("consultant_notice_on", "consultant_name", "consultant_fee"),
          ("consultant_paid_on", "consultant_notice_on"),
          ("account_interest_on", "account_interest"), ("account_interest", "account_interest_on"),
          ("account_expended_on", "account_expended"), ("account_expended", "account_expended_on"),
          ("extended_on", "extension_days"), ("extension_days", "extended_on"), ("extension_reason", "extended_on"),
          ("waiver_requested_on", "waiver_requirement"), ("waiver_requirement", "waiver_requested_on"))
WAIVER = {"requested": "requested", "pending": "requested", "granted": "granted", "denied": "denied"}


def check(get, refuse, today: date, days: dict) -> dict:
    """The consultant's, the waiver's and the extension's values (refusing, by column, what contradicts the rules);
    their days are put in ``days`` beside the file's own."""
    v: dict = {}
    for c in DATES:
        days[c] = parse_date(get(c)) if get(c) else None
        if get(c) and days[c] is None:
            refuse(c, f"{get(c)!r} is not a date")
        elif days[c] and days[c] > today:
            refuse(c, f"{days[c]} is in the future")
    for c in MONEY:
        v[c] = parse_money(get(c)) if get(c) else None
        if get(c) and (v[c] is None or v[c] <= 0):
            refuse(c, f"{get(c)!r} is not an amount of dollars and cents above $0")
    for c in ("consultant_years", "extension_days"):
        v[c] = int(get(c)) if get(c).isdigit() else None
        if get(c) and not v[c]:
            refuse(c, f"{get(c)!r} is not a whole number above 0")
    for given, *needed in GROUPS:
        if get(given):
            for c in needed:
                if not get(c):
                    refuse(c, f"required with {given.replace('_', ' ')}")
    if get("extended_on") and not get("extension_reason"):
        refuse("extension_reason", "required: an extension of the action clock with its reason (§ 380-10 I(2))")
    for later, earlier in (("consultant_paid_on", "consultant_notice_on"),
                           ("waiver_comment_from", "waiver_requested_on"), ("waiver_decided_on", "waiver_requested_on")):
        if days[later] and days[earlier] and days[later] < days[earlier]:
            refuse(later, f"dates out of order: {later.replace('_', ' ')} {days[later]} before "
                          f"{earlier.replace('_', ' ')} {days[earlier]}")
    v["waiver_status"] = WAIVER.get(get("waiver_status").strip().lower() or "requested")
    if v["waiver_status"] is None:
        refuse("waiver_status", f"{get('waiver_status')!r}: requested, granted or denied (§ 380-8)")
    elif v["waiver_status"] != "requested" and get("waiver_requirement") and not get("waiver_decided_on"):
        refuse("waiver_decided_on", f"required: the day the waiver was {v['waiver_status']}")
    elif v["waiver_status"] == "requested" and get("waiver_decided_on"):
        refuse("waiver_decided_on", "the waiver is requested (not decided): a decision's day contradicts it")
    return v


def fee_due(days: dict) -> bool:
    """The consultant's fee requested and not paid: the file waits on it (§ 380-10 G(2)(d))."""
    return bool(days.get("consultant_notice_on") and not days.get("consultant_paid_on"))


def steps(app, d: dict, g: dict, v: dict, user) -> list[tuple]:
    """(day, rank, column, act) of the consultant's, the account's, the waiver's and the extension's acts."""
    from stormwater.permits import services as ps

    out: list[tuple] = []
    if d.get("consultant_notice_on"):
        out.append((d["consultant_notice_on"], 6, "consultant_notice_on", lambda: ps.consultant_select(
            application=app, name=g.get("consultant_name", ""), firm=g.get("consultant_firm", ""),
            degree=g.get("consultant_degree", ""), years_of_practice=v["consultant_years"] or 0,
            services=g.get("consultant_services") or "Review for the old office (converted, issue 32)",
            fee=v["consultant_fee"] or Decimal(0), notice_on=d["consultant_notice_on"], acting_user=user)))
    if d.get("consultant_paid_on"):
        out.append((d["consultant_paid_on"], 7, "consultant_paid_on", lambda: ps.consultant_fee_deposit(
            application=app, amount=v["consultant_deposit"] or v["consultant_fee"], on=d["consultant_paid_on"],
            reference="deposited in the old office (converted)", acting_user=user)))
    if d.get("account_interest_on"):
        out.append((d["account_interest_on"], 10, "account_interest", lambda: ps.account_interest(
            application=app, amount=v["account_interest"], on=d["account_interest_on"],
            reference="credited in the old office (converted)", acting_user=user)))
    if d.get("account_expended_on"):
        out.append((d["account_expended_on"], 11, "account_expended", lambda: ps.account_expenditure(
            application=app, amount=v["account_expended"], on=d["account_expended_on"],
            payee=g.get("account_payee") or g.get("consultant_name", ""),
            memo="Paid from the special account in the old office (converted, issue 32)", acting_user=user)))
    if d.get("extended_on"):
        out.append((d["extended_on"], 12, "extended_on", lambda: ps.permit_extend(
            application=app, days=v["extension_days"] or 0, reason=g.get("extension_reason", ""), acting_user=user,
            on=d["extended_on"])))
    if d.get("waiver_requested_on"):
        w: dict = {}
        out.append((d["waiver_requested_on"], 4, "waiver_requested_on", lambda: w.update(waiver=ps.waiver_request(
            application=app, requirement=g.get("waiver_requirement", ""),
            justification=g.get("waiver_justification", ""), acting_user=user, on=d["waiver_requested_on"]))))
        if d.get("waiver_comment_from"):
            out.append((d["waiver_comment_from"], 5, "waiver_comment_from", lambda: ps.waiver_public_comment(
                waiver=w["waiver"], from_on=d["waiver_comment_from"], acting_user=user,
                note="Opened by the old office (converted, issue 32)")))
        if d.get("waiver_decided_on"):
            grant = v["waiver_status"] == "granted"

            def decide():
                if grant and w["waiver"].public_comment_from is None:
                    raise RowRefused(ps.ERR_WAIVER_COMMENT, "waiver_comment_from")
                ps.waiver_decide(waiver=w["waiver"], grant=grant, findings=(True, True, True) if grant else (),
                                 note="Decided in the old office (converted, issue 32)", acting_user=user,
                                 on=d["waiver_decided_on"])
            out.append((d["waiver_decided_on"], 13, "waiver_decided_on", decide))
    return out


FIELDS = {"degree": "consultant_degree", "fee": "consultant_fee", "justification": "waiver_justification",
          "a1": "waiver_status", "days": "extension_days"}
