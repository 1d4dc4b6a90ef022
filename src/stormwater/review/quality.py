"""Water quality and recharge in the review: BMP removal by performance curve (with the capacity the
curve assumes), the MassDEP TSS worksheet and 44 % pretreatment, the water quality volume, and the
Standard 3 recharge volume.

Pure Python (no Django).

References
----------
Ch. 380 § 380-11 A(4), B(1)-(3), D, E; EPA Region 1 BMP performance curves (MS4 permit App. F Att. 3,
App. H Att. 1; RBEROST fits); MassDEP Massachusetts Stormwater Handbook Vol. 1 ch. 1 (Standards 3
and 4: recharge, water quality volume, 80 % TSS, 44 % pretreatment) and Vol. 3 ch. 1 (Rv = F × impervious
area, capture area adjustment, static method, 72-hour drawdown).
"""
from __future__ import annotations

from stormwater.engineering import massdep_tss
from stormwater.engineering import water_quality as wq

from .hydraulics import lowest_outlet_ft, retention_cuft, stage_storage
from .plan import Bmp

PASS, FAIL, NOT_ASSESSABLE, INFO, NOT_APPLICABLE = "pass", "fail", "not_assessable", "info", "not_applicable"

# MassDEP Standard 3: target depth factor F [in] by hydrologic soil group (Handbook Vol. 3 ch. 1).
RECHARGE_F_IN = {"A": 0.60, "B": 0.35, "C": 0.25, "D": 0.10}
RECHARGE_F_SOURCE = ("MassDEP Stormwater Handbook Vol. 3 ch. 1, Standard 3: Rv = F × impervious area, target depth "
                     "factor F = 0.60 / 0.35 / 0.25 / 0.10 in for HSG A / B / C / D; capture area adjustment "
                     "Rv × (total impervious ÷ impervious draining to recharge BMPs), allowed only when at least "
                     "65 % of the impervious area drains to them")
CAPTURE_MIN_FRACTION = 0.65

# MassDEP Standard 4: water quality volume depth [in] (Handbook Vol. 1 ch. 1; Vol. 3 ch. 1).
WQV_DEPTH_IN = 0.5
WQV_DEPTH_ONE_INCH = 1.0
RAPID_INFILTRATION_IN_HR = 2.4   # soils infiltrating faster than 2.4 in/h take the 1-inch rule
MA_TSS_TARGET_PCT = 80.0          # Standard 4: 80 % of the average annual post-construction TSS load
MA_PRETREATMENT_PCT = 44.0        # Standard 4: 44 % TSS removal before infiltration
WQ_SOURCE = ("MassDEP Stormwater Handbook Vol. 1 ch. 1, Standard 4 and Vol. 3 ch. 1: Vwq = Dwq/12 × impervious "
             "area, Dwq = 0.5 in, or 1.0 in for a discharge within a Zone II or IWPA, near or to another critical "
             "area, from a LUHPPL, or to soils infiltrating faster than 2.4 in/h; 80 % TSS removal; 44 % TSS "
             "removal before infiltration")
MASSDEP_TSS_CREDITS_SOURCE = ("MassDEP Handbook TSS credits per BMP (engineering/data/massdep_tss_credits.csv): "
                              "sediment forebay 25 % as pretreatment (none in front of a basin or wetland), "
                              "extended dry detention basin 50 % and wet basin / constructed stormwater wetland "
                              "80 % with a forebay, oil/grit separator 25 % as off-line pretreatment; read on "
                              "Geosyntec pages reproducing the Handbook BMP fact sheets (volume and chapter not "
                              "named there) - provisional")
TSS_WORKSHEET_SOURCE = ("MassDEP TSS Removal Calculation Worksheet (start load 1.00; each BMP removes its rate of "
                        "what reaches it, upgradient first)")


def _r(x: float | None, nd: int) -> float | None:
    return None if x is None else round(x, nd)


# --- the capacity a performance curve assumes ------------------------------------------------------

def treatment_capacity(b: Bmp) -> tuple[float | None, str]:
    """Capacity [ft³] a treatment (non-infiltration) curve credits: below the lowest weir crest, or as stated."""
    if b.treatment_storage_cuft is not None:
        return b.treatment_storage_cuft, "treatment storage as stated in the plan"
    if not b.stage_storage:
        return None, ""
    ss = stage_storage(b)
    weirs = [o for o in b.outlets if o.kind == "weir"]
    if weirs:
        crest = min(o.elevation_ft for o in weirs)
        return ss.storage_cuft(crest), f"storage below the lowest weir crest ({crest:g} ft)"
    if b.outlets:
        top = max(o.elevation_ft for o in b.outlets)
        if top > ss.stages_ft[0]:
            return ss.storage_cuft(top), f"storage below the highest outlet ({top:g} ft)"
        return ss.storages_cuft[-1], (f"the whole table: its only outlet is at the bottom ({top:g} ft), so everything "
                                      "it holds is detained and drains through it")
    return ss.storages_cuft[-1], "full storage (no surface outlet)"


def infiltration_capacity(b: Bmp) -> tuple[float | None, str]:
    """Capacity [ft³] an infiltration curve credits: only the storage that leaves by infiltration.

    EPA Region 1's infiltration curves give the removal for a storage capacity that infiltrates at the
    design rate; storage above a low orifice drains through the orifice instead, so only the storage
    below the lowest surface outlet counts (issue 19). A stated treatment storage is capped at it.
    """
    if not b.stage_storage:
        if b.treatment_storage_cuft is not None:
            return b.treatment_storage_cuft, "infiltrating storage as stated in the plan"
        return None, ""
    ret = retention_cuft(b)
    low = lowest_outlet_ft(b)
    where = f"below the lowest outlet ({low:g} ft)" if low is not None else "the whole table (no surface outlet)"
    basis = f"storage {where}: what leaves only by infiltration, as the infiltration curve assumes"
    if b.treatment_storage_cuft is not None and b.treatment_storage_cuft > ret:
        return ret, basis + f" (the plan states {b.treatment_storage_cuft:,.0f} ft³; only {ret:,.0f} ft³ infiltrates)"
    if b.treatment_storage_cuft is not None:
        return b.treatment_storage_cuft, "infiltrating storage as stated in the plan"
    return ret, basis


def storage_capacity(b: Bmp) -> tuple[float | None, str]:
    """The BMP's one storage capacity [ft³] (issue 31: one storage depth per BMP), from its stage-storage
    table where it has one: for a BMP that infiltrates, the storage that leaves only by infiltration
    (below its lowest outlet); for any other, its treatment storage. Every curve is read at this depth
    (capacity ÷ contributing impervious area), and Standard 4's water quality volume is held against it."""
    return infiltration_capacity(b) if b.infiltration_rate_in_hr else treatment_capacity(b)


def _curve_range(curve) -> tuple[float, float]:
    if hasattr(curve, "points"):
        return curve.points[0][0], curve.points[-1][0]
    return curve.lo, curve.hi


def removal(b: Bmp, pollutant: str, impervious_sqft: float, tables) -> dict:
    """Removal of one BMP for one pollutant by the first table with a curve, or why not assessable.

    The storage depth fed to the curve is the BMP's one storage depth (:func:`storage_capacity` ÷
    contributing impervious area): for a BMP that infiltrates the storage that infiltrates (what an
    infiltration curve assumes), otherwise the treatment storage. A depth above a curve's largest is credited at the largest, a rate
    above the largest rate at that rate (no extrapolation); below the smallest it is not assessable.
    """
    bmp_type, rate = b.type, b.infiltration_rate_in_hr
    key = (wq._norm_bmp(bmp_type), pollutant)
    for t in (*tables, wq.rberost_provisional_table()):
        if key not in t.curves:
            continue
        by_rate = t.curves[key]
        rates = sorted(r for r in by_rate if r is not None)
        base = {"table": t.name, "provisional": t.provisional}
        note, use_rate = [], None
        if rates and rate is not None:
            use_rate = rate
            if rate > rates[-1]:
                use_rate = rates[-1]
                note.append(f"infiltration rate {rate:g} in/hr credited at the curves' largest, {rates[-1]:g} in/hr")
            elif rate < rates[0]:
                return {"status": NOT_ASSESSABLE, **base,
                        "reason": f"infiltration rate {rate:g} in/hr is below the curves' smallest "
                                  f"({rates[0]:g} in/hr) in {t.name}"}
        elif None not in by_rate:
            return {"status": NOT_ASSESSABLE, **base,
                    "reason": f"{t.name} has only rate-dependent {pollutant} curves for {bmp_type}; "
                              "the BMP gives no infiltration rate"}
        cap, cap_basis = storage_capacity(b)
        base.update(capacity_cuft=_r(cap, 0), capacity_basis=cap_basis, curve=(
            f"{'infiltration' if use_rate is not None else 'treatment'} curve"
            + (f" at {use_rate:g} in/hr" if use_rate is not None else "")))
        if not impervious_sqft:
            return {"status": NOT_ASSESSABLE, **base, "reason": "no impervious area drains to it"}
        if cap is None:
            return {"status": NOT_ASSESSABLE, **base, "reason": "storage depth unknown: no stage-storage table and "
                                                                "no treatment_storage_cuft"}
        depth_in = cap / impervious_sqft * 12.0
        base.update(depth_in=round(depth_in, 4),
                    depth_working=f"{cap:,.0f} ft³ / {impervious_sqft:,.0f} ft² × 12 = {depth_in:.4f} in")
        curves = [by_rate[r] for r in (rates if use_rate is not None else [None])]
        lo = max(_curve_range(c)[0] for c in curves)
        hi = min(_curve_range(c)[1] for c in curves)
        d = depth_in
        if d > hi:
            note.append(f"storage depth {depth_in:.2f} in credited at the curve's largest, {hi:g} in")
            d = hi
        if d < lo:
            return {"status": NOT_ASSESSABLE, **base,
                    "reason": f"storage depth {depth_in:.3f} in ({cap_basis}) is below the curve's smallest ({lo:g} in)"}
        try:
            r = t.removal(bmp_type, pollutant, d, use_rate)
        except ValueError as e:
            return {"status": NOT_ASSESSABLE, **base, "reason": str(e)}
        return {"status": "ok", **base, "removal_pct": round(r.removal_pct, 1), "removal": r.removal,
                "table": r.table, "provisional": r.provisional, "depth_used_in": round(d, 3),
                "rate_used_in_hr": use_rate, "note": "; ".join(note)}
    if pollutant == "TSS":
        reason = ("no TSS performance table is loaded (the EPA Region 1 TSS curves are not shipped; the MassDEP "
                  "per-BMP credits that ship feed only the Standard 4 worksheet); a DPW engineer must load the "
                  "official table")
    else:
        reason = f"no loaded table has a {pollutant} curve for {bmp_type!r}"
    return {"status": NOT_ASSESSABLE, "table": None, "provisional": False, "reason": reason}


# --- MassDEP TSS worksheet --------------------------------------------------------------------------

def handbook_tss_credit(b: Bmp, bmps: dict[str, Bmp]) -> tuple[float | None, str] | None:
    """The MassDEP Handbook credit for ``b`` with its condition applied, or None when none ships.

    The condition needs the plan around the BMP: what it discharges to (``b.to``) and what drains into
    it. Returns (rate, source); rate None when the credit's condition is not met.
    """
    c = massdep_tss.credit_for(b.type)
    if c is None:
        return None
    down = bmps.get(b.to)
    ups = [x for x in bmps.values() if x.to == b.id]
    cite = (f"MassDEP Handbook credit {c.tss_removal_pct:g} % for {c.bmp_type} ({c.condition}); read at "
            f"{c.source_url}: \"{c.quote}\" [{c.handbook_ref}; confidence {c.confidence}]")
    rate = c.tss_removal_pct / 100.0
    if c.rule in ("pretreatment", "forebay"):
        if down is None:
            return 0.0, (f"Handbook default 0 %: {b.id} discharges to {b.to}, not to another BMP, and the credit is "
                         f"only for pretreatment — {cite}")
        if c.rule == "forebay" and massdep_tss._norm(down.type) in massdep_tss.FOREBAY_INCLUDED_IN:
            return 0.0, (f"Handbook default 0 %: no separate credit for the forebay of {down.id} ({down.type}), "
                         f"whose credit includes it — {cite}")
        return rate, f"Handbook default {c.tss_removal_pct:g} %: pretreats {down.id} — {cite}"
    if c.rule == "needs_forebay":
        fb = [x.id for x in ups if massdep_tss._norm(x.type) == "sediment_forebay"]
        if not fb:
            return None, (f"the Handbook credit for {c.bmp_type} needs a sediment forebay and none drains into "
                          f"{b.id} (state tss_removal_pct if the forebay is built into it) — {cite}")
        return rate, f"Handbook default {c.tss_removal_pct:g} %: with forebay {', '.join(fb)} — {cite}"
    return None, (f"the Handbook credit for {c.bmp_type} is for roof runoff only, which Standard 4 already "
                  f"exempts — {cite}")


def tss_credit(b: Bmp, removal_tss: dict, bmps: dict[str, Bmp] | None = None) -> tuple[float | None, str]:
    """A BMP's TSS removal rate [fraction] for the MassDEP worksheet, and where it comes from.

    Stated by the applicant first; else the shipped MassDEP Handbook credit (``massdep_tss_credits.csv``)
    when its condition holds in the plan; else a loaded TSS table.
    """
    if b.tss_removal_pct is not None:
        return b.tss_removal_pct / 100.0, ("MassDEP credit as stated by the applicant (check against Handbook "
                                           "Vol. 1 ch. 1 and the BMP's Vol. 2 design specifications)")
    hb = handbook_tss_credit(b, bmps or {b.id: b})
    if hb is not None and hb[0] is not None:
        return hb
    if removal_tss.get("status") == "ok":
        return removal_tss["removal"], f"from {removal_tss['table']}"
    if hb is not None:
        return hb
    return None, ("no TSS rate (state tss_removal_pct, the MassDEP credit; no Handbook credit ships for "
                  f"{b.type!r}; or load a TSS table)")


def tss_worksheet(chain: list[str], credits: dict[str, tuple[float | None, str]]) -> dict:
    """The MassDEP TSS removal worksheet for one train: start load 1.00, upgradient BMP first."""
    load, rows, missing = 1.0, [], []
    for bid in chain:
        rate, src = credits[bid]
        if rate is None:
            missing.append(bid)
            rate_used = 0.0
        else:
            rate_used = rate
        removed = load * rate_used
        short = ("stated (MassDEP credit)" if src.startswith("MassDEP credit") else
                 src if rate is not None else "none: " + src)
        rows.append({"bmp": bid, "rate": _r(rate, 4), "starting_load": round(load, 4), "removed": round(removed, 4),
                     "remaining": round(load - removed, 4), "source": short})
        load -= removed
    return {"rows": rows, "removal_pct": round(100.0 * (1.0 - load), 1), "missing": missing}


def meets_pct(removal_pct: float, target_pct: float) -> bool:
    """MassDEP's worksheet reports whole percents: two 25 % BMPs (1 − 0.75² = 43.75 %) make the 44 %."""
    return round(removal_pct) >= target_pct


# --- water quality volume ---------------------------------------------------------------------------

def wqv_depth_in(*, critical_area: bool, zone_ii_or_iwpa: bool, luhppl: bool, rapid: bool) -> tuple[float, list[str]]:
    """Dwq [in] and the conditions that set it."""
    why = [w for w, on in (("the discharge is within a Zone II or Interim Wellhead Protection Area", zone_ii_or_iwpa),
                           ("the discharge is near or to a critical area", critical_area),
                           ("the runoff comes from a land use with higher potential pollutant loads", luhppl),
                           ("the discharge is to soils infiltrating faster than 2.4 in/h", rapid)) if on]
    return (WQV_DEPTH_ONE_INCH if why else WQV_DEPTH_IN), why


# --- recharge ----------------------------------------------------------------------------------------

def recharge_required(imp_by_hsg: dict[str, float], total_imp_sqft: float, captured_imp_sqft: float,
                      stated_f_in: float | None) -> dict:
    """Required recharge volume Rv [ft³] by MassDEP Standard 3, with the capture area adjustment.

    Rv = Σ F(HSG) × impervious area on that HSG (or F as stated × total impervious); when not all the
    impervious area drains to recharge BMPs, Rv × total ÷ captured impervious, allowed only when at
    least 65 % is captured.
    """
    if stated_f_in is not None:
        req = wq.recharge_volume_cuft(stated_f_in, total_imp_sqft)
        by = {"stated": stated_f_in}
        working = f"F {stated_f_in:g} in (as stated) / 12 × {total_imp_sqft:,.0f} ft² = {req:,.1f} ft³"
        unknown: list[str] = []
    else:
        unknown = sorted(h for h in imp_by_hsg if h not in RECHARGE_F_IN)
        by = {h: RECHARGE_F_IN[h] for h in sorted(imp_by_hsg) if h in RECHARGE_F_IN}
        req = sum(RECHARGE_F_IN[h] / 12.0 * a for h, a in imp_by_hsg.items() if h in RECHARGE_F_IN)
        working = " + ".join(f"{RECHARGE_F_IN[h]:g}/12 × {a:,.0f} ft² (HSG {h})" for h, a in sorted(imp_by_hsg.items())
                             if h in RECHARGE_F_IN) + f" = {req:,.1f} ft³"
    frac = captured_imp_sqft / total_imp_sqft if total_imp_sqft else 0.0
    adjusted = req / frac if frac > 0 else None
    out = {"target_depth_in_by_hsg": by, "unknown_hsg": unknown, "required_unadjusted_cuft": round(req, 1),
           "working": working, "capture_fraction": round(frac, 4), "captured_impervious_sqft": round(captured_imp_sqft),
           "impervious_sqft": round(total_imp_sqft)}
    if frac >= 1.0 - 1e-9:
        out.update(required_cuft=round(req, 1), adjustment="none: all impervious area drains to recharge BMPs")
    elif adjusted is not None:
        out.update(required_cuft=round(adjusted, 1),
                   adjustment=(f"capture area adjustment: {req:,.1f} × {total_imp_sqft:,.0f} / {captured_imp_sqft:,.0f} "
                               f"= {adjusted:,.1f} ft³ ({100 * frac:.1f} % of the impervious area drains to recharge BMPs)"))
    else:
        out.update(required_cuft=round(req, 1), adjustment="no impervious area drains to a recharge BMP")
    return out
