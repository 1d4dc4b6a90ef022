"""The water/sewer account import in a real browser (issue 20): upload, the check listing every change, apply,
the imports page — axe-core finds nothing, at desktop width and at 390 px."""
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def parcels(db):
    from stormwater.parcels.models import Parcel

    for pid in ("12-34-5", "12-34-6"):
        Parcel.objects.create(parcel_id=pid, address=f"{pid[-1]} Elm St", land_use_code="101", dwelling_units=1)


@pytest.mark.parametrize("width", [1366, 390])
def test_check_then_apply_water_sewer_accounts(page, live_server, parcels, personas, shot, login, tmp_path, width):
    from stormwater.parcels.models import Parcel

    page.set_viewport_size({"width": width, "height": 900})
    f = tmp_path / "accounts.csv"
    f.write_text("parcel_id,water_sewer_account\n12-34-5,W004512\n12-34-6,W004513\n12-34-9,\n")
    login("assessor")
    page.goto(f"{live_server.url}/imports/water-sewer/")
    page.get_by_label("File (CSV)").set_input_files(str(f))
    page.get_by_role("button", name="Check (dry run)").click()
    page.get_by_text("Parcels whose account changes").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    shot(f"imports-01-water-sewer-check-{width}")
    page.get_by_role("button", name="Apply these 2 change(s)").click()
    page.get_by_role("heading", name="Recent imports").wait_for()
    shot(f"imports-02-records-{width}")
    assert dict(Parcel.objects.values_list("parcel_id", "water_sewer_account")) == {"12-34-5": "W004512",
                                                                                 "12-34-6": "W004513"}
