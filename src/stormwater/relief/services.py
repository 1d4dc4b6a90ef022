"""The acts on relief cases (Ch. 295 Art. IV credits ¶A–¶E, billing ¶E, appeals ¶A–¶B), gathered in one place for
the views, the API, ``actions`` and the other apps (``from stormwater.relief import services``).

Each act is keyword-only, takes ``acting_user``, runs in one transaction, moves status only through
``cases.services.case_transition`` (the tables in ``workflow``), starts and meets the clocks (``rules.deadlines``
via ``cases.Clock``), writes the PDF of each step into the case file and mails it after commit where an address is
on file. Refusals raise ReliefError naming the rule and the date. The acts live in the modules named for their
family:

- ``credits``: the credit policy, an owner's credit application, its decision, recertification, revocation;
- ``abatements``: abatement of a paid bill and the Department's decision (billing ¶E);
- ``appeals``: appeals to the Select Board, the hearing and its written decision (appeals ¶A–¶B);
- ``liens``: the §16E abatement of charges committed to the tax bill, heard as an appeal (appeals ¶B);
- ``acts``: what they share (``ReliefError``, the clocks, the letters) and withdrawal, which every case has.

This module defines no act: it re-exports each family's names, so every name callers took from it is still here.
Code inside this package imports from the family module itself.
"""
from stormwater.cases.services import TransitionError  # the refusal of a status move, raised by the acts

from . import workflow as wf
from .acts import ERR_DECISION, ERR_REASONS, ReliefError, letters_kept_not_sent, relief_withdraw
from .credits import (ERR_ALREADY, ERR_CLASS, ERR_GRANT_NOT_IN_FORCE, ERR_MISSING_DOCS, ERR_NOTHING_MISSING,
                      ERR_NOT_LAPSED, ERR_NO_POLICY, ERR_NO_RECERT, ERR_PERCENT, ERR_REVOKE_REASON, ERR_STATEMENT,
                      ERR_TYPE_NOT_IN_FORCE, credit_apply, credit_decide, credit_determine_complete,
                      credit_determine_incomplete, credit_full_percent, credit_missing_documents, credit_policy_adopt,
                      credit_policy_load_demo, credit_recertify, credit_resubmit, credit_revoke, credit_upload)
from .abatements import (ERR_ABATEMENT_LATE, ERR_AMOUNT, ERR_GROUNDS, ERR_NOT_ISSUED, ERR_NOT_PAID, ERR_OPEN_ABATEMENT,
                         abatement_apply, abatement_decide, abatement_filing_check)
from .appeals import (ERR_APPEAL_GROUNDS, ERR_APPEAL_LATE, ERR_APPEAL_PENDING, ERR_HEARING_BEFORE_FILING,
                      ERR_HEARING_LATE, ERR_HEARING_NOT_YET, ERR_LIEN_AMOUNT, ERR_NOTICE_FIRST, ERR_NOTICE_TOO_LATE,
                      ERR_NOT_APPEALABLE, ERR_OUTCOME, ERR_RELATED_ABATEMENT, ERR_REVERSE_CREDIT, ERR_REVERSE_SUM,
                      appeal_close_hearing, appeal_decide, appeal_file, appeal_schedule_hearing, appeal_send_notice,
                      appeal_transmit_record)
from .liens import ERR_LIEN_ACCOUNT, lien_abatement_apply

C, A, AP, L = wf.CreditStatus, wf.AbatementStatus, wf.AppealStatus, wf.LienStatus
