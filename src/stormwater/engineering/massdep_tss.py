"""MassDEP Standard 4 TSS removal credits per BMP, with the condition each needs (reference data).

``data/massdep_tss_credits.csv`` holds, per BMP type, the credit the Massachusetts Stormwater Handbook's
BMP fact sheets give in their "Ability to Meet Massachusetts Stormwater Management Standards" table,
row "4 - TSS Removal", the condition the credit needs (``rule``), the page it was read on and a short
quote. The pages are a secondary reproduction of the Handbook that does not name its volume, chapter or
table, so every row is ``confidence = medium`` and the review marks results from them provisional.
BMPs the stored text did not cover (deep sump catch basin, infiltration basin, ...) are absent, never
guessed.

Pure Python (no Django).
"""
from __future__ import annotations

from dataclasses import dataclass

from ._tables import table

CSV_NAME = "massdep_tss_credits.csv"
RULES = ("pretreatment", "forebay", "needs_forebay", "roof_only")
# The BMPs a sediment forebay gets no separate credit in front of (their credit includes it).
FOREBAY_INCLUDED_IN = ("extended_dry_detention_basin", "wet_basin", "constructed_stormwater_wetland",
                       "infiltration_basin")


@dataclass(frozen=True)
class TssCredit:
    bmp_type: str
    tss_removal_pct: float
    rule: str
    condition: str
    source_url: str
    quote: str
    handbook_ref: str
    confidence: str


def _norm(name: str) -> str:
    return "_".join(str(name).strip().lower().replace("-", " ").replace("_", " ").split())


def credits() -> dict[str, TssCredit]:
    """The shipped credits by normalised BMP type."""
    out = {}
    for r in table(CSV_NAME):
        c = TssCredit(bmp_type=_norm(r["bmp_type"]), tss_removal_pct=float(r["tss_removal_pct"]), rule=r["rule"],
                      condition=r["condition"], source_url=r["source_url"], quote=r["quote"],
                      handbook_ref=r["handbook_ref"], confidence=r["confidence"])
        if c.rule not in RULES or not 0 < c.tss_removal_pct <= 100:
            raise ValueError(f"{CSV_NAME}: bad row for {c.bmp_type}")
        out[c.bmp_type] = c
    return out


def credit_for(bmp_type: str) -> TssCredit | None:
    """The shipped credit for a BMP type, or None when the reference data has none."""
    return credits().get(_norm(bmp_type))
