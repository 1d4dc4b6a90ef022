"""Documents render to PDF with the text they must carry (pdftotext)."""
from datetime import date, datetime
from decimal import Decimal as D

from stormwater.permits import documents
from stormwater.permits import services as sv

from .conftest import EASTERN
from .test_end_to_end import pdf_text


def test_abutter_letters_one_page_each_and_labels(draft, personas):
    sv.abutters_set(application=draft, certified_on=date(2026, 2, 20), acting_user=personas["owner"],
                    text="\n\n".join(f"Abutter {i}\n{i} Oak St\nLongmeadow, MA 01106" for i in range(1, 34)))
    letters = documents.abutter_letters_pdf(draft, on=date(2026, 2, 23))
    text = pdf_text(letters)
    assert "Abutter 33" in text and "certified mail" in text and "§ 380-10 H(1)" in text
    assert text.count("Re: Notice of an application") == 33
    labels = pdf_text(documents.abutter_labels_pdf(draft))
    assert "Abutter 1 " in labels and "33 Oak St" in labels and "page" not in labels


def test_disapproval_cites_the_standards_and_says_failure_to_act_is_not_approval(draft, personas, at):
    from .conftest import complete_package
    at(date(2026, 3, 2))
    complete_package(draft, personas["staff"])
    sv.permit_file(application=draft, acting_user=personas["owner"])
    sv.permit_determine_complete(application=draft, acting_user=personas["staff"])
    sv.permit_decide(application=draft, kind="disapprove", findings="TSS removal is 62 %, short of 90 %.",
                     standards=["380-11D"], acting_user=personas["director"])
    text = pdf_text(draft.case.documents.get(tag="decision").file.read())
    assert "Disapproval" in text and "§ 380-11 D" in text and "does not constitute approval" in text
    assert "Stormwater Management and Land Disturbance Permit" not in text


def test_rule_hearing_notice(personas):
    h = sv.rule_hearing_create(title="Amend the fee schedule", summary="New technical review fees.",
                               newspaper="The Republican", advertised_on=date(2026, 3, 2),
                               hearing_at=datetime(2026, 3, 16, 19, 0, tzinfo=EASTERN), location="Town Hall",
                               acting_user=personas["director"])
    text = pdf_text(documents.hearing_notice_pdf(h))
    assert "NOTICE OF PUBLIC HEARING" in text and "Monday, March 16, 2026 at 7:00 PM" in text
    assert "at least seven days" in text


def test_account_report_as_the_account_stands(draft, personas):
    from stormwater.permits.selectors import account_entries, account_of
    from stormwater.permits.models import AccountEntry
    AccountEntry.objects.create(application=draft, kind="deposit", amount=D("2500"), on=date(2026, 3, 2), memo="fee")
    text = pdf_text(documents.account_report_pdf(draft, entries=account_entries(draft), summary=account_of(draft),
                                                 on=date(2026, 3, 3)))
    assert "$2,500.00" in text and "MGL c.44 §53G" in text and "within 30 days" in text
