"""The acts on a permit file (Ch. 380 § 380-10), gathered in one place for the views, the API, the commands and the
other apps (``from stormwater.permits import services``).

Each act is atomic, audited and on the case timeline. Status moves go through ``cases.services.case_transition``
(the table in ``workflow``); the preconditions each move needs are checked in the act and refused with a message
naming the rule. The acts live in the modules named for their family:

- ``application``: the draft, its documents and checklist, the fees, the abutters (§ 380-10 B, H(1));
- ``filing``: filing and its notices, completeness, information requests, extensions, withdrawal
  (§ 380-10 D–F, I(2));
- ``consultant_account``: the outside consultant and the MGL c.44 §53G special account (§ 380-10 G(2));
- ``decision``: the Director's written action and the closing of the file (§ 380-10 I(1), § 380-11, § 380-18);
- ``after_approval``: project changes and the start of the project (§ 380-10 J, K);
- ``waivers`` (§ 380-8), ``rulemaking`` (§ 380-7), ``people`` (linked design engineers, contractors, agents);
- ``acts``: what they share (``PermitError``, the row lock, the file's letters); ``terms``: the clock lengths and the
  linkable roles, which the reads (``selectors``, ``documents``) share with the acts.

This module defines no act: it re-exports each family's names, so every name callers took from it is still here.
Code inside this package imports from the family module itself.
"""
from stormwater.cases.services import TransitionError  # the refusal of a status move, raised by the acts

from . import workflow as wf
from .acts import ERR_FUTURE_DATE, PermitError
from .application import (ERR_ABUTTERS_EMPTY, ERR_DRAFT_ONLY, ERR_FEE_PAID_ONLINE, ERR_NOT_YOUR_PARCEL, abutters_mailed,
                          abutters_set,
                          checklist_confirm, parse_abutters, permit_application_start, permit_document_upload,
                          permit_fees_paid)
from .filing import (ERR_CURE_DATE, ERR_CURE_NOT_PASSED, ERR_INCOMPLETE_ITEMS, ERR_ITEMS_STILL_MISSING,
                     ERR_NOTHING_MISSING, ERR_NOT_OWNER, ERR_NO_INFO, filing_recipients, permit_deny_incomplete,
                     permit_determine_complete, permit_determine_incomplete, permit_extend, permit_fee_received_online,
                     permit_file,
                     permit_information_received, permit_items_received, permit_request_information, permit_withdraw,
                     permittee_check)
from .consultant_account import (ERR_AMOUNT, ERR_APPEAL_GROUND, ERR_APPEAL_LATE, ERR_EXPENDITURE_NO_ENGAGEMENT,
                                 ERR_FEE_PAID, ERR_FEE_POSITIVE, ERR_NOTHING_TO_REFUND, ERR_NOT_CLOSED, ERR_NOT_OVERDUE,
                                 ERR_NO_CONSULTANT_COST, ERR_NO_ENGAGEMENT, ERR_NO_OPEN_APPEAL, ERR_OVERDRAWN,
                                 ERR_PAYMENT_STOPPED, ERR_QUALIFIED, ERR_SUCCESSOR_DOCS, account_expenditure,
                                 account_interest, account_refund, account_report, consultant_additional_fee,
                                 consultant_appeal_decide, consultant_appeal_file, consultant_fee_deposit,
                                 consultant_select, permit_deny_nonpayment)
from .decision import (ERR_CLOSE_CONSTRUCTION, ERR_CONDITIONS, ERR_CONDITIONS_KIND, ERR_CONSULTANT_UNPAID, ERR_FINDINGS,
                       ERR_SHEET, ERR_STANDARDS, ERR_WAIVERS_OPEN, STANDARDS, approved_sheets_parse, permit_close,
                       permit_decide)
from .after_approval import (ERR_NOT_APPROVED, ERR_START_NO_FILE, ERR_START_VIA_FILE, project_change_determine,
                             project_change_notify, project_start_extend, project_start_record)
from .waivers import (ERR_WAIVER_COMMENT, ERR_WAIVER_FINDINGS, ERR_WAIVER_JUSTIFY, waiver_applicant_declines,
                      waiver_decide, waiver_info_provided, waiver_public_comment, waiver_request, waiver_request_info)
from .rulemaking import ERR_HEARING_NOTICE, rule_hearing_create
from .people import (ERR_PARTIES_WHO, ERR_PARTY_NOT_LINKED, ERR_PARTY_ROLE, ERR_PARTY_TWICE, ERR_PARTY_WHO,
                     permit_party_link, permit_party_unlink)
from .terms import (ACTION_DAYS, APPEAL_DAYS, HEARING_NOTICE_DAYS, LINKABLE_ROLES, MIN_YEARS_PRACTICE,
                    PAYMENT_BUSINESS_DAYS, REFUND_DAYS, START_MONTHS, WITHDRAWAL_DAYS)

S = wf.Status
