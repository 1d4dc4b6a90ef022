"""The Massachusetts Stormwater Management Standards as MassDEP's "Checklist for Stormwater Report" asks them.

Pure data (no Django). Ch. 380 § 380-11 A(1) incorporates the Massachusetts Stormwater Handbook and
Standards by reference and § 380-11 B(1) requires every project to comply with all ten Standards
(310 CMR 10.05(6)(k)-(q)). MassDEP's checklist (Bureau of Resource Protection - Wetlands Program,
"Checklist for Stormwater Report") walks the Standards in a fixed order; the review report follows
that order so that it can stand in for the checklist:

    Registered Professional Engineer's certification · Project type · LID measures ·
    Standard 1 No new untreated discharges · 2 Peak rate attenuation · 3 Recharge · 4 Water quality ·
    5 Land uses with higher potential pollutant loads (LUHPPLs) · 6 Critical areas ·
    7 Redevelopment and other projects subject to the Standards only to the maximum extent practicable ·
    8 Construction period pollution prevention and erosion and sedimentation control ·
    9 Operation and maintenance plan · 10 Prohibition of illicit discharges

An item is either *computed* (the review's own rows: peaks, recharge, water quality volume, TSS,
pretreatment, drawdown; named by row-key prefix) or a *statement* the applicant makes with the
evidence (the sheet, report section or page) in the plan file's ``massdep.statements``. A statement
that applies only under a condition (a LUHPPL, a critical area, redevelopment) is "not applicable"
when the plan's facts say the condition does not hold.

The item texts below summarise the checklist's boxes in our words; the checklist form itself is the
authority (MassDEP, Checklist for Stormwater Report, with the Massachusetts Stormwater Handbook Vol. 1
ch. 1 and Vol. 3 ch. 1).
"""
from __future__ import annotations

from dataclasses import dataclass

CHECKLIST_SOURCE = ("MassDEP Bureau of Resource Protection - Wetlands Program, Checklist for Stormwater Report; "
                    "Massachusetts Stormwater Handbook Vol. 1 ch. 1 (the Standards) and Vol. 3 ch. 1 (computations)")

# Conditions under which an item applies (keys of :func:`conditions`).
ALWAYS, LUHPPL, CRITICAL, REDEVELOPMENT, INFILTRATION, HIGH_TRIPS = (
    "always", "luhppl", "critical", "redevelopment", "infiltration", "high_vehicle_trips")


@dataclass(frozen=True)
class Item:
    key: str
    section: str   # "certification", "project", "lid", "1".."10"
    text: str
    kind: str      # "statement" | "computed"
    applies: str = ALWAYS
    rows: tuple[str, ...] = ()  # computed: the review's row-key prefixes that decide it
    title: str = ""  # short name of a statement row


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    provision: str


SECTIONS: tuple[Section, ...] = (
    Section("certification", "Registered Professional Engineer's certification",
            "Checklist § B; Ch. 380 § 380-12 A(2)"),
    Section("project", "Project type", "Checklist; Ch. 380 Definitions (new development, redevelopment)"),
    Section("lid", "LID measures", "Checklist; Ch. 380 § 380-11 B(4)"),
    Section("1", "Standard 1 — No new untreated discharges", "310 CMR 10.05(6)(k)1; § 380-11 B(1)"),
    Section("2", "Standard 2 — Peak rate attenuation", "310 CMR 10.05(6)(k)2; § 380-11 A(2), B(1)"),
    Section("3", "Standard 3 — Recharge", "310 CMR 10.05(6)(k)3; § 380-11 B(1); § 380-12 A(3)(g)[8]"),
    Section("4", "Standard 4 — Water quality", "310 CMR 10.05(6)(k)4; § 380-11 B(1)"),
    Section("5", "Standard 5 — Land uses with higher potential pollutant loads", "310 CMR 10.05(6)(k)5; § 380-11 B(1), B(6)"),
    Section("6", "Standard 6 — Critical areas", "310 CMR 10.05(6)(k)6; § 380-11 B(1)"),
    Section("7", "Standard 7 — Redevelopment (standards met to the maximum extent practicable)",
            "310 CMR 10.05(6)(k)7; § 380-11 B(1), E"),
    Section("8", "Standard 8 — Construction period pollution prevention and erosion and sedimentation control",
            "310 CMR 10.05(6)(k)8; § 380-11 B(1), C; § 380-13"),
    Section("9", "Standard 9 — Operation and maintenance plan", "310 CMR 10.05(6)(k)9; § 380-11 B(1); § 380-12 A(3)"),
    Section("10", "Standard 10 — Prohibition of illicit discharges", "310 CMR 10.05(6)(k)10; § 380-11 B(1)"),
)

ITEMS: tuple[Item, ...] = (
    Item("pe_certification", "certification",
         "The stormwater report is prepared and stamped by a Registered Professional Engineer licensed in "
         "Massachusetts, who certifies that it contains all required submittals.", "statement", title="PE certification"),
    Item("project_type", "project", "New development, redevelopment, or a mix (from the disturbed area and "
         "whether the site was previously developed with impervious surface).", "computed", rows=("applicability",)),
    Item("lid_measures", "lid", "Environmentally sensitive design and LID techniques considered and used "
         "(e.g. no disturbance of wetland resource areas, minimized disturbance, reduced impervious area, "
         "bioretention, swales, disconnection, LID site design credits) — list them with where they are shown.",
         "statement", title="LID measures used"),
    Item("std1_treatment", "1", "Every new discharge of impervious-area runoff passes through a treatment BMP "
         "before it reaches a design point (no new untreated discharge).", "computed", rows=("ma_std1_treatment",)),
    Item("std1_outlet_erosion", "1", "Outlets are designed so there is no erosion or scour to wetlands and waters "
         "(level spreaders, outlet protection), with the supporting calculations of Handbook Vol. 3.", "statement", title="Outlets without erosion or scour"),
    Item("std2_peaks", "2", "Post-development peak discharge rates do not exceed pre-development rates for the "
         "2- and 10-year 24-hour storms; the 100-year storm is evaluated (Longmeadow compares it too).",
         "computed", rows=("peak_",)),
    Item("std2_rainfall", "2", "Design storms from NOAA Atlas 14 for the site, 90 % of the upper confidence bound "
         "(\u201cNOAA plus\u201d, § 380-11 A(2)).", "computed", rows=("rainfall_location", "rainfall_distribution")),
    Item("std3_soil_analysis", "3", "Soil analysis: test pits or borings at each infiltration BMP, the soil "
         "texture and hydrologic soil group, the design infiltration rate (Rawls) and the seasonal high groundwater.",
         "statement", applies=INFILTRATION, title="Soil analysis"),
    Item("std3_recharge", "3", "Required recharge volume (target depth factor F by HSG × impervious area, capture "
         "area adjustment) infiltrated by BMPs sized by the static method.", "computed", rows=("recharge",)),
    Item("std3_drawdown", "3", "Infiltration BMPs drain within 72 hours.", "computed", rows=("drawdown_",)),
    Item("std3_groundwater_separation", "3", "At least 2 ft between the bottom of each infiltration BMP and the "
         "seasonal high groundwater; a mounding analysis where the separation is under 4 ft and the BMP attenuates "
         "the 10-year or larger storm.", "statement", applies=INFILTRATION, title="Separation to groundwater; mounding"),
    Item("std4_wqv", "4", "Treatment BMPs sized for the required water quality volume: 0.5 in × impervious area, "
         "or 1.0 in where the discharge is to a critical area, within a Zone II or IWPA, from a LUHPPL, or to "
         "soils infiltrating faster than 2.4 in/h.", "computed", rows=("ma_std4_wqv",)),
    Item("std4_tss", "4", "The treatment train removes at least 80 % of the TSS load (MassDEP TSS removal "
         "worksheet, one per train).", "computed", rows=("ma_std4_tss",)),
    Item("std4_pretreatment", "4", "At least 44 % TSS removed before runoff reaches an infiltration BMP.",
         "computed", rows=("ma_std4_pretreatment_",)),
    Item("std4_ltppp", "4", "A Long-Term Pollution Prevention Plan (good housekeeping, storage under cover, spill "
         "prevention and response, landscaping, fertilizer and pesticide use, pet waste, snow disposal, de-icing, "
         "street sweeping, training, emergency contacts).", "statement", title="Long-Term Pollution Prevention Plan"),
    Item("std5_source_control", "5", "LUHPPL: source control and pollution prevention measures that reduce or "
         "eliminate exposure to rain, snow and runoff, in the Long-Term Pollution Prevention Plan.", "statement",
         applies=LUHPPL, title="LUHPPL source control"),
    Item("std5_bmps_on_list", "5", "LUHPPL: where exposure is not eliminated, only treatment BMPs MassDEP lists "
         "for LUHPPLs, with 44 % pretreatment and the 1-inch water quality volume.", "statement", applies=LUHPPL, title="LUHPPL treatment BMPs"),
    Item("std5_oil_grease", "5", "1,000 or more vehicle trips a day: the train includes an oil grit separator, a "
         "filtering bioretention area, a sand filter or equivalent.", "statement", applies=HIGH_TRIPS, title="Oil and grease (1,000+ trips a day)"),
    Item("std6_bmps_approved", "6", "Discharge near or to a critical area: only BMPs MassDEP approves for that "
         "class of critical area, identified in the report.", "statement", applies=CRITICAL, title="BMPs approved for the critical area"),
    Item("std7_mep", "7", "Redevelopment: which Standards are met only to the maximum extent practicable and why "
         "(Standards 1, 8, 9 and 10 always fully).", "statement", applies=REDEVELOPMENT, title="Standards met only to the maximum extent practicable"),
    Item("std7_improves", "7", "Redevelopment: the measures taken to improve existing conditions (Handbook Vol. 2 "
         "ch. 3 redevelopment checklist).", "statement", applies=REDEVELOPMENT, title="Improvement of existing conditions"),
    Item("std8_escp", "8", "A Construction Period Pollution Prevention and Erosion and Sedimentation Control Plan: "
         "narrative, responsible parties, drawings and details, sequencing, inspection and maintenance schedules, "
         "log form (Ch. 380 § 380-13).", "statement", title="Construction period pollution prevention and ESC plan"),
    Item("std8_cgp", "8", "NPDES Construction General Permit: the SWPPP is in the report or will be submitted "
         "before land disturbance begins.", "statement", title="NPDES Construction General Permit SWPPP"),
    Item("std9_om_plan", "9", "A post-construction Operation and Maintenance Plan: owner, party responsible, "
         "schedule of routine and non-routine tasks, plan of BMP locations and access, public safety features, "
         "budget, log form.", "statement", title="Operation and Maintenance Plan"),
    Item("std9_legal_instrument", "9", "Where the responsible party is not the owner: the legal instrument and the "
         "easement giving access to operate and maintain the BMPs (answer n/a otherwise).", "statement", title="Legal instrument and easement"),
    Item("std10_statement", "10", "An illicit discharge compliance statement (signed), or to be submitted before "
         "any stormwater is discharged to the post-construction BMPs.", "statement", title="Illicit discharge compliance statement"),
    Item("std10_ltppp", "10", "The Long-Term Pollution Prevention Plan includes measures to prevent illicit "
         "discharges.", "statement", title="Illicit discharge prevention in the LTPPP"),
)

STATEMENT_KEYS: tuple[str, ...] = tuple(i.key for i in ITEMS if i.kind == "statement")
ITEMS_BY_KEY = {i.key: i for i in ITEMS}


def conditions(*, luhppl: bool, critical: bool, redevelopment: bool, infiltration: bool,
               high_vehicle_trips: bool) -> dict[str, tuple[bool, str]]:
    """Whether each condition holds, and the plain reason shown when it does not."""
    return {
        ALWAYS: (True, ""),
        LUHPPL: (luhppl or high_vehicle_trips, "no land use with higher potential pollutant loads (massdep.luhppl: false)"),
        CRITICAL: (critical, "no discharge near or to a critical area, Zone II or IWPA (massdep.critical_area, "
                             "massdep.zone_ii_or_iwpa: false)"),
        REDEVELOPMENT: (redevelopment, "the project is new development, not redevelopment"),
        INFILTRATION: (infiltration, "the plan has no infiltration BMP"),
        HIGH_TRIPS: (high_vehicle_trips, "fewer than 1,000 vehicle trips a day (massdep.high_vehicle_trips: false)"),
    }
