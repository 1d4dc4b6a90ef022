"""MassDEP's Standards in the review: the computed rows of Standards 1 and 4 (treated paths, water
quality volume, the 80 % TSS worksheet, 44 % pretreatment), the statement rows of the checklist, and
the grouping of every row in the checklist's order (pure; no Django). See review/massdep.py for the items.
"""
from __future__ import annotations

from . import massdep as md
from .plan import Plan
from .quality import (FAIL, MA_PRETREATMENT_PCT, MA_TSS_TARGET_PCT, NOT_APPLICABLE, NOT_ASSESSABLE, PASS,
                      MASSDEP_TSS_CREDITS_SOURCE, TSS_WORKSHEET_SOURCE, WQ_SOURCE, meets_pct, tss_worksheet, wqv_depth_in)
from .rows import STATUS_LABELS, row as _row, worst

# --- MassDEP: computed rows ---------------------------------------------------------------------

def massdep_computed(plan: Plan, post_subs, bmp_rows, path_from, contrib_imp, rapid: bool, rapid_bmps: list[str],
                      luhppl: bool) -> list[dict]:
    ma = plan.massdep
    rows: list[dict] = []
    bmps = {b.id: b for b in plan.bmps}
    imp_subs = [s for s in post_subs if s.impervious_sqft > 0]

    # Standard 1: every impervious subcatchment reaches its design point through a BMP.
    untreated = [s.spec.id for s in imp_subs if not path_from(s.spec.to) and not s.spec.roof_runoff]
    paths = [f"{s.spec.id} → {' → '.join(path_from(s.spec.to)) or '(no BMP)'} → "
             f"{(bmps[path_from(s.spec.to)[-1]].to if path_from(s.spec.to) else s.spec.to)}"
             + (" (roof runoff)" if s.spec.roof_runoff else "") for s in imp_subs]
    rows.append(_row("ma_std1_treatment", "No new untreated discharge", "MA Standard 1; § 380-11 B(1)",
                     FAIL if untreated else PASS, required="impervious-area runoff passes a treatment BMP",
                     provided="every impervious subcatchment is treated" if not untreated else
                     f"untreated: {', '.join(untreated)}",
                     reason=(f"{', '.join(untreated)} discharge(s) impervious-area runoff to a design point with no BMP"
                             if untreated else ""), working=paths, sources=[md.CHECKLIST_SOURCE]))

    # Standard 4: water quality volume.
    dwq, why = wqv_depth_in(critical_area=ma.critical_area, zone_ii_or_iwpa=ma.zone_ii_or_iwpa, luhppl=luhppl,
                            rapid=rapid)
    if rapid and ma.rapid_infiltration is None:
        why = [w if "2.4" not in w else f"{w} ({', '.join(rapid_bmps)}: design rate above 2.4 in/h)" for w in why]
    total_imp = sum(s.impervious_sqft for s in post_subs)
    wqv_total = dwq / 12.0 * total_imp
    captures, short = [], []
    for s in imp_subs:
        chain = path_from(s.spec.to)
        hit = None
        for bid in chain:
            cap = bmp_rows[bid]["storage_cuft"]   # the BMP's one storage (quality.storage_capacity)
            need = dwq / 12.0 * contrib_imp[bid]
            if cap and cap >= need:
                hit = (bid, cap, need)
                break
        if hit:
            captures.append(f"{s.spec.id}: {hit[0]} holds {hit[1]:,.0f} ft³ ≥ {dwq:g}/12 × "
                            f"{contrib_imp[hit[0]]:,.0f} ft² = {hit[2]:,.0f} ft³")
        else:
            short.append(s.spec.id)
            captures.append(f"{s.spec.id}: no BMP on its path ({' → '.join(chain) or 'none'}) holds the water "
                            "quality volume of the impervious area draining to it")
    rows.append(_row("ma_std4_wqv", "Water quality volume", "MA Standard 4; § 380-11 B(1)",
                     FAIL if short else PASS,
                     required=f"{wqv_total:,.0f} ft³ ({dwq:g} in × {total_imp:,.0f} ft² impervious)",
                     provided="captured on every treated path" if not short else f"not captured: {', '.join(short)}",
                     reason=("1.0 in because " + "; ".join(why)) if why else "0.5 in: none of the 1-inch conditions",
                     numbers={"depth_in": dwq, "required_cuft": round(wqv_total, 1), "conditions": why},
                     working=[f"Vwq = {dwq:g}/12 × {total_imp:,.0f} = {wqv_total:,.1f} ft³", *captures],
                     sources=[WQ_SOURCE]))

    # Standard 4: 80 % TSS by the MassDEP worksheet, one per train.
    credits = {bid: (r["tss_credit"]["rate"], r["tss_credit"]["source"]) for bid, r in bmp_rows.items()}
    trains, failing, missing = [], [], []
    for s in imp_subs:
        chain = path_from(s.spec.to)
        if s.spec.roof_runoff:
            trains.append({"subcatchment": s.spec.id, "bmps": chain, "exempt": "non-metal roof runoff (clean)"})
            continue
        ws = tss_worksheet(chain, credits)
        trains.append({"subcatchment": s.spec.id, "bmps": chain, **ws})
        if not meets_pct(ws["removal_pct"], MA_TSS_TARGET_PCT):
            (missing if ws["missing"] else failing).append(s.spec.id)
    status = FAIL if failing else NOT_ASSESSABLE if missing else PASS
    stated = any(bmps[b].tss_removal_pct is not None for t in trains for b in t["bmps"])
    # Rates from the shipped Handbook credits (a secondary source): named on the row, provisional.
    handbook = any(credits[b][1].startswith("Handbook default") for t in trains for b in t["bmps"])
    tss_sources = [WQ_SOURCE, TSS_WORKSHEET_SOURCE, *([MASSDEP_TSS_CREDITS_SOURCE] if handbook else [])]
    rows.append(_row("ma_std4_tss", "TSS removal, MassDEP worksheet (80 %)", "MA Standard 4; § 380-11 B(1)", status,
                     required=f"≥ {MA_TSS_TARGET_PCT:g} % on every train",
                     provided="; ".join(f"{t['subcatchment']}: " + (t["exempt"] if "exempt" in t else f"{t['removal_pct']:g} %")
                                        for t in trains) or "no impervious area",
                     reason=("; ".join(x for x in (
                         f"below 80 %: {', '.join(failing)}" if failing else "",
                         f"no TSS rate for a BMP on: {', '.join(missing)}" if missing else "") if x)),
                     numbers={"trains": trains}, provisional=stated or handbook, sources=tss_sources))

    # Standard 4: 44 % pretreatment before each infiltration BMP.
    for b in plan.bmps:
        if not b.infiltration_rate_in_hr:
            continue
        paths = []
        for s in imp_subs:
            chain = path_from(s.spec.to)
            if b.id not in chain:
                continue
            before = chain[:chain.index(b.id)]
            if s.spec.roof_runoff:
                paths.append({"subcatchment": s.spec.id, "bmps": before, "exempt": "non-metal roof runoff"})
                continue
            paths.append({"subcatchment": s.spec.id, "bmps": before, **tss_worksheet(before, credits)})
        if not paths:
            continue
        bad = [x["subcatchment"] for x in paths if "exempt" not in x and not meets_pct(x["removal_pct"], MA_PRETREATMENT_PCT)
               and not x["missing"]]
        unk = [x["subcatchment"] for x in paths if "exempt" not in x and not meets_pct(x["removal_pct"], MA_PRETREATMENT_PCT)
               and x["missing"]]
        st = FAIL if bad else NOT_ASSESSABLE if unk else PASS
        rows.append(_row(
            f"ma_std4_pretreatment_{b.id}", f"Pretreatment before {b.id} (44 % TSS)", "MA Standard 4; § 380-11 B(1)",
            st, required=f"≥ {MA_PRETREATMENT_PCT:g} % TSS removed before the runoff is infiltrated",
            provided="; ".join(f"{x['subcatchment']}: " + (x["exempt"] if "exempt" in x else
                                                           f"{x['removal_pct']:g} % (worksheet: {round(x['removal_pct']):d} %) "
                                                           f"by {' → '.join(x['bmps']) or 'nothing'}")
                               for x in paths),
            reason="; ".join(y for y in (f"below 44 %: {', '.join(bad)}" if bad else "",
                                         f"no TSS rate for a pretreatment BMP of: {', '.join(unk)}" if unk else "") if y),
            numbers={"paths": paths}, provisional=stated or handbook,
            working=["whole percents as MassDEP's worksheet reports them (two 25 % BMPs: 1 − 0.75 × 0.75 = 43.75 % → 44 %)"],
            sources=tss_sources))
    return rows


def statement_row(item: md.Item, st, applies: tuple[bool, str]) -> dict:
    key = f"ma_{item.key}"
    section = next(s for s in md.SECTIONS if s.key == item.section)
    title = item.title or section.title
    provision = section.provision.split(";")[0]
    if not applies[0] and (st is None or st.answer != "yes"):
        return _row(key, title, provision, NOT_APPLICABLE, required=item.text, provided="—", reason=applies[1],
                    sources=[md.CHECKLIST_SOURCE])
    if st is None:
        return _row(key, title, provision, NOT_ASSESSABLE, required=item.text, provided="not stated",
                    reason=f"the plan does not answer this item (massdep.statements.{item.key})",
                    sources=[md.CHECKLIST_SOURCE])
    if st.answer == "yes":
        return _row(key, title, provision, PASS, required=item.text, provided=f"Yes — {st.evidence}",
                    reason=("the applicant's statement; confirm it on the sheet cited" + (f" ({st.note})" if st.note else "")),
                    numbers={"answer": "yes", "evidence": st.evidence, "note": st.note}, sources=[md.CHECKLIST_SOURCE])
    if st.answer == "n/a":
        return _row(key, title, provision, NOT_APPLICABLE, required=item.text, provided="n/a", reason=st.note,
                    numbers={"answer": "n/a", "note": st.note}, sources=[md.CHECKLIST_SOURCE])
    return _row(key, title, provision, FAIL, required=item.text, provided="No",
                reason=st.note or "the applicant states the item is not provided",
                numbers={"answer": "no", "evidence": st.evidence, "note": st.note}, sources=[md.CHECKLIST_SOURCE])


def checklist_grouped(standards: list[dict]) -> list[dict]:
    """The rows in MassDEP's checklist order, then the Chapter 380 rows that go beyond the Standards."""
    claimed: set[str] = set()
    out = []
    for sec in md.SECTIONS:
        items = []
        for item in (i for i in md.ITEMS if i.section == sec.key):
            prefixes = item.rows if item.kind == "computed" else (f"ma_{item.key}",)
            keys = [s["key"] for s in standards if any(s["key"] == p or (p.endswith("_") and s["key"].startswith(p))
                                                       for p in prefixes)]
            claimed.update(keys)
            statuses = [s["status"] for s in standards if s["key"] in keys]
            items.append({"key": item.key, "text": item.text, "kind": item.kind, "rows": keys,
                          "status": worst(statuses) if statuses else NOT_APPLICABLE,
                          "empty_reason": "" if keys else "nothing of this kind in the plan"})
        st = worst(i["status"] for i in items)
        out.append({"key": sec.key, "title": sec.title, "provision": sec.provision, "items": items, "status": st,
                    "status_label": STATUS_LABELS[st]})
    rest = [s["key"] for s in standards if s["key"] not in claimed]
    st = worst(s["status"] for s in standards if s["key"] in rest)
    out.append({"key": "ch380", "title": "Chapter 380 standards beyond the Massachusetts Standards",
                "provision": "§ 380-11 B(2), B(8), D, E; § 380-12 A(3)(g)", "status": st,
                "status_label": STATUS_LABELS[st],
                "items": [{"key": k, "text": "", "kind": "computed", "rows": [k],
                           "status": next(s["status"] for s in standards if s["key"] == k), "empty_reason": ""}
                          for k in rest]})
    return out
