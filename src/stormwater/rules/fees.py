"""The stormwater fee (Chapter 295 Article IV, "Rates and charges" / user fee section).

Ch. 295 Art. IV ¶B: one ERU = the median impervious area of single-family residences, set in ft²
by Select Board resolution.
Ch. 295 Art. IV ¶E: two rate classifications. Small residential pays a flat rate; nonresidential
(large residential included, by definition) pays rate per ERU × ERUs through the declining block
structure of Table 1.
Interpretations (DESIGN.md, town configuration defaults, shown to the user where they decide an
amount):
- ERUs = impervious ft² / ERU ft², rounded to the nearest whole ERU (halves up), at least 1 where
  there is any impervious area; no impervious area, no fee.
- Blocks are incremental, like tax brackets; ERUs above the last block stay at its coefficient and
  are flagged for review.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from typing import Sequence

from .classes import PropertyClass
from .money import ZERO, fmt, fmt_display, fmt_ratio, round_cents, split_equal

# Ch. 295 Art. IV ¶E, Table 1: Declining Block Rate Structure (ERU range, coefficient).
TABLE_1_BLOCKS: tuple[tuple[int, int | None, Decimal], ...] = (
    (1, 10, Decimal("1.0")),
    (11, 50, Decimal("0.9")),
    (51, 100, Decimal("0.8")),
    (101, 500, Decimal("0.7")),
)

# A parcel this large in impervious area is not a Longmeadow parcel: it is a data error
# (about 2.3 square miles of pavement).
ABSURD_IMPERVIOUS_SQFT = Decimal("100000000")


@dataclass(frozen=True)
class Block:
    first_eru: int
    last_eru: int | None  # None: open-ended (the last block)
    coefficient: Decimal


@dataclass(frozen=True)
class BlockShare:
    first_eru: int
    last_eru: int
    erus: int
    coefficient: Decimal
    amount: Decimal

    def as_json(self) -> dict:
        return {
            "first_eru": self.first_eru,
            "last_eru": self.last_eru,
            "erus": self.erus,
            "coefficient": fmt_ratio(self.coefficient),
            "amount": fmt(self.amount),
        }


@dataclass(frozen=True)
class FeeTerms:
    """The parts of a rate resolution the fee uses."""

    eru_sqft: Decimal
    rate_per_eru: Decimal  # annual dollars per ERU
    small_residential_rate: Decimal  # annual flat dollars
    blocks: tuple[Block, ...]
    installments: int = 1
    label: str = ""

    def __post_init__(self) -> None:
        validate_terms(self)


@dataclass(frozen=True)
class Fee:
    property_class: PropertyClass
    impervious_sqft: Decimal
    erus: int
    gross_fee: Decimal
    credit_percent: Decimal
    credit_amount: Decimal
    annual_fee: Decimal
    blocks: tuple[BlockShare, ...]
    installments: tuple[Decimal, ...]
    over_last_block: bool
    explanation: str
    terms: FeeTerms = field(repr=False)

    def as_json(self) -> dict:
        return {
            "property_class": self.property_class.value,
            "impervious_sqft": str(self.impervious_sqft),
            "eru_sqft": str(self.terms.eru_sqft),
            "rate_per_eru": fmt(self.terms.rate_per_eru),
            "erus": self.erus,
            "gross_fee": fmt(self.gross_fee),
            "credit_percent": fmt_ratio(self.credit_percent),
            "credit_amount": fmt(self.credit_amount),
            "annual_fee": fmt(self.annual_fee),
            "blocks": [b.as_json() for b in self.blocks],
            "installments": [fmt(a) for a in self.installments],
            "flagged_over_last_block": self.over_last_block,
            "explanation": self.explanation,
        }


def blocks_from_table(rows: Sequence[tuple[int, int | None, Decimal]]) -> tuple[Block, ...]:
    return tuple(Block(a, b, Decimal(c)) for a, b, c in rows)


DEFAULT_BLOCKS = blocks_from_table(TABLE_1_BLOCKS)


def validate_blocks(blocks: Sequence[Block]) -> None:
    """Blocks must start at ERU 1, be contiguous and have coefficients in (0, 1]."""
    if not blocks:
        raise ValueError("blocks: at least one block is required")
    expected = 1
    for i, b in enumerate(blocks):
        if b.first_eru != expected:
            raise ValueError(f"blocks: block {i + 1} must start at ERU {expected}, not {b.first_eru}")
        if b.last_eru is not None and b.last_eru < b.first_eru:
            raise ValueError(f"blocks: block {i + 1} ends before it starts")
        if b.last_eru is None and i != len(blocks) - 1:
            raise ValueError("blocks: only the last block may be open-ended")
        if not (Decimal(0) < b.coefficient <= Decimal(1)):
            raise ValueError(f"blocks: block {i + 1} coefficient must be in (0, 1]")
        expected = (b.last_eru or 0) + 1


def validate_terms(terms: FeeTerms) -> None:
    if terms.eru_sqft <= 0:
        raise ValueError("eru_sqft: must be greater than zero")
    if terms.rate_per_eru < 0:
        raise ValueError("rate_per_eru: must not be negative")
    if terms.small_residential_rate < 0:
        raise ValueError("small_residential_rate: must not be negative")
    if not 1 <= terms.installments <= 4:
        # Ch. 295 Art. IV ¶B: billed at least annually, not more often than four quarterly increments.
        raise ValueError("installments: must be 1, 2, 3 or 4 (at least annually, at most quarterly)")
    validate_blocks(terms.blocks)


def erus_for_area(impervious_sqft: Decimal, eru_sqft: Decimal) -> int:
    """Whole ERUs for an impervious area (DESIGN.md: nearest whole ERU, halves up, ≥ 1 if any area)."""
    if impervious_sqft < 0:
        raise ValueError("impervious_sqft: must not be negative")
    if impervious_sqft == 0:
        return 0
    erus = int((impervious_sqft / eru_sqft).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    return max(1, erus)


def block_shares(erus: int, rate_per_eru: Decimal, blocks: Sequence[Block]) -> tuple[tuple[BlockShare, ...], bool]:
    """Price ``erus`` through incremental declining blocks (Ch. 295 Art. IV ¶E, Table 1).

    Returns the shares and whether ERUs ran past the last block's upper bound (those stay at the
    last coefficient and are flagged for review).
    """
    shares: list[BlockShare] = []
    over = False
    for i, b in enumerate(blocks):
        if erus < b.first_eru:
            break
        last_block = i == len(blocks) - 1
        top = erus if (b.last_eru is None or (last_block and erus > b.last_eru)) else min(erus, b.last_eru)
        if last_block and b.last_eru is not None and erus > b.last_eru:
            over = True
        n = top - b.first_eru + 1
        shares.append(BlockShare(b.first_eru, top, n, b.coefficient, round_cents(n * b.coefficient * rate_per_eru)))
    return tuple(shares), over


def compute_fee(
    *,
    property_class: PropertyClass,
    impervious_sqft: Decimal,
    terms: FeeTerms,
    credit_percent: Decimal = ZERO,
    installments: int | None = None,
) -> Fee:
    """The annual stormwater fee of one parcel, with its explanation.

    Small residential: the flat rate (Ch. 295 Art. IV ¶E), shown as one ERU's flat charge.
    Large residential and nonresidential: ERUs through the declining blocks (¶E, Table 1).
    Exempt (public streets, highways and rights-of-way, Ch. 295 Art. IV exemptions ¶B(1)): no fee.
    A credit (credit policy section) reduces the fee by its percent.
    """
    if impervious_sqft < 0:
        raise ValueError("impervious_sqft: must not be negative")
    if impervious_sqft > ABSURD_IMPERVIOUS_SQFT:
        raise ValueError(f"impervious_sqft: {impervious_sqft} ft² is not a plausible parcel area")
    if not (Decimal(0) <= credit_percent <= Decimal(100)):
        raise ValueError("credit_percent: must be between 0 and 100")
    n_inst = terms.installments if installments is None else installments
    if not 1 <= n_inst <= 4:
        raise ValueError("installments: must be 1, 2, 3 or 4 (at least annually, at most quarterly)")

    lines: list[str] = []
    over = False
    shares: tuple[BlockShare, ...] = ()
    if property_class is PropertyClass.EXEMPT:
        erus, gross = 0, ZERO
        lines.append("Exempt: public streets, highways and rights-of-way pay no stormwater fee "
                     "(Ch. 295 Art. IV, exemptions ¶B(1)).")
    elif property_class is PropertyClass.SMALL_RESIDENTIAL:
        erus, gross = 1, round_cents(terms.small_residential_rate)
        lines.append("Small residential property (1–3 dwelling units) pays the flat rate "
                     f"of ${fmt_display(gross)} a year (Ch. 295 Art. IV ¶E).")
    else:
        erus = erus_for_area(impervious_sqft, terms.eru_sqft)
        what = ("Large residential property (4 or more dwelling units) is billed as nonresidential"
                if property_class is PropertyClass.LARGE_RESIDENTIAL else "Nonresidential property")
        lines.append(f"{what}: rate per ERU × ERUs through the declining blocks (Ch. 295 Art. IV ¶E, Table 1).")
        lines.append(f"Impervious area {impervious_sqft:,.0f} ft² ÷ ERU {terms.eru_sqft:,.0f} ft² "
                     f"= {(impervious_sqft / terms.eru_sqft).quantize(Decimal('0.01'))} → {erus} ERU"
                     f"{'' if erus == 1 else 's'} (nearest whole ERU, halves up, at least 1 where there is any impervious area).")
        if erus == 0:
            gross = ZERO
            lines.append("No impervious area: no fee.")
        else:
            shares, over = block_shares(erus, terms.rate_per_eru, terms.blocks)
            for s in shares:
                lines.append(f"ERUs {s.first_eru}–{s.last_eru}: {s.erus} × ${fmt_display(terms.rate_per_eru)} × "
                             f"{fmt_ratio(s.coefficient)} = ${fmt_display(s.amount)}")
            gross = sum((s.amount for s in shares), ZERO)
            if over:
                lines.append(f"More than {terms.blocks[-1].last_eru} ERUs: the ERUs above the last block are "
                             f"charged at its coefficient and flagged for review.")
    credit_amount = round_cents(gross * credit_percent / Decimal(100))
    annual = gross - credit_amount
    if credit_amount:
        lines.append(f"Credit {fmt_ratio(credit_percent)}%: −${fmt_display(credit_amount)}.")
    lines.append(f"Annual fee: ${fmt_display(annual)}.")
    parts = split_equal(annual, n_inst)
    if n_inst > 1:
        lines.append(f"Billed in {n_inst} installments: " + ", ".join(f"${fmt_display(p)}" for p in parts) + ".")
    if terms.label:
        lines.append(f"Rates: {terms.label}.")
    return Fee(
        property_class=property_class,
        impervious_sqft=impervious_sqft,
        erus=erus,
        gross_fee=gross,
        credit_percent=credit_percent,
        credit_amount=credit_amount,
        annual_fee=annual,
        blocks=shares,
        installments=tuple(parts),
        over_last_block=over,
        explanation="\n".join(lines),
        terms=terms,
    )
