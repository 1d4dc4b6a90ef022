"""A property association's new instrument in a real browser (Ch. 295 Art. IV ¶G; issue 17): the master parcel's
"Association instrument" section, a CSV of the units checked then recorded, the history — axe-core finds nothing,
at desktop width and at 390 px."""
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("width", [1366, 390])
def test_record_an_amended_instrument_from_a_file(page, live_server, town, personas, shot, login, tmp_path, width):
    from stormwater.parcels.models import AssociationInstrument, Owner, Parcel

    for sfx in ("A", "B", "101"):
        o = Owner.objects.create(name=f"Unit {sfx} Owner", mailing_address="x")
        Parcel.objects.create(parcel_id=f"04-01-1-{sfx}", address=f"{sfx} Condo Way", owner=o, land_use_code="102",
                              dwelling_units=1)
    f = tmp_path / "units.csv"
    f.write_text("unit_parcel_id,share_percent\n04-01-1-A,50\n04-01-1-B,30\n04-01-1-101,20\n")
    page.set_viewport_size({"width": width, "height": 900})
    login("assessor")
    page.goto(f"{live_server.url}/parcels/04-01-1/")
    page.get_by_text("Record new instrument").click()
    page.get_by_label("Recorded instrument").fill("Book 24001 Page 12")
    page.get_by_label("Recorded on").fill("2026-11-20")
    page.get_by_label("Or a CSV file of the units").set_input_files(str(f))
    page.get_by_role("button", name="Check (nothing is recorded)").click()
    page.get_by_text("Checked: nothing recorded yet").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(f"association-01-check-{width}")
    assert AssociationInstrument.objects.count() == 1
    page.get_by_role("button", name="Record the instrument").click()
    page.get_by_text("Instrument Book 24001 Page 12 recorded from units.csv").wait_for()
    page.get_by_text("Every instrument on file (2)").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(f"association-02-recorded-{width}")
    assert AssociationInstrument.objects.count() == 2
