"""Does a project need a stormwater management and land disturbance permit? (Ch. 380 §§ 380-4, 380-5)

Pure rules: plain values in, a ``Determination`` out. Section numbers follow the order of the
Chapter 380 text (see docs/regulations.md): § 380-4 applicability, § 380-5 exemptions A–H,
§ 380-11 B(4) low-impact development.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal
from enum import Enum

from .calendar import add_months

# § 380-4 A: "disturbance of one or more acres of land". 1 acre = 43,560 ft² (exact, US survey).
SQFT_PER_ACRE = Decimal("43560")
ONE_ACRE_SQFT = SQFT_PER_ACRE
# § 380-4 A(2): "Any time interval less than two years between the work or activities".
SEGMENTATION_WINDOW_MONTHS = 24


class Outcome(str, Enum):
    REQUIRED = "required"
    NOT_REQUIRED = "not_required"
    EXEMPT = "exempt"

    @property
    def label(self) -> str:
        """What people read (§ 380-4 A: a permit is required; § 380-5: exempt)."""
        return OUTCOME_LABELS[self]


OUTCOME_LABELS = {Outcome.REQUIRED: "A permit is required (§ 380-4 A)", Outcome.NOT_REQUIRED: "No permit is required",
                  Outcome.EXEMPT: "Exempt from the permit (§ 380-5)"}


@dataclass(frozen=True)
class Condition:
    key: str
    text: str          # the condition as the rules state it, asked as a yes/no question
    must_be: bool = True


@dataclass(frozen=True)
class Exemption:
    letter: str
    title: str
    citation: str
    conditions: tuple[Condition, ...]
    note: str = ""


# § 380-5 A–H, each with the conditions its text attaches.
EXEMPTIONS: dict[str, Exemption] = {e.letter: e for e in (
    Exemption("A", "Normal maintenance and improvement of land in agricultural use", "§ 380-5 A", (
        Condition("agricultural_use", "Is the land in agricultural use as defined by 310 CMR 10.04?"),
        Condition("normal_maintenance", "Is the work normal maintenance and improvement of that land?"),
    )),
    Exemption("B", "Logging under an approved forest cutting plan", "§ 380-5 B", (
        Condition("cutting_plan_approved",
                  "Is the logging consistent with a forest cutting plan approved by DCR under the Forest Cutting "
                  "Practices Act?"),
    )),
    Exemption("C", "Maintenance of existing landscaping, gardens or lawn of a single-family dwelling", "§ 380-5 C", (
        Condition("single_family", "Is the landscaping, garden or lawn associated with a single-family dwelling?"),
        Condition("existing", "Is it maintenance of existing landscaping, gardens or lawn?"),
        Condition("no_ms4_impact", "Will it be conducted so as not to impact the municipal storm drain system?"),
    )),
    Exemption("D", "Fencing", "§ 380-5 D", (
        Condition("no_terrain_change", "Will the fencing leave existing terrain and drainage patterns substantially "
                                       "unaltered?"),
    )),
    Exemption("E", "Utilities other than drainage (gas, water, electric, telephone …)", "§ 380-5 E", (
        Condition("not_drainage", "Is the utility something other than drainage?"),
        Condition("no_terrain_change", "Will it leave terrain and drainage patterns unaltered?"),
        Condition("no_discharge", "Will it avoid any discharge of sediment or other pollutants to the MS4 or, "
                                  "directly or indirectly, to waters of the Commonwealth?"),
    )),
    Exemption("F", "Repairs to a water, sewer or stormwater management system", "§ 380-5 F", (
        Condition("dpw_deemed_necessary", "Has the Longmeadow DPW deemed the repair necessary?"),
    ), note="The DPW's finding that the repair is necessary is part of the exemption."),
    Exemption("G", "Emergency activity", "§ 380-5 G", (
        Condition("immediately_necessary", "Is the activity immediately necessary for the protection of life, "
                                           "property or the environment?"),
        Condition("dpw_determined", "Has the Longmeadow DPW so determined?"),
    ), note="The DPW's determination that it is an emergency is part of the exemption."),
    Exemption("H", "Maintenance and improvement of existing sidewalks and roadways", "§ 380-5 H", (
        Condition("existing_ways_only", "Is the work exclusively maintenance and improvement of existing sidewalks "
                                        "and roadways (less than a single lane, shoulders, substandard intersections, "
                                        "existing drainage, repaving)?"),
        Condition("adds_lane_width", "Does roadway widening or improvement increase impervious area by a single "
                                     "lane width or more?", must_be=False),
    ), note="Widening that adds a single lane width or more of impervious area is subject to the rules."),
)}

EXEMPT_STILL_MEETS_STANDARDS = (
    "Exempt activities must still meet the stormwater management and erosion and sediment control performance "
    "standards, and all projects shall improve existing conditions unless infeasible (§ 380-5).")

# § 380-4 B → § 380-11 B(4): the low-impact development strategies, for projects under one acre that
# discharge to the municipal storm drain system. Short forms of § 380-11 B(4)(b)[1]–[15].
LID_GUIDANCE: tuple[tuple[str, str], ...] = (
    ("§ 380-11 B(4)(b)[1]", "Identify, map and preserve natural features: wetlands, trees of 8 in DBH or more, "
                            "slopes, permeable soils, floodplains."),
    ("§ 380-11 B(4)(b)[2]", "Protect a naturally vegetated riparian buffer; no mowing or brush hogging in it."),
    ("§ 380-11 B(4)(b)[3]", "Mitigate thermal impacts: shade, infiltration, no-mow zones."),
    ("§ 380-11 B(4)(b)[4]", "Avoid mapped rare-species habitats and certified vernal pools."),
    ("§ 380-11 B(4)(b)[5]", "Minimize grading and clearing."),
    ("§ 380-11 B(4)(b)[6]", "Delineate building envelopes away from resource areas; cluster, reduce footprints."),
    ("§ 380-11 B(4)(b)[7]", "Minimize impervious surfaces: narrower streets, shared driveways and parking."),
    ("§ 380-11 B(4)(b)[8]", "Keep imported fill from changing the site's infiltration."),
    ("§ 380-11 B(4)(b)[9]", "Avoid compacting topsoil and subsoil; restore compacted soil before landscaping."),
    ("§ 380-11 B(4)(b)[10]", "Treat and recharge runoff close to the source with small decentralized practices."),
    ("§ 380-11 B(4)(b)[11]", "Lengthen flow paths and maximize sheet flow."),
    ("§ 380-11 B(4)(b)[12]", "Use open drainage, disconnect roof runoff, sweep streets."),
    ("§ 380-11 B(4)(b)[13]", "Use appropriate native or adapted vegetation in buffer strips and bioretention."),
    ("§ 380-11 B(4)(b)[14]", "Use drought-resistant vegetation."),
    ("§ 380-11 B(4)(b)[15]", "Rain gardens, vegetated swales, permeable pavement, roof gardens, stormwater reuse."),
)


@dataclass(frozen=True)
class OtherWork:
    """Work by the same owner or on an adjacent parcel, done or planned (§ 380-4 A(1)–(3))."""

    description: str
    disturbance_sqft: Decimal
    on: date                      # when it was (or will be) done
    same_owner: bool = False
    adjacent_parcel: bool = False
    common_plan: bool | None = None          # does it belong to one plan with this project? None = unknown
    impacts_cumulative: bool | None = None   # are the stormwater impacts cumulative (not separable)?


@dataclass(frozen=True)
class SegmentationFlag:
    """Facts for the Director's determination whether several activities are one project (§ 380-4 A)."""

    combined_sqft: Decimal
    works: tuple[OtherWork, ...]
    facts: tuple[str, ...]


@dataclass(frozen=True)
class Determination:
    outcome: Outcome
    reasons: tuple[str, ...]
    disturbance_sqft: Decimal
    exemption: str | None = None                      # letter, when exempt
    exemption_failures: tuple[str, ...] = ()          # conditions not met by a claimed exemption
    segmentation: SegmentationFlag | None = None      # for the Director's decision
    lid_guidance: tuple[tuple[str, str], ...] = field(default=())

    @property
    def disturbance_acres(self) -> Decimal:
        return (self.disturbance_sqft / SQFT_PER_ACRE).quantize(Decimal("0.001"))

    def as_json(self) -> dict:
        return {
            "outcome": self.outcome.value, "reasons": list(self.reasons),
            "disturbance_sqft": str(self.disturbance_sqft), "disturbance_acres": str(self.disturbance_acres),
            "exemption": self.exemption, "exemption_failures": list(self.exemption_failures),
            "segmentation": None if self.segmentation is None else {
                "combined_sqft": str(self.segmentation.combined_sqft), "facts": list(self.segmentation.facts),
                "works": [{"description": w.description, "disturbance_sqft": str(w.disturbance_sqft),
                           "on": str(w.on), "same_owner": w.same_owner, "adjacent_parcel": w.adjacent_parcel}
                          for w in self.segmentation.works]},
            "lid_guidance": [{"citation": c, "text": t} for c, t in self.lid_guidance],
        }


def to_sqft(*, acres: Decimal | None = None, sqft: Decimal | None = None) -> Decimal:
    """Disturbance given in acres or ft² → ft² (exactly one of the two)."""
    if (acres is None) == (sqft is None):
        raise ValueError("give the disturbance in acres or in ft², not both and not neither")
    value = Decimal(acres) * SQFT_PER_ACRE if acres is not None else Decimal(sqft)
    if value < 0:
        raise ValueError("disturbance must not be negative")
    return value


def exemption_check(letter: str, answers: dict[str, bool]) -> list[str]:
    """The conditions of exemption ``letter`` that the answers do not meet (empty: exempt)."""
    ex = EXEMPTIONS.get(letter)
    if ex is None:
        raise ValueError(f"no exemption {letter!r}: § 380-5 lists A–H")
    return [c.text for c in ex.conditions if answers.get(c.key) is not c.must_be]


def segmentation_check(*, disturbance_sqft: Decimal, on: date, other_work: list[OtherWork] | tuple = ()
                       ) -> SegmentationFlag | None:
    """§ 380-4 A: activities "may not be phased or segmented to evade, defer or curtail review".

    Flags work by the same owner or on adjacent parcels less than two years apart (§ 380-4 A(2))
    whose disturbance together with this project's reaches one acre. It decides nothing: the
    Director has "sole authority" and weighs common plan (A(1)), interval (A(2)) and separable or
    cumulative impacts (A(3)).
    """
    near = []
    for w in other_work:
        if not (w.same_owner or w.adjacent_parcel):
            continue
        lo, hi = sorted((w.on, on))
        if add_months(lo, SEGMENTATION_WINDOW_MONTHS) > hi:
            near.append(w)
    if not near:
        return None
    combined = Decimal(disturbance_sqft) + sum((Decimal(w.disturbance_sqft) for w in near), Decimal(0))
    if combined < ONE_ACRE_SQFT:
        return None
    facts = [f"Together {combined:,.0f} ft² ({combined / SQFT_PER_ACRE:.2f} acres): one acre or more (§ 380-4 A)."]
    for w in near:
        who = " and ".join(x for x, y in (("same owner", w.same_owner), ("adjacent parcel", w.adjacent_parcel)) if y)
        gap = abs((w.on - on).days)
        plan = {True: "part of a common plan", False: "an independent undertaking",
                None: "common plan not stated"}[w.common_plan]
        impacts = {True: "cumulative impacts", False: "separable impacts", None: "impacts not stated"}[
            w.impacts_cumulative]
        facts.append(f"{w.description}: {w.disturbance_sqft:,.0f} ft², {who}, {gap} days apart "
                     f"(under two years, § 380-4 A(2)); {plan} (A(1)); {impacts} (A(3)).")
    return SegmentationFlag(combined_sqft=combined, works=tuple(near), facts=tuple(facts))


def determine(*, disturbance_sqft: Decimal, on: date, common_plan: bool = False,
              common_plan_total_sqft: Decimal | None = None, discharges_to_ms4: bool = True,
              exemption: str | None = None, exemption_answers: dict[str, bool] | None = None,
              other_work: list[OtherWork] | tuple = ()) -> Determination:
    """Permit required, not required, or exempt (§§ 380-4, 380-5), with reasons and flags.

    - Required: disturbance ≥ 1 acre, or < 1 acre but part of a larger common plan of development or
      sale that will ultimately disturb ≥ 1 acre (§ 380-4 A; definition "common plan of development").
    - Exempt: otherwise required, but a claimed exemption A–H has all its conditions met (§ 380-5).
    - Not required: under one acre, no common plan; possible segmentation is flagged for the
      Director (§ 380-4 A(1)–(3)); small projects discharging to the MS4 get the LID guidance (§ 380-4 B).
    """
    d = Decimal(disturbance_sqft)
    if d < 0:
        raise ValueError("disturbance must not be negative")
    reasons: list[str] = []
    required = False
    if d >= ONE_ACRE_SQFT:
        required = True
        reasons.append(f"The project disturbs {d:,.0f} ft² ({d / SQFT_PER_ACRE:.2f} acres): one acre or more "
                       "(§ 380-4 A).")
    elif common_plan:
        total = Decimal(common_plan_total_sqft) if common_plan_total_sqft is not None else None
        if total is None or total >= ONE_ACRE_SQFT:
            required = True
            reasons.append("The project disturbs less than one acre but is part of a larger common plan of "
                           "development or sale that will ultimately disturb one acre or more (§ 380-4 A)."
                           + ("" if total is not None else " The plan's total was not given: treated as one acre "
                              "or more until the Director determines otherwise."))
        else:
            reasons.append(f"Part of a common plan that disturbs {total:,.0f} ft² in all: under one acre.")
    else:
        reasons.append(f"The project disturbs {d:,.0f} ft² ({d / SQFT_PER_ACRE:.2f} acres): under one acre and "
                       "not part of a larger common plan (§ 380-4 A).")

    failures: list[str] = []
    if required and exemption:
        failures = exemption_check(exemption, exemption_answers or {})
        ex = EXEMPTIONS[exemption]
        if not failures:
            return Determination(
                outcome=Outcome.EXEMPT, disturbance_sqft=d, exemption=exemption,
                reasons=tuple(reasons + [f"Exempt under {ex.citation}: {ex.title}." + (f" {ex.note}" if ex.note else ""),
                                         EXEMPT_STILL_MEETS_STANDARDS]))
        reasons.append(f"Not exempt under {ex.citation} ({ex.title}): a condition is not met.")

    seg = None
    lid: tuple[tuple[str, str], ...] = ()
    if not required:
        seg = segmentation_check(disturbance_sqft=d, on=on, other_work=other_work)
        if seg is not None:
            reasons.append("Possible segmentation: other work by the same owner or on adjacent parcels within two "
                           "years reaches one acre together. The DPW Director decides whether it is one project "
                           "(§ 380-4 A).")
        if discharges_to_ms4:
            lid = LID_GUIDANCE
            reasons.append("Projects under one acre discharging to the municipal storm drain system should consider "
                           "the low-impact development standards of § 380-11 B (§ 380-4 B).")
    return Determination(outcome=Outcome.REQUIRED if required else Outcome.NOT_REQUIRED, reasons=tuple(reasons),
                         disturbance_sqft=d, exemption_failures=tuple(failures), segmentation=seg, lid_guidance=lid)
