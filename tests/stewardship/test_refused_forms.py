"""Issue 16 "Forms" (done when: "a refused staff form keeps every typed value and marks the field"): the site page's
and the BMP page's hand-written row forms, refused by their service, come back as the page (400) with the form as
it was sent and the error at the input (``web.postdata.refused`` → ``web.refill``); nothing is recorded. One case
per form, named for it."""
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from stormwater.audit.models import AuditEvent
from stormwater.cases.models import CaseEvent
from stormwater.stewardship import services as sv
from stormwater.stewardship.contents import OM_ITEMS

from construction.refilled import assert_refilled  # tests/construction/refilled.py (the tests folder is on the path)

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"


def _final_plan(site, personas):
    return sv.om_plan_submit(site=site, items={i.key: "p. 1" for i in OM_ITEMS}, final=True,
                             acting_user=personas["owner"]).pk


def _recorded(site, personas):
    plan = sv.om_plan_submit(site=site, items={i.key: "p. 1" for i in OM_ITEMS}, final=True,
                             acting_user=personas["owner"])
    sv.om_plan_record(plan=plan, recorded_on=date(2026, 5, 1), book="25000", page="100",
                      proof_upload=SimpleUploadedFile("proof.pdf", PDF, content_type="application/pdf"),
                      acting_user=personas["staff"])
    return plan.pk


def _signer(site, personas):
    _recorded(site, personas)
    return site.parties.order_by("id").first().pk


def _easement(site, personas):
    return sv.easement_add(site=site, purpose="access", location="Swale behind lot 2", grantor="Olivia Owner",
                           acting_user=personas["staff"]).pk


def _bmp(site, personas):
    return sv.bmp_add(site=site, name="Basin 1", source_type="Detention Pond", acting_user=personas["staff"]).pk


ITEMS = {f"item_{i.key}": "p. 3" for i in OM_ITEMS[:-1]}  # the last content item not located

# (case, who, setup(site, personas) → "{x}", url suffix, posted data, refused input, hidden/button names)
CASES = [
    ("party", "staff", None, "parties/", {"role": "operator", "name": "  ", "email": "ops@example.org",
                                          "address": "2 Elm St"}, "name", ()),
    ("plan_submit", "owner", None, "plan/", {**ITEMS, "annual_budget": "1,200", "final": "on"},
     f"item_{OM_ITEMS[-1].key}", ()),
    ("plan_budget", "owner", None, "plan/", {"item_" + OM_ITEMS[0].key: "p. 2", "annual_budget": "twelve hundred"},
     "annual_budget", ()),
    ("plan_record", "staff", _final_plan, "plan/{x}/record/", {"book": "25000", "page": " ", "document_number": "",
                                                               "recorded_on": "2026-05-01", "file": "pdf"}, "page", ()),
    ("amend", "staff", _signer, "plan/1/amend/", {"description": "Sweep the forebay quarterly", "signed_by": ["{x}"],
                                                  "director_agreed_on": "", "effective_on": "2026-05-01"},
     "director_agreed_on", ()),
    ("certification", "owner", _recorded, "certifications/", {"work_summary": "Forebay swept twice",
                                                              "signed_by": "  "}, "signed_by", ()),
    ("ownership", "owner", None, "ownership/", {"role": "owner", "to_name": " ", "to_address": "3 Oak St",
                                                "to_email": "new@example.org", "effective_on": "2026-05-01",
                                                "deed_reference": "Book 25100 Page 7"}, "to_name", ()),
    ("easement_add", "staff", None, "easements/", {"purpose": "heavy_equipment", "location": "Pond berm",
                                                   "grantor": "  "}, "grantor", ()),
    ("easement_record", "staff", _easement, "easements/", {"action": "record", "easement": "{x}", "book": "25000",
                                                           "page": "", "document_number": "",
                                                           "recorded_on": "2026-05-01"}, "page",
     ("action", "easement")),
    ("bmp_add", "staff", None, "bmps/", {"name": "Basin 2", "source_type": "Bioretention", "region1_category": "",
                                         "drainage_area_acres": "two", "treats": "Lots 1-4"},
     "drainage_area_acres", ()),
    ("import", "staff", None, "import/", {}, "files", ()),
    ("bmp_log", "owner", _bmp, "bmps/{x}/", {"on": "2026-05-01", "kind": "disposal", "description": "Sediment out",
                                             "performed_by": "Basin Care LLC", "disposal_material": "Sediment",
                                             "disposal_location": " "}, "disposal_location", ()),
]


@pytest.mark.parametrize("case,who,setup,suffix,data,field,hidden", CASES, ids=[c[0] for c in CASES])
def test_site_row_form_refused_keeps_every_value_and_marks_the_field(site, personas, client_for, case, who, setup,
                                                                      suffix, data, field, hidden):
    x = setup(site, personas) if setup else None
    if case == "amend":
        suffix = f"plan/{site.plans.get().pk}/amend/"

    def fill(v):
        return [fill(i) for i in v] if isinstance(v, list) else v.replace("{x}", str(x))
    data = {k: fill(v) for k, v in data.items()}
    url = f"/stewardship/{site.case.number}/{suffix.replace('{x}', str(x))}"
    events, audits = CaseEvent.objects.count(), AuditEvent.objects.count()
    post = {k: (SimpleUploadedFile("proof.pdf", PDF, content_type="application/pdf") if k == "file" else v)
            for k, v in data.items()}
    r = client_for(personas[who]).post(url, post)
    assert (CaseEvent.objects.count(), AuditEvent.objects.count()) == (events, audits)  # nothing recorded
    assert_refilled(r, url, {k: v for k, v in data.items() if k not in hidden}, field)
