"""The JSON API, described: every URL under /api/ (by URL name) → its operations. The OpenAPI document
(``openapi.py``) is built from this table plus what the URL resolver and the views already say (path
parameters and their types from the route, public or the permission from ``require_perm``), so the routes
and the guards have one source. ``tests/api/test_openapi.py`` fails when a URL under /api/ is missing here;
schemathesis (``tests/api/test_schemathesis.py``) checks the answers against these schemas.

Conventions of every endpoint (web/jsonapi.py): JSON in and out; money as a string with two decimals
(accepted as a string or a number); dates YYYY-MM-DD; errors ``{"error": "field: what is wrong"}`` with 400;
401 without a session or token, 403 when the role may not act, 404 for no such record *or someone else's*
(an owner cannot probe ids)."""
from __future__ import annotations

from stormwater.engineering.water_quality import ProjectType as EngProjectType
from stormwater.permits.models import ProjectType
from stormwater.permits.services import STANDARDS
from stormwater.relief.actions import ACTIONS
from stormwater.rules.classes import PropertyClass
from stormwater.rules.deadlines import CLOCKS

from .schema import (ANY_OBJECT, BOOL, DATE, DATETIME, MONEY_OUT, NUMBER_OUT, STR, TEXT, Op, array, enum, money,
                     nullable, num, obj, whole)

YEAR = whole(2000, 2100, "a fiscal year (July–June), e.g. 2027")
WORK_ITEM = obj({"source": STR, "kind": STR, "title": STR, "action": STR, "due": nullable(DATE),
                 "due_at": nullable(DATETIME), "overdue": BOOL, "days_left": {"type": ["integer", "null"]},
                 "record": obj({"label": STR, "url": STR}, ["label", "url"]), "act_url": STR, "who_acts": STR,
                 "perms": array(STR), "citation": STR, "category": STR, "detail": STR},
                ["source", "kind", "title", "action", "due", "overdue", "record", "act_url", "who_acts", "citation"])
ID = whole(1, 2**31 - 1)
LIEN_CERTIFICATE = obj({"id": {"type": "integer"}, "number": STR, "parcel_id": STR, "channel": STR,
                        "requester_name": STR, "requested_on": DATE, "due_on": DATE, "fee": MONEY_OUT,
                        "issued_on": nullable(DATE), "total_due": nullable(MONEY_OUT),
                        "figures": {"type": ["object", "null"]}})

# --- calculators (public: they compute from what is sent and read no records) -----------------------------
FEE_IN = obj({
    "property_class": enum(*[c.value for c in PropertyClass], desc="Ch. 295 Art. IV ¶B definitions"),
    "impervious_sqft": num(0, desc="impervious area [ft²]; required unless small_residential or exempt"),
    "eru_sqft": num(desc="ERU size [ft²] (> 0); default: the resolution in force"),
    "rate_per_eru": num(0, desc="annual $ per ERU; default: the resolution in force"),
    "small_residential_rate": num(0, desc="annual flat $; default: the resolution in force"),
    "credit_percent": num(0, 100), "installments": {"type": ["integer", "string"], "description": "1–4"},
}, ["property_class"], closed=True)
FEE_OUT = obj({"erus": {"type": ["integer", "string", "number"]}, "annual_fee": MONEY_OUT, "blocks": array(ANY_OBJECT),
               "installments": array(MONEY_OUT), "explanation": {"type": ["string", "array"]}})
SPLIT_IN = obj({"amount": money("in whole cents", minimum=0),
                "shares": array(obj({"unit": {"type": ["string", "integer"]}, "percent": num(0)}, ["unit", "percent"]),
                                "percentages totalling 100", minItems=1)}, ["amount", "shares"])
INTEREST_IN = obj({"unpaid_principal": money(minimum=0), "due_date": DATE, "as_of": DATE,
                   "rate_percent": num(0, 100, "default: the resolution in force (12 %/yr)")},
                  ["unpaid_principal", "due_date", "as_of"], closed=True)
DEADLINE_IN = obj({"clock": enum(*CLOCKS), "start": DATE,
                   "hearing_date": {**DATE, "description": "for a clock counting back from the hearing"}},
                  ["clock"], closed=True)
ENGINEERING = {
    "runoff": (obj({"curve_number": num(30, 100), "rainfall_in": num(0, 60)}, ["curve_number", "rainfall_in"],
                   closed=True), "Runoff depth, NRCS TR-55 Eq. 2-1…2-4"),
    "retention": (obj({"project_type": enum(*[t.value for t in EngProjectType]), "impervious_sqft": num(0, 100_000_000)},
                      ["project_type", "impervious_sqft"], closed=True), "Required retention volume (Ch. 380)"),
    "noaa-plus": (obj({"upper_ci_in": num(0, 60)}, ["upper_ci_in"], closed=True), "“NOAA plus” design rainfall"),
    "peak": (obj({"drainage_area_acres": num(0, 2000 * 640), "curve_number": num(40, 98), "tc_hr": num(0.1, 10),
                  "rainfall_in": num(0, 60), "storm_type": enum("II", "III"), "pond_swamp_pct": num(0, 5)},
                 ["drainage_area_acres", "curve_number", "tc_hr", "rainfall_in"], closed=True),
             "Peak discharge, TR-55 graphical method (Eq. 4-1)"),
    "bmp": (obj({"bmp": STR, "storage_depth_in": num(0, 100), "infiltration_rate_in_hr": num(0, 100),
                 "pollutant": enum("TSS", "TP", "TN")}, ["bmp", "storage_depth_in", "pollutant"], closed=True),
            "A BMP's pollutant removal from the official tables (RBEROST fits as the provisional last resort)"),
}

# --- shapes of answers (the main fields; objects may carry more) -------------------------------------------
PARCEL = obj({"parcel_id": STR, "address": STR, "owner": nullable(STR), "land_use_code": nullable(STR),
              "dwelling_units": nullable({"type": "integer"}), "lot_sqft": nullable(STR),
              "class_override": nullable(STR)}, ["parcel_id"])
SHARE_OUT = obj({"unit": STR, "unit_parcel_id": nullable(STR), "owner": nullable(STR), "share_percent": STR})
INSTRUMENT = obj({"id": {"type": "integer"}, "reference": STR, "recorded_on": DATE, "effective_on": DATE, "note": STR,
                  "in_force": BOOL, "shares": array(SHARE_OUT), "total_percent": STR},
                 ["id", "reference", "recorded_on", "effective_on", "shares"])
MASTER_PARCEL = {"type": "string", "description": "the association's master parcel id (Assessors')",
                 "example": "04-01-1"}
ASSOCIATION = obj({"parcel_id": STR, "association": nullable(obj({"name": STR}, ["name"])), "as_of": DATE,
                   "in_force": nullable(INSTRUMENT), "instruments": array(INSTRUMENT)},
                  ["parcel_id", "association", "in_force", "instruments"])
BILL = obj({"number": STR, "account": STR, "parcel_id": STR, "period_start": DATE, "period_end": DATE,
            "issue_date": DATE, "amount": MONEY_OUT, "installments": array(ANY_OBJECT)}, ["number", "amount"])
CLOCK = obj({"kind": STR, "label": STR, "due": nullable(STR), "standing": STR})
PERMIT = obj({"number": STR, "status": STR, "status_label": STR, "site_address": STR, "clocks": array(CLOCK)},
             ["number", "status"])
PARTY = obj({"id": {"type": "integer"}, "role": STR, "role_label": STR, "name": STR, "firm": STR, "pe": STR},
            ["id", "role", "name"])
CASE = obj({"number": STR, "kind": STR, "status": STR, "status_label": STR, "clocks": array(CLOCK)}, ["number", "status"])
POSITION = obj({"account": STR, "parcel_id": STR, "as_of": DATE, "principal": MONEY_OUT, "interest": MONEY_OUT,
                "demand_charges": MONEY_OUT, "credit": MONEY_OUT, "balance": MONEY_OUT, "installments": array(ANY_OBJECT)},
               ["account", "balance"])
LINES = {"type": ["string", "array"], "items": STR, "description": "text, or a list of lines"}
MULTIPART_FILE = {"type": "string", "format": "binary"}

JOB = obj({"id": {"type": "integer"}, "kind": STR, "title": STR, "params": ANY_OBJECT, "subject": STR,
           "state": enum("queued", "running", "succeeded", "failed"), "state_label": STR, "finished": BOOL,
           "done": {"type": "integer"}, "total": {"type": ["integer", "null"]}, "percent": {"type": ["integer", "null"]},
           "result": {"type": ["object", "null"]}, "error": {"type": ["string", "null"]},
           "file_url": {"type": ["string", "null"]}, "url": STR, "started_by": {"type": ["string", "null"]},
           "created_at": STR, "started_at": {"type": ["string", "null"]}, "finished_at": {"type": ["string", "null"]},
           "attempts": {"type": "integer"}, "task_id": {"type": ["string", "null"]},
           "log": array(obj({"at": STR, "line": STR}))}, ["id", "kind", "state", "url"])

RUN_STATE = enum("preparing", "proof", "issued", "voided", "discarded", desc="docs/billing-runs.md")
RUN = obj({"id": {"type": "integer"}, "period_label": STR, "state": RUN_STATE, "bills": {"type": "integer"},
           "total": MONEY_OUT, "prepared_by": nullable(STR), "approved_by": nullable(STR),
           "voided_by": nullable(STR), "void_reason": nullable(STR)}, ["id", "state"])

ENDPOINTS: dict[str, list[Op] | dict[str, list[Op]]] = {
    # calculators
    "api_calc_fee": [Op("post", "The stormwater fee of a parcel (Ch. 295 Art. IV, Table 1 declining blocks)",
                        body=FEE_IN, response=FEE_OUT)],
    "api_calc_split": [Op("post", "Split an amount by unit percentages (Ch. 295 Art. IV ¶G), to the cent",
                          body=SPLIT_IN, response=obj({"amount": MONEY_OUT, "shares": array(ANY_OBJECT)}))],
    "api_calc_interest": [Op("post", "Interest on unpaid principal: 12 %/yr simple from the day after the due date",
                             body=INTEREST_IN, response=obj({"interest": MONEY_OUT, "days": {"type": "integer"}}))],
    "api_calc_deadline": [Op("post", "A relief or billing deadline (Ch. 295 Art. IV clocks; MGL c.4 §9)",
                             body=DEADLINE_IN, response=obj({"due": DATE, "rule": STR}))],
    "api_calc_engineering": {f"/api/calc/{name}": [Op("post", summary, body=schema)]
                             for name, (schema, summary) in ENGINEERING.items()},
    "api_permit_applicability": [Op(
        "post", "Does this land disturbance need a Ch. 380 permit? (§§ 380-4, 380-5)",
        body=obj({"disturbance_sqft": num(0), "disturbance_acres": num(0), "on": DATE, "common_plan": BOOL,
                  "common_plan_total_sqft": num(0), "discharges_to_ms4": BOOL, "exemption": nullable(STR),
                  "exemption_answers": ANY_OBJECT,
                  "other_work": array(obj({"description": STR, "disturbance_sqft": num(0), "on": DATE, "same_owner": BOOL,
                                           "adjacent_parcel": BOOL}, ["disturbance_sqft", "on"]))}),
        response=obj({"outcome": STR}))],

    # parcels, bills, bill runs
    "api_parcel_list": [Op("get", "Parcels the caller may see (an owner: their own), up to 200",
                           query={"q": {**STR, "description": "parcel id, address or owner name"}},
                           response=obj({"parcels": array(PARCEL)}, ["parcels"]))],
    "api_parcel_detail": [Op("get", "One parcel with its impervious area, class and fee", response=PARCEL)],
    "api_parcel_association": [
        Op("get", "The property association on a master parcel: its instrument in force and every instrument on "
                  "file (Ch. 295 Art. IV ¶G); whoever may see the parcel",
           query={"on": {**DATE, "description": "the day the instrument is in force on (default today)"}},
           params={"parcel_id": MASTER_PARCEL}, response=ASSOCIATION),
        Op("post", "Record a new instrument of the association (Ch. 295 Art. IV ¶G): unit parcels and shares totalling "
                   "exactly 100 %; parcel editors (Director, staff, Assessors). Refusals name the row and field",
           body=obj({"name": {**STR, "description": "the association's name (required for a first instrument)"},
                     "reference": {**STR, "description": "Registry book/page or Land Court document number"},
                     "recorded_on": DATE,
                     "effective_on": {**DATE, "description": "bills made from this day use it (default: recorded_on)"},
                     "note": TEXT,
                     "shares": array(obj({"unit_parcel_id": STR, "share_percent": num(0, 100)},
                                         ["unit_parcel_id", "share_percent"]), "one per unit", minItems=1)},
                    ["reference", "recorded_on", "shares"]),
           body_required=True, ok=201, extra_ok=(200,), query={"dry_run": enum("0", "1", "true", "false")},
           params={"parcel_id": MASTER_PARCEL}, response=ANY_OBJECT,
           description="201: recorded; 200: a dry run, or the same instrument already on file (nothing recorded "
                       "twice); 400 {error, problems: [{row, field, message}]}.")],
    "api_bill_detail": [Op("get", "One bill (an owner: only their own)", response=BILL)],
    "api_bill_run_issue": [Op(
        "post", "Issue the bill run of a fiscal year (idempotent: a re-run bills nothing twice), or prepare its proof",
        body=obj({"fiscal_year": YEAR, "issue_date": DATE,
                  "proof": {**BOOL, "description": "true: prepare the proof only, for a Collector or the Director to "
                                                   "approve (issue 16); false (default): issue in one step (a "
                                                   "Collector or the Director)"},
                  "background": {**BOOL, "description": "with proof: prepare it as a background job; 202 at once"}},
                 ["fiscal_year"]), body_required=True,
        ok=201, extra_ok=(200, 202), response=ANY_OBJECT,
        description="201 with the new run's summary (`state` issued, or proof); 200 when every account was billed "
                    "already or a proof of the period waits for approval; 202 with `run_id`, `state` preparing and "
                    "the `job` preparing it (poll its url) when `background` is true.")],
    "api_bill_run_detail": [Op("get", "A bill run's summary, its state, its proof and its problems",
                               response=obj({"id": {"type": "integer"}, "period_label": STR, "bills": {"type": "integer"},
                                             "total": MONEY_OUT, "state": RUN_STATE, "problems": array(ANY_OBJECT),
                                             "proof": {"type": ["object", "null"]}}, ["id"]))],
    "api_bill_run_approve": [Op("post", "Approve a proof: its bills are issued and charged (a Collector or the "
                                        "Director; a second call changes nothing)", response=RUN)],
    "api_bill_run_void": [Op("post", "Void an issued run before mailing: each charge reversed; the period may be "
                                     "billed again", body=obj({"reason": TEXT}, ["reason"]), body_required=True,
                             response=RUN)],
    "api_bill_run_discard": [Op("post", "Discard a proof (never issued); the period may be prepared again",
                                body=obj({"reason": TEXT}), response=RUN)],

    # collections
    "api_payment_post": [Op("post", "Post a payment (oldest installment first; demand → interest → principal)",
                            body=obj({"account": STR, "amount": money(minimum=0.01), "received_on": DATE,
                                      "method": STR, "reference": STR, "confirm_duplicate": BOOL},
                                     ["account", "amount", "received_on"]),
                            body_required=True, ok=201, response=obj({"id": {"type": "integer"}, "amount": MONEY_OUT,
                                                                      "applied": array(ANY_OBJECT)}))],
    "api_payment_batch": [Op("post", "Post a lockbox file, or with format=processor the online payment processor's "
                             "daily file (CSV); rows posted before (same account, amount, date, reference) are "
                             "skipped and listed; a file all posted before answers already_posted",
                             contents={"text/csv": {"type": "string"},
                                       "multipart/form-data": obj({"file": MULTIPART_FILE}, ["file"])},
                             ok=201, extra_ok=(200,),
                             query={"format": {"type": "string", "enum": ["lockbox", "processor"],
                                               "description": "default lockbox"},
                                    "dry_run": enum("0", "1", "true", "false",
                                                    desc="1: what would post (200), nothing posted")},
                             description="Read and checked whole through the import pipeline (encoding detected; "
                                         "binary, empty, cut-off files refused) before anything posts; rows "
                                         "matching no account wait in suspense (`suspense_rows`); a refused "
                                         "file → 400 with `rows` (\"row N: column: what\") and `problems` (file, "
                                         "rows, column). Each file leaves an import record (GET /api/imports/).",
                             response=obj({"posted": {"type": "integer"}, "total": MONEY_OUT,
                                           "already_posted": BOOL, "skipped_rows": array({"type": "integer"}),
                                           "suspense_rows": array({"type": "integer"}),
                                           "file": {"type": ["integer", "null"]},
                                           "message": STR, "dry_run": BOOL, "problems": array(ANY_OBJECT)}))],
    "api_payment_reverse": [Op("post", "Reverse a payment (a reversing entry; the ledger is append-only)",
                               body=obj({"reason": TEXT, "reversed_on": DATE}),
                               response=obj({"reversed": {"type": "integer"}}))],
    "api_account": [Op("get", "An account's position as of a date", query={"as_of": DATE}, response=POSITION)],
    "api_demands": [Op("post", "Serve demands on accounts (each account that cannot be served is listed)",
                       body=obj({"accounts": array(STR), "served_on": DATE}), ok=201,
                       response=obj({"served": array(ANY_OBJECT), "errors": array(ANY_OBJECT)}))],
    "api_commitments": [Op("post", "Commit served demands to the tax bill as a lien",
                           body=obj({"demand_ids": array(ID), "tax_fiscal_year": YEAR, "committed_on": DATE},
                                    ["tax_fiscal_year"]), body_required=True, ok=201,
                           response=obj({"id": {"type": "integer"}, "lines": array(ANY_OBJECT)}))],
    # The Collector's office (issue 17, docs/collector.md)
    "api_receipts": [Op("post", "Take a payment at the window: posted, numbered, in the cashier's batch",
                        body=obj({"account": STR, "amount": money(minimum=0.01), "tender": enum("cash", "check", "card", "ach"),
                                  "reference": STR, "received_on": DATE, "payer": STR, "confirm_duplicate": BOOL},
                                 ["account", "amount", "tender"], closed=True),
                        body_required=True, ok=201,
                        response=obj({"id": {"type": "integer"}, "number": STR, "batch": STR, "account": STR,
                                      "amount": MONEY_OUT, "tender": STR, "reference": STR, "received_on": DATE,
                                      "balance_before": MONEY_OUT, "balance_after": MONEY_OUT,
                                      "payment": {"type": "integer"}}),
                        description="A payment like an earlier one (account, amount, check/reference; without a "
                                    "reference, the same day) answers 400 with `duplicate_of`: send it again with "
                                    "`confirm_duplicate: true` if it really is a second payment.")],
    "api_lien_certificates": [Op("post", "Request a municipal lien certificate (MGL c.60 §23: issued within ten days)",
                                 body=obj({"parcel_id": STR, "requester_name": STR, "requester_role": STR,
                                           "requester_email": STR, "channel": enum("online", "counter"),
                                           "fee_reference": STR}, ["parcel_id", "requester_name"], closed=True),
                                 body_required=True, ok=201, response=LIEN_CERTIFICATE)],
    "api_lien_certificate": [Op("get", "A lien certificate request, with its figures once issued",
                                response=LIEN_CERTIFICATE)],
    "api_aging": [Op("get", "Aging of every account with a balance, a page at a time (account order)",
                     query={"as_of": DATE, "page": whole(1, desc="default 1"),
                            "page_size": whole(1, 10000, "accounts per page, default 1000")},
                     response=obj({"as_of": DATE, "count": whole(0, desc="accounts over every page"),
                                   "page": whole(1), "page_size": whole(1, 10000), "pages": whole(1),
                                   "totals": obj({"buckets": ANY_OBJECT, "total": MONEY_OUT},
                                                 desc="over every account, not only this page"),
                                   "accounts": array(obj({
                                       "account": STR, "parcel_id": STR, "buckets": ANY_OBJECT, "total": MONEY_OUT,
                                       "oldest_due": nullable(DATE), "owner": STR,
                                       "mailing_address": STR})),  # owner and mailing address: issue 25
                                   }),
                     description="A page past the last answers an empty `accounts` with the same `count` "
                                 "and `totals`.")],

    # fund
    "api_fund_budget": [Op("get", "A fiscal year's budget, other revenue and what the fee must raise",
                           params={"fy": YEAR})],
    "api_fund_line_create": [Op("post", "Add a budget line", params={"fy": YEAR}, ok=201, body_required=True,
                                body=obj({"category": STR, "allowed_use": STR, "description": STR, "amount": money()},
                                         ["category", "allowed_use", "description", "amount"], closed=True))],
    "api_fund_revenue_create": [Op("post", "Add other revenue of the account", params={"fy": YEAR}, ok=201,
                                   body_required=True,
                                   body=obj({"kind": STR, "source": STR, "amount": money(), "dated": DATE,
                                             "received": BOOL, "notes": TEXT},
                                            ["kind", "source", "amount", "dated"], closed=True))],
    "api_fund_rate_model": [Op("post", "Solve the rate that balances the fund (the rate model)", body_required=True,
                               body=(RATE_MODEL := obj({
                                   "fiscal_year": YEAR, "base_as_of": DATE, "budget": money(minimum=0),
                                   "other_revenue": money(minimum=0), "reserve_use": money(minimum=0),
                                   "collection_rate_percent": num(), "credit_allowance_percent": num(),
                                   "flat_ratio": num(), "sample_erus": array(whole(1), maxItems=12)},
                                   ["fiscal_year"], closed=True)))],
    "api_fund_rate_adopt": [Op("post", "Adopt the modelled rate as a resolution (Select Board)", ok=201,
                               body_required=True,
                               body=obj({"model": RATE_MODEL, "adoption": obj({
                                   "label": STR, "adopted_on": DATE, "effective_from": DATE, "rate_per_eru": money(),
                                   "installments": whole(1, 4), "interest_rate_percent": num(),
                                   "demand_charge": money(), "notes": TEXT}, ["label", "effective_from"], closed=True)},
                                   ["model", "adoption"], closed=True))],
    "api_fund_receipts": [Op("get", "Fee receipts by period", query={
        "start": DATE, "end": DATE, "grouping": enum("day", "month", "quarter", "fiscal_year")})],
    "api_fund_revenue_vs_budget": [Op("get", "Revenue against budget for a fiscal year",
                                      query={"fy": YEAR, "as_of": DATE})],

    # GIS
    "api_gis_parcel_geojson": [Op("get", "The parcel and its impervious pieces by layer (GeoJSON, WGS84)",
                                  query={"survey": {**STR, "description": "a survey id (digits)"}})],
    "api_gis_survey_eru": [Op("get", "The ERU determination of a survey")],
    "api_gis_changes": [Op("get", "What changed between two surveys, parcel by parcel")],
    "api_gis_changes_geojson": [Op("get", "The changes between two surveys as GeoJSON")],
    "api_gis_layers_import": [Op(
        "post", "Import GIS layers as a dated impervious survey; a dry run (the report) unless ?dry_run=0",
        contents={"multipart/form-data": obj({
            "file": {"anyOf": [MULTIPART_FILE, array(MULTIPART_FILE)],
                     "description": "GeoPackage, GeoJSON, zipped Shapefile or zipped File Geodatabase (repeatable)"},
            "parcels": {**STR, "description": "FILE[:LAYER] of the parcel polygons (LAYER alone with one file)"},
            "id_field": {**STR, "description": "the parcel id field of the parcel layer"},
            "impervious": {"type": ["string", "array"], "items": STR, "description": "FILE[:LAYER], repeatable"},
            "right_of_way": {"type": ["string", "array"], "items": STR, "description": "FILE[:LAYER], repeatable"},
            "row_where": {"type": ["string", "array"], "items": STR,
                          "description": "FIELD=V1,V2: parcel-layer rows that are right-of-way, repeatable"},
            "source_crs": {**STR, "description": "EPSG:NNNN for inputs that carry no CRS"},
            "name": STR, "surveyed_on": DATE}, ["file", "parcels", "id_field", "impervious"])},
        body_required=True, ok=201, extra_ok=(200,), query={"dry_run": enum("0", "1", "true", "false",
                                                                          desc="default 1: check only")},
        description="200: the dry run's report (parcels in the layer and matched, impervious total, findings by "
                    "layer and feature, `comparison`: what the survey does to the bill) or `unchanged` (the same "
                    "areas as a survey on record); 201: imported (`survey_id`). 400 names the file, layer, feature "
                    "or field (an unreadable or truncated file, a layer or field not there, degrees or metres "
                    "labelled as feet, an empty layer …) with every finding in `problems`; nothing is changed.",
        response=obj({"dry_run": BOOL, "parcels_in_layer": {"type": "integer"}, "parcels_matched": {"type": "integer"},
                      "layers": array(STR), "impervious_sqft_total": {"type": "number"},
                      "problems": array(ANY_OBJECT), "comparison": ANY_OBJECT, "survey_id": {"type": "integer"},
                      "unchanged": BOOL}))],
    "api_import_records": [Op("get", "The last imports, newest first: kind, file, outcome, checksums, counts",
                              query={"kind": STR, "limit": whole(1, 500, desc="default 50")},
                              response=obj({"imports": array(ANY_OBJECT)}))],
    "api_imports_assessor": [Op("post", "Import assessor records (CSV or .xlsx) with a field mapping; ?dry_run=1 lists "
                                        "the changes only; a refused file → 400 with every finding by row and column",
                                contents={"multipart/form-data": obj({"file": MULTIPART_FILE, "mapping": STR}, ["file"])},
                                ok=201, extra_ok=(200,), query={"dry_run": enum("0", "1", "true", "false")},
                                response=obj({"rows": {"type": "integer"}, "created": {"type": "integer"},
                                              "updated": {"type": "integer"}, "unchanged": {"type": "integer"},
                                              "owners_created": {"type": "integer"}, "dry_run": BOOL,
                                              "problems": array(ANY_OBJECT)}))],
    "api_imports_water_sewer": [Op("post", "Import parcel id ↔ water/sewer account (CSV: parcel_id,water_sewer_account); "
                                           "?dry_run=1 lists the changes only; a refused file → 400 with every finding",
                                   contents={"text/csv": {"type": "string"},
                                             "multipart/form-data": obj({"file": MULTIPART_FILE}, ["file"])},
                                   ok=201, extra_ok=(200,), query={"dry_run": enum("0", "1", "true", "false")},
                                   response=obj({"rows": {"type": "integer"}, "parcels_changed": {"type": "integer"},
                                                 "unchanged": {"type": "integer"}, "dry_run": BOOL,
                                                 "outcome": nullable(STR), "import_record": nullable({"type": "integer"}),
                                                 "changes": array(ANY_OBJECT), "problems": array(ANY_OBJECT)}))],

    # engineering review
    "api_review_run": [Op("post", "Run the engineering review of a stormwater management plan (JSON or YAML)",
                          contents={"application/json": ANY_OBJECT, "text/plain": {"type": "string",
                                                                                  "description": "the plan as YAML"}},
                          body_required=True, query={"title": STR, "case": STR}, ok=201)],
    "api_review_detail": [Op("get", "A stored review report")],
    "api_bmp_tables": [Op("get", "The official BMP performance tables in force",
                          response=obj({"tables": array(ANY_OBJECT)}, ["tables"]))],

    # permits
    "api_permit_list": [Op("get", "Permit files the caller may see", response=obj({"permits": array(PERMIT)}))],
    "api_permit_detail": [Op("get", "A permit file", response=PERMIT)],
    "api_permit_start": [Op("post", "Start a permit application (a draft)", ok=201, body_required=True, response=PERMIT,
                            body=obj({"owner_name": STR, "owner_address": STR, "agent_name": STR, "site_address": STR,
                                      "parcel_ids": {"type": ["array", "string"], "items": STR},
                                      "description": TEXT, "project_type": enum(*ProjectType.values),
                                      "disturbance_sqft": num(0), "common_plan": BOOL,
                                      "other_work": array(obj({"description": STR, "disturbance_sqft": num(0), "on": DATE},
                                                              ["disturbance_sqft", "on"])),
                                      "wetlands_jurisdiction": BOOL, "other_board_hearing": STR, "planning_board": BOOL,
                                      "autocad_plans": BOOL},
                                     ["owner_name", "owner_address", "site_address", "description", "project_type",
                                      "disturbance_sqft"]))],
    "api_permit_upload": [Op("post", "Upload a document to a permit file (content type sniffed)", ok=201,
                             response=PERMIT, body_required=True,
                             contents={"multipart/form-data": obj({"file": MULTIPART_FILE, "tag": STR, "title": STR},
                                                                  ["file", "tag"])})],
    "api_permit_file": [Op("post", "File the application: refused (400, naming each missing item and the unpaid fee) "
                                  "until the package is complete and the fees are paid (§ 380-10 B(1), G(1)); then the "
                                  "42-day clock and the notices", response=PERMIT)],
    "api_permit_checklist_confirm": [Op("post", "Confirm a checklist item received on paper", body=obj({"note": TEXT}),
                                        response=PERMIT)],
    "api_permit_fees_paid": [Op("post", "Record the application and review fees received",
                                body=obj({"paid_on": DATE, "receipt": STR}), response=PERMIT)],
    "api_permit_complete": [Op("post", "Determine the application complete", response=PERMIT)],
    "api_permit_incomplete": [Op("post", "Determine the application incomplete (the clock stops)",
                                 body=obj({"cure_by": DATE, "note": TEXT}, ["cure_by"]), body_required=True,
                                 response=PERMIT)],
    "api_permit_info_request": [Op("post", "Request information (the 42-day clock stops)",
                                   body=obj({"items": LINES}, ["items"]), body_required=True, response=PERMIT)],
    "api_permit_info_response": [Op("post", "The applicant's response (the clock resumes)",
                                    body=obj({"response": TEXT}), response=PERMIT)],
    "api_permit_extend": [Op("post", "Extend the action clock with its reason (§ 380-10 I(2))",
                             body=obj({"days": whole(1, 3650), "reason": TEXT}, ["days", "reason"]), body_required=True,
                             response=PERMIT)],
    "api_permit_decide": [Op("post", "The Director's decision (§ 380-10 I(1))", body_required=True, response=PERMIT,
                             body=obj({"kind": enum("approve", "approve_conditions", "disapprove"), "findings": TEXT,
                                       "standards": {"type": ["array", "string"], "items": enum(*STANDARDS)},
                                       "conditions": LINES, "order_of_conditions": STR, "sheets": LINES},
                                      ["kind", "findings", "standards"]))],
    "api_permit_close": [Op("post", "Close the file", body=obj({"why": TEXT}), response=PERMIT)],
    "api_permit_sheets_proposed": [Op(
        "get", "The approved plan sheets proposed from the plans under review (issue 18): the newest review's plan "
               "file sheet index, else the newest plan set PDF's bookmarks and title blocks",
        response=obj({"permit": STR, "sheets": array(STR), "source": nullable(STR), "note": STR}, ["permit", "sheets"]))],
    "api_permit_parties": [
        Op("get", "The people linked to a permit (design engineer, contractor, the owner's agent; issue 18)",
           response=obj({"permit": STR, "parties": array(PARTY)}, ["permit", "parties"])),
        Op("post", "Link a signed-up person to the permit (the applicant or staff)", ok=201, body_required=True,
           body=obj({"who": {**STR, "description": "their username or e-mail address"},
                     "role": enum("design_engineer", "contractor", "agent")}, ["who", "role"], closed=True),
           response=obj({"permit": STR, "party": PARTY, "parties": array(PARTY)}, ["permit", "party", "parties"]),
           description="400 names the field (who: no such active account, or already linked in that role; role); "
                       "403 when the caller is neither the applicant nor staff.")],
    "api_permit_party": [
        Op("get", "One person linked to a permit", response=PARTY),
        Op("delete", "Unlink a person from the permit (the applicant or staff); the timeline keeps that they were",
           response=obj({"permit": STR, "parties": array(PARTY)}, ["permit", "parties"]))],
    "api_workbench": [Op("get", "The reviewer's workbench: the state of every checklist item of a file")],
    "api_workbench_findings": [Op(
        "post", "Record findings on checklist items, all or none", ok=201, body_required=True,
        body=obj({"findings": array(obj({"para": STR, "finding": STR, "reason": TEXT, "mitigation": TEXT,
                                         "comment": TEXT, "document": nullable(ID), "page": STR, "condition": TEXT},
                                        ["para", "finding"]), minItems=1)}, ["findings"]),
        response=obj({"recorded": array(ANY_OBJECT)}, ["recorded"]))],

    # relief
    "api_relief_list": [Op("get", "Credit, abatement and appeal cases the caller may see",
                           response=obj({"cases": array(CASE)}, ["cases"]))],
    "api_relief_queue": [Op("get", "Every running clock of an open relief case, due first",
                            response=obj({"today": DATE, "queue": array(ANY_OBJECT)}))],
    "api_abatement_apply": [Op("post", "Apply for an abatement of a bill (Ch. 295 Art. IV)", ok=201, response=CASE,
                               body_required=True,
                               body=obj({"bill": STR, "grounds": array(STR), "statement": TEXT, "amount": money(minimum=0),
                                         "disposition": enum("refund", "credit")}, ["bill", "amount"]))],
    "api_credit_apply": [Op("post", "Apply for a credit of the policy in force", ok=201, response=CASE,
                            body_required=True,
                            body=obj({"parcel_id": STR, "credit": STR, "statement": TEXT}, ["parcel_id", "credit"]))],
    "api_relief_detail": [Op("get", "A relief case with its documents and events", response=CASE)],
    "api_relief_act": [Op("post", "One act on a relief case (the act's own permission applies)", response=CASE,
                          ok=200, extra_ok=(201,), params={"action": enum(*ACTIONS)},
                          description="Acts and their fields: " + "; ".join(
                              f"{k} ({a.label})" for k, a in ACTIONS.items())
                          + ". Fields: on (date), decision, reasons, percent, amount, credit_percent, missing, note, "
                            "reason, lapsed, grounds, related_abatement, hearing_at (date and time), place, outcome, "
                            "findings, why. appeal answers 201 with the new appeal case.",
                          body=obj({"on": DATE, "decision": STR, "reasons": TEXT, "percent": money(), "amount": money(),
                                    "credit_percent": money(), "missing": TEXT, "note": TEXT, "reason": TEXT,
                                    "lapsed": {"type": ["boolean", "string"]}, "grounds": TEXT,
                                    "related_abatement": STR, "hearing_at": DATETIME, "place": STR, "outcome": STR,
                                    "findings": TEXT, "why": TEXT}))],

    # construction and stewardship
    "api_construction_list": [Op("get", "Construction projects the caller may see",
                                 response=obj({"projects": array(ANY_OBJECT)}, ["projects"]))],
    "api_construction_detail": [Op("get", "A construction project: inspections, areas, surety, violations")],
    "api_ms4_report": [Op("get", "MS4 annual report counts (construction and post-construction programs)",
                          query={"year": whole(2000, 2100, "the permit year ending June 30 of it")},
                          response=obj({"permit_year": STR, "rows": array(ANY_OBJECT)}))],
    "api_site_detail": [Op("get", "A stewardship site: O&M plan, next certification, easements")],

    # background jobs (stormwater.jobs, docs/jobs.md)
    "api_jobs": [Op("get", "Recent jobs the caller may see (newest first, up to 100)",
                    response=obj({"jobs": array(JOB)}, ["jobs"])),
                 Op("post", "Start a job of a registered kind; poll its url for progress",
                    body=obj({"kind": STR, "params": ANY_OBJECT}, ["kind"], closed=True), body_required=True,
                    ok=202, response=JOB,
                    description="400 names the field (unknown kind, a parameter the kind refuses); 403 when the "
                                "caller's role may not start that kind.")],
    "api_job_detail": [Op("get", "One job: state, progress (done of total), result, error, file, last log lines",
                          response=JOB)],

    # the work queue (stormwater.workqueue, issue 16)
    "api_work_queue": [Op("get", "The caller's work queue: everything with a clock their role acts on or they are a "
                                 "party to, overdue first, then by due date",
                          query={"source": enum("relief", "permits", "construction", "stewardship", "collections",
                                                "bills", "bill_runs",
                                                desc="keep one app's items (repeat the parameter for several)")},
                          response=obj({"as_of": DATE, "count": whole(0), "overdue": whole(0), "failed": array(STR),
                                        "items": array(WORK_ITEM)},
                                       ["as_of", "count", "overdue", "failed", "items"]),
                          description="Each item: what to do (action), by when (due; due_at when the rule counts "
                                      "hours), overdue, days_left, the record and the act's URL, who acts, the "
                                      "permissions that act on it and the citation of the clock's source. 400 names "
                                      "an unknown source. Works with an API token (the token's role).")],

    # the contract itself
    "api_openapi": [Op("get", "This document (OpenAPI 3.1)")],
    "api_docs": [Op("get", "The readable reference of this document", response_type="text/html",
                    response={"type": "string"})],
}
