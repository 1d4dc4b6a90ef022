"""Culverts as basin outlets: FHWA HDS-5 inlet and outlet control, turned into discharge against stage.

References
----------
FHWA, *Hydraulic Design of Highway Culverts*, Hydraulic Design Series No. 5 (HDS-5), 3rd ed.,
FHWA-HIF-12-026, April 2012:

- inlet control: Appendix A, Eq. A.1 (unsubmerged, form 1), Eq. A.2 (unsubmerged, form 2), Eq. A.3
  (submerged), K_u = 1.0 in US customary units; unsubmerged up to Q/(A D^0.5) = 3.5, submerged from 4.0,
  straight-line transition between (Appendix A, "transition zone"); constants from Table A.1
  (``data/hds5_tableA-1_inlet_control_coefficients.csv``);
- outlet control: chapter 3 (outlet control, full flow): H = [1 + k_e + 29 n² L / R^1.33] V²/2g (the friction
  term with K_u = 29 in US units); headwater HW_o = h_o + H − L S with h_o = max(TW, (d_c + D)/2) (HDS-5's
  approximate method for an outlet flowing partly full);
- the governing headwater is the higher of the two (HDS-5 ch. 3: the control that gives the higher headwater).

The chapter 3 section and equation numbers, and the HDS-5 tables of Manning's n and entrance loss k_e behind the
review's defaults, are not cited by number here: they were not checked against the 2012 text.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from ._tables import require_finite, table

G_FT_S2 = 32.174
UNSUBMERGED_MAX = 3.5   # Q/(A D^0.5) up to which HDS-5 Eq. A.1/A.2 hold
SUBMERGED_MIN = 4.0     # Q/(A D^0.5) from which Eq. A.3 holds
FRICTION_KU = 29.0      # HDS-5 ch. 3 friction loss term, US customary units
HDS5_TABLE = "hds5_tableA-1_inlet_control_coefficients.csv"


@dataclass(frozen=True)
class InletCoefficients:
    inlet: str
    shape: str
    description: str
    form: int
    k: float
    m: float
    c: float
    y: float
    ks: float


@lru_cache(maxsize=None)
def inlet_types() -> dict[str, InletCoefficients]:
    """HDS-5 Table A.1 rows shipped, by key (e.g. ``concrete_square_edge_headwall``)."""
    return {r["inlet"]: InletCoefficients(r["inlet"], r["shape"], f"{r['material']}, {r['description']}",
                                          int(r["form"]), float(r["K"]), float(r["M"]), float(r["c"]),
                                          float(r["Y"]), float(r["ks"]))
            for r in table(HDS5_TABLE)}


def _bracket_solve(f, lo: float, hi: float, *, tol: float = 1e-10, it: int = 200) -> float:
    """Root of increasing ``f`` on [lo, hi] with f(lo) <= 0 <= f(hi) (Illinois regula falsi)."""
    flo, fhi = f(lo), f(hi)
    side = 0
    for _ in range(it):
        x = (lo * fhi - hi * flo) / (fhi - flo) if fhi != flo else (lo + hi) / 2.0
        fx = f(x)
        if abs(fx) < tol or hi - lo < tol * max(1.0, abs(hi)):
            return x
        if fx > 0:
            hi, fhi = x, fx
            if side == -1:
                flo /= 2.0
            side = -1
        else:
            lo, flo = x, fx
            if side == 1:
                fhi /= 2.0
            side = 1
    return (lo + hi) / 2.0


@dataclass(frozen=True)
class Culvert:
    """A culvert (one or more identical barrels) from a basin: discharge [cfs] against the basin's stage [ft].

    Parameters
    ----------
    invert_ft : upstream (inlet) invert elevation [ft]
    outlet_invert_ft : downstream invert elevation [ft]; the slope S = (invert − outlet invert) / L
    length_ft : barrel length L [ft]
    rise_ft : barrel rise D [ft] (the diameter of a circular pipe)
    inlet : key of HDS-5 Table A.1 (:func:`inlet_types`); its shape (circular or box) is the barrel's
    span_ft : box span B [ft] (boxes only)
    manning_n : barrel roughness (0.012 concrete, 0.024 corrugated metal)
    entrance_loss : k_e (HDS-5's entrance loss table: 0.5 square edge with headwall, 0.2 groove end, 0.7 mitered,
        0.9 projecting CMP)
    tailwater_ft : tailwater elevation [ft] at the outlet; None = free outfall (h_o = (d_c + D)/2)
    barrels : number of identical barrels sharing the flow

    Notes
    -----
    At each stage the discharge is the Q whose governing headwater (the higher of inlet and outlet
    control) equals the stage: the headwater rises with Q under both controls, so the root is unique
    (regula falsi). No flow while the stage is at or below the inlet invert or the tailwater. HDS-5's
    approximate outlet-control method (h_o = max(TW, (d_c + D)/2)) is meant for headwater at least
    0.75 D above the inlet invert (HDS-5 ch. 3); below that, unless the tailwater sets h_o, inlet control
    alone is taken (where outlet control then takes over at 0.75 D the rating holds its flow flat over the
    stages of that step, so it stays continuous and never falls).
    """

    invert_ft: float
    outlet_invert_ft: float
    length_ft: float
    rise_ft: float
    inlet: str = "concrete_square_edge_headwall"
    span_ft: float | None = None
    manning_n: float = 0.012
    entrance_loss: float = 0.5
    tailwater_ft: float | None = None
    barrels: int = 1

    def __post_init__(self) -> None:
        for name in ("invert_ft", "outlet_invert_ft", "length_ft", "rise_ft", "manning_n", "entrance_loss"):
            require_finite(getattr(self, name), name)
        if self.inlet not in inlet_types():
            raise ValueError(f"inlet: {self.inlet!r} is not one of {', '.join(inlet_types())} (HDS-5 Table A.1)")
        if self.length_ft <= 0 or self.rise_ft <= 0 or self.manning_n <= 0 or self.entrance_loss < 0:
            raise ValueError("length_ft, rise_ft, manning_n: must be greater than zero; entrance_loss not negative")
        if self.shape == "box" and not (self.span_ft and self.span_ft > 0):
            raise ValueError("span_ft: a box culvert needs its span")
        if self.barrels < 1:
            raise ValueError("barrels: at least one")

    # --- geometry -------------------------------------------------------------------------------

    @property
    def coefficients(self) -> InletCoefficients:
        return inlet_types()[self.inlet]

    @property
    def shape(self) -> str:
        return inlet_types()[self.inlet].shape

    @property
    def slope(self) -> float:
        return (self.invert_ft - self.outlet_invert_ft) / self.length_ft

    @property
    def area_sqft(self) -> float:
        """Full barrel area A [ft²] (one barrel)."""
        d = self.rise_ft
        return math.pi * d * d / 4.0 if self.shape == "circular" else self.span_ft * d

    @property
    def hydraulic_radius_ft(self) -> float:
        d = self.rise_ft
        return d / 4.0 if self.shape == "circular" else self.span_ft * d / (2.0 * (self.span_ft + d))

    def _wet(self, y: float) -> tuple[float, float]:
        """Flow area [ft²] and top width [ft] at depth y in one barrel."""
        if self.shape == "box":
            return self.span_ft * y, self.span_ft
        r = self.rise_ft / 2.0
        theta = 2.0 * math.acos(max(-1.0, min(1.0, (r - y) / r)))
        return r * r * (theta - math.sin(theta)) / 2.0, 2.0 * r * math.sin(theta / 2.0)

    def critical_depth_ft(self, q_cfs: float) -> float:
        """Critical depth d_c [ft] in one barrel carrying ``q_cfs`` (Q²/g = A³/T), at most D."""
        return _critical_depth(self, float(q_cfs))

    # --- HDS-5 ----------------------------------------------------------------------------------

    def _unsubmerged_hw(self, q: float) -> float:
        c, d = self.coefficients, self.rise_ft
        x = q / (self.area_sqft * math.sqrt(d))
        if c.form == 2:
            return d * c.k * x ** c.m                                        # HDS-5 Eq. A.2
        dc = self.critical_depth_ft(q)
        a, _ = self._wet(dc)
        hc = dc + (q / a) ** 2 / (2.0 * G_FT_S2) if dc > 0 else 0.0          # specific head at critical depth
        return d * (hc / d + c.k * x ** c.m + c.ks * self.slope)             # HDS-5 Eq. A.1

    def _submerged_hw(self, q: float) -> float:
        c, d = self.coefficients, self.rise_ft
        x = q / (self.area_sqft * math.sqrt(d))
        return d * (c.c * x * x + c.y + c.ks * self.slope)                   # HDS-5 Eq. A.3

    def inlet_control_headwater_ft(self, q_cfs: float) -> float:
        """Headwater depth [ft] above the inlet invert under inlet control for total flow ``q_cfs``."""
        q = q_cfs / self.barrels
        ad = self.area_sqft * math.sqrt(self.rise_ft)
        x = q / ad
        if x <= UNSUBMERGED_MAX:
            return self._unsubmerged_hw(q)
        if x >= SUBMERGED_MIN:
            return self._submerged_hw(q)
        h1, h2 = self._unsubmerged_hw(UNSUBMERGED_MAX * ad), self._submerged_hw(SUBMERGED_MIN * ad)
        return h1 + (h2 - h1) * (x - UNSUBMERGED_MAX) / (SUBMERGED_MIN - UNSUBMERGED_MAX)

    def outlet_control_headwater_ft(self, q_cfs: float) -> float:
        """Headwater depth [ft] above the inlet invert under outlet control (HDS-5 ch. 3, full flow)."""
        q = q_cfs / self.barrels
        v = q / self.area_sqft
        loss = (1.0 + self.entrance_loss + FRICTION_KU * self.manning_n ** 2 * self.length_ft
                / self.hydraulic_radius_ft ** 1.33) * v * v / (2.0 * G_FT_S2)
        ho = (self.critical_depth_ft(q) + self.rise_ft) / 2.0
        if self.tailwater_ft is not None:
            ho = max(ho, self.tailwater_ft - self.outlet_invert_ft)
        return ho + loss - self.length_ft * self.slope

    def outlet_control_applies(self, q_cfs: float) -> bool:
        """Whether HDS-5's approximate outlet-control method is used at this flow: its headwater is at least
        0.75 D above the inlet invert, or the tailwater sets h_o (HDS-5 ch. 3: below 0.75 D with a
        free outlet the method overstates the headwater; a backwater computation would be needed)."""
        q = q_cfs / self.barrels
        tw_sets_ho = (self.tailwater_ft is not None and
                      self.tailwater_ft - self.outlet_invert_ft >= (self.critical_depth_ft(q) + self.rise_ft) / 2.0)
        return tw_sets_ho or self.outlet_control_headwater_ft(q_cfs) >= 0.75 * self.rise_ft

    def headwater_ft(self, q_cfs: float) -> tuple[float, str]:
        """The governing headwater elevation [ft] for total flow ``q_cfs`` and which control gives it: the
        higher of inlet and outlet control (outlet control where :meth:`outlet_control_applies`)."""
        hi = self.inlet_control_headwater_ft(q_cfs)
        if not self.outlet_control_applies(q_cfs):
            return self.invert_ft + hi, "inlet"
        ho = self.outlet_control_headwater_ft(q_cfs)
        return (self.invert_ft + hi, "inlet") if hi >= ho else (self.invert_ft + ho, "outlet")

    def control_at(self, stage_ft: float) -> str | None:
        """"inlet" or "outlet": which control governs at this stage (None when nothing flows)."""
        q = self.discharge_cfs(stage_ft)
        return self.headwater_ft(q)[1] if q > 0 else None

    def discharge_cfs(self, stage_ft: float) -> float:
        return _culvert_q(self, float(stage_ft))


@lru_cache(maxsize=65536)
def _culvert_q(cv: Culvert, stage: float) -> float:
    floor = cv.invert_ft if cv.tailwater_ft is None else max(cv.invert_ft, cv.tailwater_ft)
    if stage <= floor:
        return 0.0

    def f(q: float) -> float:
        return cv.headwater_ft(q)[0] - stage

    if f(0.0) >= 0:
        return 0.0
    hi = cv.area_sqft * math.sqrt(cv.rise_ft) * cv.barrels
    while f(hi) < 0:
        hi *= 2.0
    return _bracket_solve(f, 0.0, hi, tol=1e-9)


@lru_cache(maxsize=65536)
def _critical_depth(cv: Culvert, q: float) -> float:
    d = cv.rise_ft
    if q <= 0:
        return 0.0
    if cv.shape == "box":
        return min(d, (q * q / (G_FT_S2 * cv.span_ft ** 2)) ** (1.0 / 3.0))
    target = q * q / G_FT_S2
    r = d / 2.0
    # ln(A³/T) rises with the wetted angle θ, without bound at the crown: safeguarded Newton on θ.
    ln_target = math.log(target)
    lo, hi, th = 0.0, 2.0 * math.pi, math.pi
    for _ in range(100):
        a = r * r * (th - math.sin(th)) / 2.0
        t = 2.0 * r * math.sin(th / 2.0)
        f = 3.0 * math.log(a) - math.log(t) - ln_target
        if f > 0:
            hi = th
        else:
            lo = th
        if abs(f) < 1e-13 or hi - lo < 1e-15:
            break
        df = 3.0 * (1.0 - math.cos(th)) / (th - math.sin(th)) - 0.5 / math.tan(th / 2.0)
        nxt = th - f / df
        th = nxt if lo < nxt < hi else (lo + hi) / 2.0
    return r * (1.0 - math.cos(th / 2.0))
