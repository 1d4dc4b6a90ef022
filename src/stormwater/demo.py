"""The demo town: a few hundred synthetic but realistic Longmeadow-like parcels of every class.

Deterministic (fixed seed). Street names are Longmeadow's; owners, areas and ids are synthetic.
Includes the cases staff must see: a condominium association with recorded unit percentages,
public ways (exempt), a road-maintenance garage (not exempt), a parcel over 500 ERUs, and parcels
that cannot be billed (no owner, unknown dwelling units, impervious area larger than the lot).
Also imports real geometry (``_demo_gis``): a North Cambridge, MA neighbourhood as a stand-in, through the
GIS import services, so those parcels have maps and fees from the overlay.
"""
from __future__ import annotations

import random
from datetime import date
from decimal import Decimal
from pathlib import Path

from django.db import transaction

from stormwater.accounts.models import User
from stormwater.accounts.roles import Role
from stormwater.parcels.models import (AssociationInstrument, AssociationUnit, ImperviousSurvey, InstrumentShare,
                                       Owner, Parcel, ParcelImpervious, PropertyAssociation)
from stormwater.rules import town
from stormwater.rules.fees import TABLE_1_BLOCKS

from stormwater.utility.services import bill_run_issue, fiscal_year, resolution_adopt

STREETS = ["Longmeadow St", "Williams St", "Converse St", "Laurel St", "Maple Rd", "Bliss Rd", "Wolf Swamp Rd",
           "Shaker Rd", "Dwight Rd", "Frank Smith Rd", "Englewood Rd", "Ellington Rd", "Colony Hills Dr",
           "Birnie Rd", "Merriweather Dr", "Greenacre Ave", "Hopkins Pl", "Emerson Rd", "Belleclaire Ave",
           "Captain Rd", "Lawnwood Ave", "Farmington Ave", "Edgewood Ave", "Wheel Meadow Dr", "Tanglewood Dr"]
FIRST = ["James", "Mary", "Robert", "Patricia", "John", "Jennifer", "Michael", "Linda", "David", "Elizabeth",
         "William", "Susan", "Richard", "Jessica", "Joseph", "Sarah", "Thomas", "Karen", "Daniel", "Nancy",
         "Priya", "Wei", "Carlos", "Fatima", "Liam", "Aisha", "Noah", "Sofia", "Ethan", "Mei"]
LAST = ["Smith", "Johnson", "Brennan", "O'Connor", "Kowalski", "Nguyen", "Patel", "Rossi", "Cohen", "Murphy",
        "Sullivan", "Garcia", "Chen", "Kelly", "Lombardi", "Dubois", "Fitzgerald", "Shapiro", "Rivera", "Walsh",
        "Kim", "Greene", "Moriarty", "Haddad", "Bergeron", "Costa", "Levine", "Okafor", "Tran", "Harrington"]

DEMO_PASSWORD = "stormwater-demo"
DEMO_USERS = [
    ("director", Role.DIRECTOR, "Dana", "Whitfield"),
    ("staff", Role.STAFF, "Sam", "Ortiz"),
    ("collector", Role.COLLECTOR, "Chris", "Delgado"),
    ("assessor", Role.ASSESSOR, "Alex", "Moreau"),
    ("clerk", Role.CLERK, "Kim", "Abernathy"),
    ("inspector", Role.INSPECTOR, "Ivan", "Petrov"),
    ("consultant", Role.CONSULTANT, "Casey", "Lund"),
    ("owner", Role.OWNER, "Olivia", "Brennan"),
]
DEMO_ISSUE_DATE = date(2026, 9, 15)
DEMO_FY = 2027


def _addr(rng: random.Random) -> tuple[str, str]:
    return f"{rng.randint(10, 1400)} {rng.choice(STREETS)}", "Longmeadow, MA 01106"


@transaction.atomic
def demo_load(*, parcels: int = 400, seed: int = 1783, issue_run: bool = True) -> dict:
    """Load the demo town into an empty database; returns what was made. Refuses if parcels exist."""
    if Parcel.objects.exists():
        return {"loaded": False, "message": "Parcels already exist: the demo town is not loaded twice."}
    rng = random.Random(seed)
    users = {}
    for username, role, first, last in DEMO_USERS:
        u = User.objects.create_user(username=username, password=DEMO_PASSWORD, role=role, first_name=first,
                                     last_name=last, email=f"{username}@longmeadow.example")
        users[username] = u
    director = users["director"]

    survey = ImperviousSurvey.objects.create(name="Demo impervious survey 2026", surveyed_on=date(2026, 4, 1),
                                             source="Synthetic demo data (not Longmeadow's GIS)")
    owners: list[Owner] = []

    def owner(name: str | None = None, business: bool = False) -> Owner:
        street, city = _addr(rng)
        nm = name or f"{rng.choice(FIRST)} {rng.choice(LAST)}"
        o = Owner.objects.create(name=nm, mailing_address=f"{street}\n{city}")
        owners.append(o)
        return o

    made: list[tuple[Parcel, Decimal | None, dict]] = []
    seq = [0]

    def parcel(*, use: str, units: int | None, imp: float | None, lot: float, own: Owner | None, addr: str = "",
               layers: dict | None = None, **kw) -> Parcel:
        seq[0] += 1
        m, b = divmod(seq[0], 40)
        p = Parcel.objects.create(parcel_id=f"{m + 1:02d}-{b + 1:02d}-{rng.randint(1, 99)}",
                                  address=addr or _addr(rng)[0], owner=own, land_use_code=use, dwelling_units=units,
                                  lot_sqft=Decimal(str(round(lot))), **kw)
        if imp is not None:
            area = Decimal(str(round(imp)))
            if layers is None:
                bld = (area * Decimal("0.55")).quantize(Decimal(1))
                layers = {"buildings": str(bld), "driveways and parking": str(area - bld)}
            made.append((p, area, layers))
        return p

    n_single = int(parcels * 0.72)
    for _ in range(n_single):
        imp = rng.lognormvariate(8.13, 0.35)  # median ≈ 3,400 ft²
        parcel(use="101", units=1, imp=imp, lot=max(imp * 4, rng.uniform(9000, 40000)), own=owner())
    for _ in range(int(parcels * 0.06)):
        imp = rng.lognormvariate(8.3, 0.3)
        parcel(use="104", units=2, imp=imp, lot=imp * rng.uniform(3, 6), own=owner())
    for _ in range(3):
        parcel(use="105", units=3, imp=rng.uniform(4000, 6500), lot=rng.uniform(12000, 20000), own=owner())
    # Large residential: apartments (4–8 units: DOR 111; 9+: 112).
    for units, imp in ((6, 9800), (24, 38500), (48, 71000)):
        parcel(use="111" if units <= 8 else "112", units=units, imp=imp, lot=imp * 2.5,
               own=owner(f"{rng.choice(LAST)} Apartments LLC", True))
    # A condominium association whose recorded instrument splits the fee (Ch. 295 Art. IV ¶G).
    condo = parcel(use="102", units=12, imp=26400, lot=90000, own=owner("Laurel Commons Condominium Trust", True),
                   addr="250 Laurel St")
    assoc = PropertyAssociation.objects.create(parcel=condo, name="Laurel Commons Condominium")
    deed = AssociationInstrument.objects.create(
        association=assoc, reference="Hampden Registry of Deeds Book 15872 Page 311", recorded_on=date(2009, 6, 12),
        effective_on=date(2009, 6, 12), note="Master deed")
    pcts = [Decimal("8.3334")] * 4 + [Decimal("8.3333")] * 8
    for i, pct in enumerate(pcts, 1):
        unit = AssociationUnit.objects.create(association=assoc, unit=str(i), owner=owner())
        InstrumentShare.objects.create(instrument=deed, unit=unit, percent=pct)
    # Nonresidential: commercial, industrial, mixed use, institutions, public buildings.
    commercial = [("325", "Longmeadow Shops (retail)", 61000), ("340", "Bay Path professional offices", 22000),
                  ("332", "Auto service station", 9100), ("326", "Restaurant", 7400), ("343", "Bank branch", 8800),
                  ("300", "Hotel on Longmeadow St", 30500), ("304", "Nursing home", 48000),
                  ("342", "Medical office", 12500), ("337", "Parking lot", 15500)]
    for use, name, imp in commercial:
        parcel(use=use, units=None, imp=imp, lot=imp * rng.uniform(1.6, 3.0), own=owner(f"{name} LLC", True))
    parcel(use="401", units=None, imp=3_000_000, lot=4_400_000, own=owner("Meadowbrook Distribution Center LLC", True),
           addr="1 Industrial Way")  # over 500 ERUs: flagged for review
    parcel(use="013", units=1, imp=6900, lot=15000, own=owner(), addr="700 Longmeadow St")  # mixed use
    parcel(use="031", units=2, imp=8200, lot=14000, own=owner(), addr="725 Longmeadow St")  # mixed use
    town_owner = owner("Town of Longmeadow", True)
    for name, imp, use, kw in (("Longmeadow High School", 265000, "903", {}),
                               ("Town Hall", 21000, "903", {}),
                               ("Storrs Library", 14500, "903", {}),
                               ("Laurel Park (recreation)", 18000, "903", {}),
                               ("DPW garage (road maintenance)", 52000, "903", {"public_way": True, "road_maintenance": True})):
        parcel(use=use, units=None, imp=imp, lot=imp * 3.5, own=town_owner, addr=name, **kw)
    parcel(use="906", units=None, imp=24000, lot=80000, own=owner("First Church of Christ", True),
           addr="763 Longmeadow St")
    parcel(use="904", units=None, imp=96000, lot=400000, own=owner("Bay Path University", True),
           addr="588 Longmeadow St")
    parcel(use="901", units=None, imp=4400, lot=30000, own=owner("Commonwealth of Massachusetts", True),
           addr="State police barracks, Dwight Rd")
    # Public ways: exempt (Ch. 295 Art. IV exemptions ¶B(1)).
    for street in STREETS[:4]:
        parcel(use="903", units=None, imp=rng.uniform(80000, 160000), lot=200000, own=town_owner,
               addr=f"{street} (public way)", public_way=True)
    # Vacant land: no dwellings, fee by impervious area (none → no fee).
    for _ in range(6):
        parcel(use=rng.choice(["130", "132"]), units=0, imp=rng.choice([0, 0, 0, 650]), lot=rng.uniform(8000, 60000),
               own=owner())
    # Parcels that cannot be billed: staff must see each with its reason.
    parcel(use="101", units=1, imp=3100, lot=12000, own=None, addr="17 Birnie Rd")  # no owner of record
    parcel(use="101", units=None, imp=3300, lot=11000, own=owner(), addr="44 Bliss Rd")  # unknown units
    parcel(use="340", units=None, imp=250000, lot=20000, own=owner("Data Error Realty Trust", True),
           addr="9 Converse St")  # impervious larger than the lot
    parcel(use="326", units=None, imp=None, lot=15000, own=owner("New Diner LLC", True),
           addr="1200 Williams St")  # no impervious measured

    ParcelImpervious.objects.bulk_create(
        ParcelImpervious(survey=survey, parcel=p, impervious_sqft=a, by_layer=layers) for p, a, layers in made)

    # The demo owner login sees two parcels of their own.
    mine = owners[0]
    mine.user = users["owner"]
    mine.name = "Olivia Brennan"
    mine.save()
    condo_unit = AssociationUnit.objects.filter(association=assoc, unit="1").select_related("owner").get()
    condo_unit.owner.user = users["owner"]
    condo_unit.owner.save()

    out_gis = _demo_gis(users, seed)

    res = resolution_adopt(
        label=town.DEMO_LABEL, adopted_on=date(2026, 6, 1), effective_from=date(2026, 7, 1),
        eru_sqft=town.DEMO_ERU_SQFT, rate_per_eru=town.DEMO_RATE_PER_ERU,
        small_residential_rate=town.DEMO_SMALL_RESIDENTIAL_RATE, installments=town.DEMO_INSTALLMENTS,
        interest_rate_percent=town.DEMO_INTEREST_RATE_PERCENT, demand_charge=town.DEMO_DEMAND_CHARGE,
        blocks=list(TABLE_1_BLOCKS), is_demo=True,
        notes="Demo values: ERU and rate as reported for Longmeadow in the WKU Stormwater Utility Survey 2021; "
              "replace with the Select Board's current resolution.", acting_user=director)
    # Most parcels have a Town water/sewer account: their stormwater fee rides on that bill.
    wet = [p.pk for p in Parcel.objects.order_by("pk") if rng.random() < 0.8]
    for pk in wet:
        Parcel.objects.filter(pk=pk).update(water_sewer_account=f"W{pk:06d}")
    out = {"loaded": True, "parcels": Parcel.objects.count(), "resolution": res.pk, "gis": out_gis}
    if issue_run:
        label, start, end = fiscal_year(DEMO_FY)
        result = bill_run_issue(period_label=label, period_start=start, period_end=end, issue_date=DEMO_ISSUE_DATE,
                                acting_user=users["collector"])
        out["bill_run"] = result.as_json()
        out["collections"] = _demo_collections(rng, users["collector"])
    out["fund"] = _demo_fund(users["collector"])
    out["permits"] = _demo_permits(users, owners)
    out["relief"] = _demo_relief(users)
    from stormwater.demo_field import demo_field  # construction, stewardship, abatement, meeting (issue 16)
    out["field"] = demo_field(users)
    return out


DEMO_GIS_DIR = Path(__file__).resolve().parent / "demo_data"
DEMO_GPKG = DEMO_GIS_DIR / "cambridge_north_sample.gpkg"
DEMO_GIS_IMPERVIOUS = ["driveways", "parking_lots", "impervious_other", "decks", "porches", "private_walkways",
                       "stairs", "plazas"]
DEMO_GIS_SURVEYED_ON = date(2026, 5, 1)


def _demo_gis(users, seed: int) -> dict:
    """Real geometry: a North Cambridge, MA neighbourhood (public-domain city data, demo_data/) stands in
    for a Longmeadow one. Its assessing rows and 2018 planimetric layers go through the same GIS import
    services as a real import (assessor records, then a dated survey), so these parcels have polygons,
    impervious pieces and fees from the overlay. The sample has no owner names: each parcel gets a
    synthetic owner (deterministic). Unit counts are the data's own: apartments without them stay
    unbillable, listed with their reason like any import's."""
    from stormwater.gis import assessor
    from stormwater.gis.services import LayerSpec, SurveySpec, assessor_records_import, survey_import

    g = str(DEMO_GPKG)
    rng = random.Random(seed + 1)  # its own stream: the synthetic town's draws are unchanged
    cols, rows = assessor.read_table(g, "assessing_taxfy14")
    records, problems = assessor.map_rows(rows, assessor.guess_mapping(cols))
    for rec in sorted(records, key=lambda r: r.parcel_id):
        rec.owner_name = (f"{rec.address.title()} Condominium Trust" if rec.land_use_code == "102"
                          else f"{rng.choice(FIRST)} {rng.choice(LAST)}")
        rec.owner_address = f"{rec.address.title()}\nCambridge, MA 02140"
    res = assessor_records_import(records=records, problems=problems, acting_user=users["assessor"],
                                  source="Demo: Cambridge assessing FY2014 (demo_data/cambridge_north_sample.gpkg)")
    spec = SurveySpec(parcels=LayerSpec(g, "parcels_fy2014"), id_field="ML",
                      impervious=[LayerSpec(g, x) for x in DEMO_GIS_IMPERVIOUS],
                      right_of_way=[LayerSpec(g, "roads"), LayerSpec(g, "sidewalks")])
    outcome = survey_import(spec=spec, name="Demo GIS survey 2026 (North Cambridge stand-in)",
                            surveyed_on=DEMO_GIS_SURVEYED_ON, acting_user=users["staff"],
                            source="Cambridge GIS 2018 planimetrics, parcels FY2014 (PDDL); demo_data/")
    return {"parcels": len(res.created), "survey": outcome.survey.pk,
            "parcels_matched": outcome.report["parcels_matched"]}


def _demo_relief(users) -> dict:
    """The demo credit policy; the demo owner's BMP credit application waiting on the Director's
    30 days; and a protected-land credit granted to the university (it applies from the next bill)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.relief.models import CreditType
    from stormwater.relief.services import (credit_apply, credit_decide, credit_determine_complete,
                                            credit_policy_load_demo)

    today = date.today()
    policy = credit_policy_load_demo(effective_from=date(2026, 7, 1), acting_user=users["director"])
    pdf = b"%PDF-1.4\n% demo document\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"

    def docs(ct):
        return [(tag, SimpleUploadedFile(f"{tag}.pdf", pdf, "application/pdf")) for tag, _ in ct.required_documents]

    bmp = CreditType.objects.get(policy=policy, code="BMP")
    mine = Parcel.objects.filter(owner__user=users["owner"]).first()
    waiting = credit_apply(parcel=mine, credit_type=bmp, acting_user=users["owner"], uploads=docs(bmp), on=today,
                           statement="Two rain gardens take the roof and driveway runoff (installed 2025).")
    credit_determine_complete(application=waiting, acting_user=users["staff"], on=today)
    protected = CreditType.objects.get(policy=policy, code="PROTECTED")
    univ = Parcel.objects.filter(owner__name="Bay Path University").first()
    granted = credit_apply(parcel=univ, credit_type=protected, acting_user=users["staff"], uploads=docs(protected),
                           on=today, statement="12 acres under a recorded conservation restriction.")
    credit_determine_complete(application=granted, acting_user=users["staff"], on=today)
    credit_decide(application=granted, decision="grant", reasons="Restriction recorded; land undisturbed.",
                  acting_user=users["director"], on=today)
    return {"waiting": waiting.case.number, "granted": granted.case.number}


def _demo_fund(collector) -> dict:
    """An FY2027 budget for the Stormwater Management Account (demo figures), and a grant."""
    from stormwater.fund.services import budget_line_create, other_revenue_create

    lines = [("direct", "B", "Stormwater Division staff (1.5 FTE)", "38500"),
             ("direct", "D", "Catch basin cleaning and street sweeping", "14200"),
             ("indirect", "K", "Billing and Collector's office time", "3900"),
             ("direct", "F", "Illicit discharge detection and elimination", "2400"),
             ("capital", "E", "Culvert replacement, Wolf Swamp Rd (share)", "6000"),
             ("reserve", "B", "Operating reserve", "2500")]
    for cat, use, desc, amount in lines:
        budget_line_create(fiscal_year=DEMO_FY, category=cat, allowed_use=use, description=desc,
                           amount=Decimal(amount), acting_user=collector)
    other_revenue_create(fiscal_year=DEMO_FY, kind="grant", source="MassDEP 604(b) water quality grant (demo)",
                         amount=Decimal("4500"), dated=date(2026, 8, 1), acting_user=collector)
    return {"budget_lines": len(lines)}


def _demo_permits(users, owners) -> dict:
    """Two permit files: the demo owner's draft, and a filed application under review with a request
    for information (dated today, so its 42-day clock runs from now)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from stormwater.permits.checklist import ITEMS
    from stormwater.permits.services import (abutters_mailed, abutters_set, checklist_confirm,
                                             permit_application_start, permit_determine_complete,
                                             permit_document_upload, permit_fees_paid, permit_file,
                                             permit_request_information)

    today = date.today()
    mine = Parcel.objects.filter(owner__user=users["owner"]).first()
    draft = permit_application_start(
        acting_user=users["owner"], owner=mine.owner if mine else None, owner_name=users["owner"].get_full_name(),
        site_address=mine.address if mine else "1 Demo St", description="New garage, driveway and regrading",
        disturbance_sqft=Decimal("48000"), parcels=[mine] if mine else [])
    shops = Parcel.objects.filter(owner__name__startswith="Longmeadow Shops").first()
    app = permit_application_start(
        acting_user=users["staff"], owner=shops.owner, owner_name=shops.owner.name, site_address=shops.address,
        description="Retail expansion with 1.6 acres of land disturbance and a new parking field",
        disturbance_sqft=Decimal("69700"), parcels=[shops], agent_name="Bay State Civil Engineering (agent)")
    pdf = b"%PDF-1.4\n% demo document\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
    for item in ITEMS:
        if item.by_upload and item.key != "autocad":
            permit_document_upload(application=app, upload=SimpleUploadedFile(f"{item.key}.pdf", pdf, "application/pdf"),
                                   tag=item.key, acting_user=users["staff"])
    abutters_set(application=app, text="Maple Realty Trust\n12 Maple Rd\nLongmeadow, MA 01106\n\n"
                                       "J. and R. Cohen\n20 Maple Rd\nLongmeadow, MA 01106",
                 certified_on=today, acting_user=users["staff"])
    abutters_mailed(application=app, mailed_on=today, acting_user=users["staff"])
    checklist_confirm(application=app, key="paper_copies", acting_user=users["staff"])
    permit_fees_paid(application=app, paid_on=today, receipt="DPW-4471", acting_user=users["staff"])
    permit_file(application=app, acting_user=users["staff"], on=today)
    permit_determine_complete(application=app, acting_user=users["staff"], on=today)
    permit_request_information(application=app, acting_user=users["staff"], on=today,
                               items="Infiltration test pits at the trench location (§ 380-12 A(3)(g)[11])\n"
                                     "Downstream culvert capacity evaluation (§ 380-11 B(7))")
    return {"draft": draft.case.number, "under_review": app.case.number}


def _demo_collections(rng: random.Random, collector) -> dict:
    """Most owners paid in October; some paid part; the rest are late, and a few were served demands."""
    from datetime import timedelta

    from stormwater.receivables.services import demand_serve, payment_post
    from stormwater.utility.models import Account, Bill

    paid = partial = demanded = 0
    late = []
    for acct in Account.objects.filter(bills__isnull=False).distinct().order_by("number"):
        owed = sum(b.amount for b in Bill.objects.filter(account=acct))
        roll = rng.random()
        day = DEMO_ISSUE_DATE + timedelta(days=rng.randint(5, 29))
        if roll < 0.78:
            payment_post(account=acct, amount=owed, received_on=day, method="lockbox", reference=f"LB{acct.pk:05d}",
                         acting_user=collector)
            paid += 1
        elif roll < 0.85:
            payment_post(account=acct, amount=(owed / 2).quantize(Decimal("0.01")), received_on=day, method="check",
                         reference=f"CK{acct.pk:05d}", acting_user=collector)
            partial += 1
        else:
            late.append(acct)
    for acct in late[: len(late) // 2]:
        demand_serve(account=acct, served_on=date(2026, 11, 2), acting_user=collector)
        demanded += 1
    return {"paid": paid, "partial": partial, "unpaid": len(late), "demands": demanded}


