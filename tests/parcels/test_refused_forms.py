"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): a manual class
without a reason comes back as the parcel's page (400) with the class chosen and the reason input marked
(``web.postdata.refused``); nothing is recorded (Ch. 295 Art. IV definitions: a manual class says why)."""
from office_refill import assert_refused
from stormwater.parcels.models import Parcel


def test_class_override_without_a_reason(client_for, personas, town):
    c = client_for(personas["staff"])
    url = "/parcels/01-01-1/class/"
    posted = {"property_class": "nonresidential", "reason": "  "}
    assert_refused(c.post(url, posted), url, "reason", posted)
    assert Parcel.objects.get(parcel_id="01-01-1").class_override == ""
