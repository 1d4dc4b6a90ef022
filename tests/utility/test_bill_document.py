"""The bill a resident can act on (issue 17): remit-to, phone and web address, amount due and past due, the ERU
in words, the abatement deadline and the credit right, a QR code to the bill online, and the stub's scanline
that receipting reads back."""
import subprocess
from datetime import date
from decimal import Decimal as D

import pytest

from stormwater.utility.models import Bill
from stormwater.utility.scanline import scanline_parse
from stormwater.utility.services import bill_run_issue, fiscal_year


def _text(pdf: bytes) -> str:
    return " ".join(subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True,
                                   check=True).stdout.decode().split())


@pytest.fixture
def two_years(town, resolution, at):
    """FY2027 issued Thu Sep 10, 2026 and not paid; FY2028 issued Fri Sep 10, 2027."""
    for fy, day in ((2027, date(2026, 9, 10)), (2028, date(2027, 9, 10))):
        at(day)
        label, start, end = fiscal_year(fy)
        bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=day, acting_user=None)
    return town


def test_the_bill_pdf_says_what_is_due_where_to_pay_and_the_owners_rights(two_years, client_for, personas,
                                                                           town_toml):
    town_toml(division_phone="(413) 555-0100", public_url="https://stormwater.example.org")
    bill = Bill.objects.get(parcel=two_years["shops"], period_start=date(2027, 7, 1))
    c = client_for(personas["collector"])
    r = c.get(f"/bills/{bill.number}/pdf/")
    assert r.status_code == 200
    text = _text(b"".join(r.streaming_content) if r.streaming else r.content)
    assert "20 Williams Street" in text and "(413) 555-0100" in text and "https://stormwater.example.org" in text
    assert "Amount due" in text and "Past-due balance" in text
    assert "An ERU (equivalent residential unit) is 3400 square feet" in text
    assert "October 12, 2027" in text  # the 30th day, Sun Oct 10, Columbus Day Mon Oct 11 → Tue Oct 12
    assert "credit" in text and "Select Board" in text
    import re

    line = text.split("Mail to:")[1]  # the stub
    scan = re.search(re.escape(bill.account.number) + r" \d{10} \d", line).group(0)
    parsed = scanline_parse(scan)
    assert parsed.account == bill.account.number
    # Amount due = installment 1 of this bill + the unpaid FY2027 bill with interest to the issue day.
    assert parsed.amount > bill.installments.order_by("seq").first().amount
    assert f"{parsed.amount:,.2f}" in text and line


def test_the_bill_context_has_a_qr_code_to_the_bill_online(two_years, town_toml):
    from stormwater.utility.documents import bill_context

    bill = Bill.objects.filter(parcel=two_years["house"]).first()
    ctx = bill_context(bill)
    assert ctx["qr"] == "" and ctx["online_url"] == ""  # no public address configured, none from a request
    town_toml(public_url="https://stormwater.example.org/")
    ctx = bill_context(bill)
    assert ctx["online_url"] == f"https://stormwater.example.org/bills/{bill.number}/"
    assert ctx["qr"].startswith("data:image/svg+xml")
    assert bill_context(bill, base_url="http://testserver")["online_url"].startswith("https://stormwater.example.org")


def test_the_printed_qr_code_reads_back_as_the_bills_address(two_years, town_toml, tmp_path):
    """The QR code is drawn whole at its printed size (it was clipped to the 1-inch box: a segno SVG without a
    viewBox does not scale, so the last rows of any code longer than 32 modules were cut off and no camera read
    it). Decoded from the PDF's pages as printed (pdftoppm at 200 dpi, zxing-cpp)."""
    import zxingcpp
    from PIL import Image

    from stormwater.utility.documents import bill_pdf

    town_toml(public_url="http://localhost:44227/")
    bills = list(Bill.objects.filter(period_start=date(2026, 7, 1)).order_by("number"))
    assert any(b.account.unit_id for b in bills)  # a unit's bill number is the longest: the largest code
    for bill in bills:
        pdf = tmp_path / f"{bill.number}.pdf"
        pdf.write_bytes(bill_pdf(bill))
        subprocess.run(["pdftoppm", "-png", "-r", "200", str(pdf), str(tmp_path / bill.number)], check=True)
        found = [r.text for png in sorted(tmp_path.glob(f"{bill.number}-*.png"))
                 for r in zxingcpp.read_barcodes(Image.open(png)) if r.format.name == "QRCode"]
        assert found == [f"http://localhost:44227/bills/{bill.number}/"], bill.number


def test_the_owners_bill_page_says_unpaid_partly_paid_or_paid_and_hands_off_to_the_processor(
        town, resolution, at, client_for, personas, town_toml):
    from stormwater.receivables.services import payment_post

    town_toml(payment_url_template="https://pay.example.com/longmeadow?acct={account}&amt={amount}&ref={bill}")
    at(date(2026, 9, 10))
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    bill = Bill.objects.get(parcel=town["house"])
    c = client_for(personas["owner"])
    page = c.get(f"/bills/{bill.number}/").content.decode()
    assert "Unpaid" in page and f"${bill.amount:,.2f}" in page
    # The Pay button offers the installment due now, not the one issued in March (tests/receivables/test_pay_offer.py).
    first = bill.installments.get(seq=1).amount
    assert f'href="/pay/{bill.account.number}/?bill={bill.number}"' in page  # the Town's confirmation (issue 25)
    handoff = c.post(f"/pay/{bill.account.number}/", {"amount": f"{first:.2f}", "bill": bill.number})["Location"]
    assert handoff.startswith(f"https://pay.example.com/longmeadow?acct={bill.account.number}&amt={first:.2f}"
                              f"&ref={bill.number}&reference=")
    payment_post(account=bill.account, amount=D("20.00"), received_on=date(2026, 9, 10), acting_user=None)
    page = c.get(f"/bills/{bill.number}/").content.decode()
    assert "Partly paid" in page and f"{bill.amount - D('20.00'):,.2f}" in page
    payment_post(account=bill.account, amount=bill.amount - D("20.00"), received_on=date(2026, 9, 10),
                 acting_user=None)
    page = c.get(f"/bills/{bill.number}/").content.decode()
    assert "Paid" in page and "Nothing is owed on this bill" in page and 'href="/pay/' not in page
    public = c.get(f"/portal/parcels/{town['house'].parcel_id}/")
    assert f"https://pay.example.com/longmeadow?acct={bill.account.number}&amp;amt=&amp;ref=" in public.content.decode()
