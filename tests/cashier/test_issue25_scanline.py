"""Issue 25 item 8: the bill stub's scanline at the window — the amount it carries fills the payment, a wrong check
digit is said as such, and a stack of stubs is posted by scanning (keyboard only: a USB scanner types the line and
presses Enter). Written failing first."""
from decimal import Decimal as D

from django.urls import reverse

from stormwater.cashier.models import Receipt
from stormwater.utility.models import Account
from stormwater.utility.scanline import scanline_format

WRONG_DIGIT = "check digit does not match: mistyped or misread stub"


def acct(parcel):
    return Account.objects.get(parcel=parcel, unit=None)


def _wrong(line: str) -> str:
    return line[:-1] + str((int(line[-1]) + 1) % 10)


def test_a_scanned_stub_opens_the_account_with_the_stubs_amount_filled(billed, personas, client_for):
    house = acct(billed["house"])
    line = scanline_format(house.number, D("26.58"))
    c = client_for(personas["collector"])
    r = c.get(reverse("cashier_window"), {"q": line}, follow=True)
    assert r.status_code == 200 and r.context["account"] == house
    assert r.context["form"]["amount"].value() in (D("26.58"), "26.58")
    assert 'value="26.58"' in r.content.decode()


def test_a_wrong_check_digit_is_said_as_such(billed, personas, client_for):
    line = scanline_format(acct(billed["house"]).number, D("26.58"))
    r = client_for(personas["collector"]).get(reverse("cashier_window"), {"q": _wrong(line)})
    page = r.content.decode()
    assert r.status_code == 200 and WRONG_DIGIT in page


def test_scan_and_post_a_stack_of_stubs_into_the_open_batch(billed, personas, client_for):
    c = client_for(personas["collector"])
    house, house2 = acct(billed["house"]), acct(billed["house2"])
    url = reverse("cashier_scan")
    page = c.get(url).content.decode()
    assert 'name="scanline"' in page and "autofocus" in page
    # cash: the scan alone posts the stub's amount; the page comes back empty for the next stub
    r = c.post(url, {"tender": "cash", "scanline": scanline_format(house.number, D("26.58"))})
    assert r.status_code == 302 and r.url.startswith(url) and "tender=cash" in r.url
    rec = Receipt.objects.get()
    assert (rec.payment.account, rec.payment.amount, rec.tender) == (house, D("26.58"), "cash")
    nxt = c.get(r.url).content.decode()
    assert rec.number in nxt and 'name="scanline"' in nxt and "26.58" in nxt
    # a check: the check number typed first, then the scan posts; the amount typed overrides the stub's
    r = c.post(url, {"tender": "check", "reference": "4411", "amount": "20.00",
                     "scanline": scanline_format(house2.number, D("44.37"))})
    assert r.status_code == 302
    rec2 = Receipt.objects.latest("id")
    assert (rec2.payment.account, rec2.payment.amount, rec2.payment.reference) == (house2, D("20.00"), "4411")
    assert rec2.batch == rec.batch
    # a check without its number: the stub is read (account and amount shown), nothing posts, the number is asked
    r = c.post(url, {"tender": "check", "scanline": scanline_format(house.number, D("0.17"))})
    page = r.content.decode()
    assert r.status_code == 400 and "check number" in page and house.number in page and 'value="0.17"' in page
    # a wrong check digit: said, nothing posted
    r = c.post(url, {"tender": "cash", "scanline": _wrong(scanline_format(house.number, D("0.17")))})
    assert r.status_code == 400 and WRONG_DIGIT in r.content.decode()
    assert Receipt.objects.count() == 2
