"""Issue 17's "Done when", the Collector's day in a real browser at a desk and on a phone: a resident pays from the
bill's QR code via the hand-off on Sunday and chooses paperless bills; on Monday the Collector finds an owner by name, posts a check, prints the
receipt, closes the batch, posts a lockbox file and the processor's file of Sunday's payments (the resident's bill is
then paid), reconciles the deposit of the batch and both files with the bank, and issues a municipal lien
certificate. axe-core on every page shot; nothing wider than the screen.

The processor's hosted page is a stub on 127.0.0.1 (``ProcessorStub``): the town's ``payment_url_template`` names an
https host (the configuration requires https), and the browser's requests to that host are answered by the stub;
it takes the payment, gives a confirmation number and serves the daily payment file the processor sends the Town.
The bill's QR code is decoded from the bill PDF as downloaded (pdftoppm, then zxing-cpp)."""
import csv
import io
import re
import subprocess
import threading
from datetime import date
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit
from urllib.request import urlopen

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def billed_town(transactional_db, town, resolution, at):
    from stormwater.utility.services import bill_run_issue, fiscal_year

    at(date(2026, 11, 2))  # Mon Nov 2, 2026, noon in Longmeadow
    label, start, end = fiscal_year(2027)
    bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=date(2026, 9, 10),
                   acting_user=None)
    return town


PROCESSOR_HOST = "https://pay.processor.test"
STUB_PORTS = range(8420, 8440)  # this slice's ports (a server started by a test: only on 127.0.0.1)


class ProcessorStub:
    """The payment processor's hosted page and its daily file, on 127.0.0.1: GET /pay?acct&amt&ref shows what is
    paid, POST /pay takes it (a confirmation number, no card data anywhere near the Town's system), GET /daily.csv is
    the file the processor sends the Town (its own column names and m/d/Y dates: the town configuration maps them)."""

    def __init__(self):
        self.payments: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, body: str, ctype="text/html; charset=utf-8"):
                data = body.encode()
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Security-Policy", "default-src 'self'")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _page(self, title: str, body: str):
                self._send(f"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport "
                           f"content='width=device-width'><title>{title}</title></head><body><main><h1>{title}</h1>"
                           f"{body}</main></body></html>")

            def do_GET(self):
                u = urlsplit(self.path)
                q = {k: v[0] for k, v in parse_qs(u.query).items()}
                if u.path == "/daily.csv":
                    out = io.StringIO()
                    w = csv.writer(out, lineterminator="\n")
                    w.writerow(["Confirmation Number", "Account Number", "Payment Date", "Amount", "Bill"])
                    for p in stub.payments:
                        w.writerow([p["confirmation"], p["acct"], p["day"], f"${p['amt']}", p["ref"]])
                    return self._send(out.getvalue(), "text/csv")
                self._page("Town of Longmeadow — secure payment", (
                    f"<p>Stormwater account {q['acct']}, bill {q['ref']}</p><form method=post action='/pay'>"
                    + "".join(f"<input type=hidden name={k} value='{v}'>" for k, v in q.items())
                    + f"<p><label for=card>Card number</label> <input id=card name=card></p>"
                    f"<button type=submit>Pay ${q['amt']}</button></form>"))

            def do_POST(self):
                q = {k: v[0] for k, v in parse_qs(self.rfile.read(int(self.headers["Content-Length"])).decode()).items()}
                conf = f"PX-{len(stub.payments) + 1:05d}"
                from django.utils import timezone

                stub.payments.append({"acct": q["acct"], "amt": q["amt"], "ref": q["ref"], "confirmation": conf,
                                      "day": f"{timezone.localdate():%m/%d/%Y}"})
                self._page("Payment received", f"<p>Confirmation number {conf}</p>")

        for port in STUB_PORTS:
            try:
                self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
                break
            except OSError:
                continue
        else:
            pytest.fail("no free port for the processor stub in 8420–8439")
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def processor(page, town_toml):
    """The town's processor is the stub: the Pay hand-off URL template names its https host, whose requests the
    browser has answered by the stub on 127.0.0.1."""
    stub = ProcessorStub()
    town_toml(payment_url_template=PROCESSOR_HOST + "/pay?acct={account}&amt={amount}&ref={bill}")
    page.context.route(PROCESSOR_HOST + "/**",
                       lambda route: route.fulfill(response=route.fetch(
                           url=route.request.url.replace(PROCESSOR_HOST, stub.url, 1))))
    yield stub
    stub.stop()


def qr_codes_in(pdf: bytes, tmp) -> list[str]:
    """The QR codes printed on a PDF (the bill's is on the tear-off stub), decoded from its pages rendered at 200 dpi."""
    import zxingcpp
    from PIL import Image

    (tmp / "doc.pdf").write_bytes(pdf)
    subprocess.run(["pdftoppm", "-png", "-r", "200", str(tmp / "doc.pdf"), str(tmp / "page")], check=True)
    return [r.text for png in sorted(tmp.glob("page*.png"))
            for r in zxingcpp.read_barcodes(Image.open(png)) if r.format.name == "QRCode"]


def _fits(page):
    return page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("width", [1366, 390])
def test_a_collectors_day(page, live_server, billed_town, shot, login, width, tmp_path, processor, at):
    from stormwater.rules.money import fmt_usd
    from stormwater.utility.models import Account, Bill
    from stormwater.utility.selectors import bill_installments

    page.set_viewport_size({"width": width, "height": 900})
    url = live_server.url
    house = Account.objects.get(parcel=billed_town["house"], unit=None)

    # Sunday: Olivia pays the bill of her condominium unit from its QR code
    at(date(2026, 11, 1))
    unit_bill = Bill.objects.get(account__unit__owner=house.parcel.owner)
    login("owner")
    pdf = page.request.get(f"{url}/bills/{unit_bill.number}/pdf/")
    assert pdf.ok and pdf.body()[:5] == b"%PDF-"
    qr = qr_codes_in(pdf.body(), tmp_path)
    assert qr == [f"{url}/bills/{unit_bill.number}/"]  # the QR code on the bill, read back
    page.context.clear_cookies()  # her phone's camera opens the link: she signs in and lands on the bill
    page.goto(qr[0])
    page.get_by_label("Username").fill("owner")
    page.get_by_label("Password").fill("pw-owner")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{url}/bills/{unit_bill.number}/")
    assert page.locator("#bill-standing .badge").inner_text() == "Unpaid"
    shot(f"17-bill-unpaid-{width}")
    assert _fits(page)
    pay = page.get_by_role("link", name=re.compile(r"^Pay \$[\d,.]+ online$"))
    owed = Decimal(re.search(r"\$([\d,.]+)", pay.inner_text()).group(1).replace(",", ""))
    pay.click()  # the Town's confirmation page (issue 25), then the hand-off: the processor's page, with the
    # account, amount and bill in its URL, the Town's one-time reference, where to come back and the signature
    page.get_by_role("button", name="Continue to the payment page").click()
    page.wait_for_url(re.compile(re.escape(PROCESSOR_HOST) + r"/pay\?"))
    q = parse_qs(urlsplit(page.url).query)
    assert {k: q[k] for k in ("acct", "amt", "ref")} == {"acct": [unit_bill.account.number], "amt": [f"{owed:.2f}"],
                                                        "ref": [unit_bill.number]}
    assert {"reference", "return_url"} <= set(q)  # (signed where the town has set PAYMENT_PROCESSOR_SECRET)
    page.get_by_label("Card number").fill("4111 1111 1111 1111")  # typed on the processor's page only
    page.get_by_role("button", name=f"Pay ${owed:.2f}").click()
    page.get_by_text(re.compile(r"Confirmation number PX-\d+")).wait_for()
    assert [p["acct"] for p in processor.payments] == [unit_bill.account.number]
    # and, back on the Town's site, she chooses paperless bills from now on
    page.goto(f"{url}/portal/")
    page.get_by_label(re.compile("Bills by e-mail only")).check()
    page.get_by_label("E-mail address for bills").fill("olivia@example.org")
    page.get_by_role("button", name="Save how I get my bills").click()
    page.get_by_text("Your bills will be e-mailed to you only.").wait_for()
    shot(f"17-portal-paperless-{width}")
    assert _fits(page)

    # Monday: the Collector's day
    at(date(2026, 11, 2))
    login("collector")

    # Find the owner by name: her house and her condominium unit; the house
    page.goto(f"{url}/cashier/")
    page.get_by_label(re.compile("Owner name")).fill("Olivia")
    page.get_by_role("button", name="Find").click()
    page.get_by_role("heading", name="Accounts found").wait_for()
    shot(f"17-window-{width}")
    assert _fits(page)
    page.get_by_role("link", name=house.number).click()
    page.get_by_role("heading", name=re.compile(r"Due now: \$26\.75")).wait_for()

    # Post a check
    page.get_by_label("Amount ($)").fill("26.75")
    page.get_by_label("Tender").select_option("check")
    page.get_by_label("Check number / reference").fill("4417")
    shot(f"17-take-payment-{width}")
    assert _fits(page)
    page.get_by_role("button", name="Post payment").click()
    page.get_by_role("heading", name=re.compile(r"Receipt R-\d+")).wait_for()
    shot(f"17-receipt-{width}")
    assert _fits(page)

    # Print the receipt
    pdf = page.request.get(url + page.get_by_role("link", name="Print the receipt (PDF)").get_attribute("href"))
    assert pdf.ok and pdf.body()[:5] == b"%PDF-" and 'filename="receipt-R-' in pdf.headers["content-disposition"]

    # Close the batch with the counted checks
    page.get_by_role("link", name=re.compile(r"^B-\d+$")).click()
    page.get_by_label("Checks counted ($)").fill("26.75")
    page.get_by_role("button", name="Close batch").click()
    page.get_by_text(re.compile(r"closed: counted \$26\.75\.")).wait_for()
    shot(f"17-batch-{width}")

    # A lockbox file arrives and is posted
    lockbox = tmp_path / "lockbox-1102.csv"
    shops = Account.objects.get(parcel=billed_town["shops"], unit=None)
    lockbox.write_text(f"account,amount,received_on,reference\n{shops.number},1423.36,2026-11-02,L-77\n")
    page.goto(f"{url}/collections/")
    page.get_by_label(re.compile("Lockbox / bank file")).set_input_files(str(lockbox))
    page.get_by_role("button", name="Post file").click()
    page.get_by_text(re.compile(r"Posted 1 payments?, \$1,423\.36")).first.wait_for()

    # The processor's file of Sunday's online payments: Olivia's posts, and her bill is paid
    daily = tmp_path / "processor-1101.csv"
    daily.write_bytes(urlopen(processor.url + "/daily.csv").read())
    page.get_by_label(re.compile("Lockbox / bank file")).set_input_files(str(daily))
    page.get_by_label("Kind of file").select_option("processor")
    page.get_by_role("button", name="Post file").click()
    page.get_by_text(re.compile(rf"Posted 1 payments?, \${owed:.2f}")).first.wait_for()
    page.goto(f"{url}/bills/{unit_bill.number}/")
    # What she paid was what was due now (the past-due first installment with its interest): the bill is partly
    # paid, the second installment (not yet due) is what is left, and nothing is offered to pay today.
    later = bill_installments(unit_bill).last()
    standing = page.locator("#bill-standing").inner_text()
    assert page.locator("#bill-standing .badge").inner_text() == "Partly paid"
    assert f"Due now on this bill: {fmt_usd(later.amount)}" in standing, standing
    assert f"Paid on this bill: {fmt_usd(owed)}" in standing, standing
    shot(f"17-bill-paid-{width}")
    assert _fits(page)
    # her account's statement shows the payment and her choice of paperless bills (the office could change it here)
    page.goto(f"{url}/accounts/{unit_bill.account.number}/")
    assert "by e-mail only" in page.locator("main").inner_text()
    page.get_by_role("button", name="Save how the bills go out").wait_for()
    shot(f"17-account-paperless-{width}")
    conf = processor.payments[0]["confirmation"]
    paid = unit_bill.account.payments.get()
    assert (paid.reference, paid.amount, paid.received_on, paid.method) == (conf, owed, date(2026, 11, 1), "ach")

    # Reconcile the deposit: the batch and both files against the bank's figure
    bank = Decimal("26.75") + Decimal("1423.36") + owed
    page.goto(f"{url}/cashier/deposits/")
    page.get_by_label(re.compile(r"B-\d+ · collector")).check()
    page.get_by_label(re.compile("lockbox-1102.csv")).check()
    page.get_by_label(re.compile("processor-1101.csv")).check()
    page.get_by_label("Bank deposit amount ($)").fill(f"{bank:.2f}")
    page.get_by_label("Bank reference").fill("DEP-1102")
    page.get_by_role("button", name="Record deposit").click()
    page.get_by_text(re.compile(rf"it reconciles \(\${bank:,.2f}\)")).wait_for()
    shot(f"17-deposits-{width}")
    assert _fits(page)

    # The daily cash report: the window's receipts and the two files posted today
    page.goto(f"{url}/cashier/daily/")
    page.get_by_text(f"Total received: ${bank:,.2f}").wait_for()
    shot(f"17-daily-{width}")
    assert _fits(page)

    # A closing attorney's request for a municipal lien certificate, issued the same day
    page.goto(f"{url}/cashier/lien-certificates/")
    page.get_by_label("Parcel id").fill("02-01-2")
    page.get_by_label("Requested by (name)").fill("Dana Attorney")
    page.get_by_label(re.compile("As \\(buyer")).fill("closing attorney")
    page.get_by_label("Take the fee now at the window").select_option("check")  # receipted (issue 25 item 10)
    page.get_by_label(re.compile("Check number, or where the fee was paid")).fill("881")
    page.get_by_role("button", name="Record the request").click()
    page.get_by_role("heading", name=re.compile(r"Municipal lien certificate MLC-2026-")).wait_for()
    assert "Nov 12, 2026" in page.locator("main").inner_text() or "2026-11-12" in page.locator("main").inner_text()
    page.get_by_role("button", name="Issue").click()
    page.get_by_role("link", name="The certificate (PDF)").wait_for()
    shot(f"17-lien-certificate-{width}")
    assert _fits(page)
    pdf = page.request.get(url + page.get_by_role("link", name="The certificate (PDF)").get_attribute("href"))
    assert pdf.ok and pdf.body()[:5] == b"%PDF-" and 'filename="MLC-2026-' in pdf.headers["content-disposition"]
