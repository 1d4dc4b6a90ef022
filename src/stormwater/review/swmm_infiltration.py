"""SWMM's Horton and Green-Ampt infiltration, run on the pervious subarea, and the equivalent curve number.

Pure Python (no Django, no solver). Issue 31: four of five EPA example models use Horton infiltration and
were refused. The review computes runoff with TR-55 curve numbers, so an imported Horton / Green-Ampt
subarea is **converted** to the curve number that gives the same runoff depth, and the conversion is stated
on the report (a note per subcatchment, with both runoff depths at each reference storm):

1. The pervious subarea's losses are run as SWMM runs them (Rossman & Huber 2016, *SWMM Reference Manual
   Vol. I -- Hydrology*, ch. 4) on the NRCS Type III 24-hour storm at each reference depth, 1-minute steps,
   starting dry:
   - Horton (4.2): capacity f = fc + (f0 - fc) e^(-kd t), applied in SWMM's cumulative-infiltration form
     F(tp) = fc tp + (f0 - fc)(1 - e^(-kd tp)) / kd: each step the equivalent time tp on the curve is found
     from the infiltration so far, the capacity over the step is F(tp + dt) - F(tp), and the total is capped
     at the maximum infiltration volume (Fmax > 0). Dry time only matters between storms (not modelled).
   - Modified Horton (4.3): f = max(fc, f0 - kd Fe), Fe the cumulative infiltration, capped at Fmax.
   - Green-Ampt (4.4, Mein-Larson): all rain infiltrates until the surface ponds; then F2 over a step from
     F2 - C ln(F2 + C) = F1 - C ln(F1 + C) + Ks dt, C = suction x initial moisture deficit (the same step
     SWMM's ``grnampt_getF2`` takes). The upper-zone recovery between storms is not modelled (one storm).
     Modified Green-Ampt is run the same way (it differs only for shallow infiltration before ponding).
   Water not infiltrated fills the subarea's depression storage (S-Perv); above it, it leaves through
   SWMM's nonlinear reservoir over the plane (Vol. I ch. 3: width, slope, N-Perv), infiltrating while it
   is ponded. On single pervious planes these runoff depths are within 3 % of SWMM 5.2's own
   (tests/review/test_issue31_swmm_import.py).
2. The curve number is the one whose TR-55 runoff (Ia = 0.2 S) fits those depths best (least squares over
   the reference storms, CN to 0.1). One CN cannot match every storm; the note gives both depths per storm.

The hydrologic soil group is inferred, when the model does not state it, from the rate at which the wet
soil keeps taking water: Horton's minimum rate fc, Green-Ampt's Ks, against the minimum infiltration rates
by soil group (A 0.30-0.45, B 0.15-0.30, C 0.05-0.15, D 0-0.05 in/h; Musgrave 1955, as tabulated for Horton
in Rossman & Huber 2016 Vol. I ch. 4 -- table number not checked against the text), or, for a curve-number
model, as the group whose TR-55 Table 2-2a "open space, good condition" CN is nearest the pervious CN.
"""
from __future__ import annotations

import functools
import math

# Reference storms for the conversion [in, 24-hour]: round depths spanning the 2- to 100-year storms
# the review runs for a Longmeadow plan (the plan's own design depths, when known, replace them).
REFERENCE_DEPTHS_IN = (3.0, 5.0, 8.0)
STEP_HR = 1.0 / 60.0
# Minimum infiltration rate [in/h] at or above which a soil is in the group (Musgrave 1955; SWMM Ref. Manual
# Vol. I ch. 4): A >= 0.30, B >= 0.15, C >= 0.05, D below.
HSG_MIN_RATE_IN_HR = (("A", 0.30), ("B", 0.15), ("C", 0.05), ("D", 0.0))
SRC = "Rossman & Huber (2016), SWMM Reference Manual Vol. I - Hydrology, ch. 4"

METHODS = ("HORTON", "MODIFIED_HORTON", "GREEN_AMPT", "MODIFIED_GREEN_AMPT")


class InfiltrationParamError(ValueError):
    pass


class _Horton:
    """Horton: the equivalent time tp on the curve F(tp) = fc tp + (f0 - fc)(1 - e^(-kd tp)) / kd advances by
    the step while the capacity governs; when the water available governs, tp is solved (Newton) from the
    infiltration so far, as SWMM does (Vol. I §4.2)."""

    def __init__(self, f0, fc, kd, _dry, fmax, modified=False):
        self.f0, self.fc, self.kd, self.fmax, self.modified = f0, fc, kd, fmax, modified
        self.tp = self.Fe = self.Fmh = 0.0

    def _F(self, t):
        kd, df = self.kd, self.f0 - self.fc
        return self.fc * t + (df / kd if kd * t >= 16 else df / kd * (1.0 - math.exp(-kd * t)))

    def step(self, avail_rate, dt):
        """Infiltration rate [in/h] over a step with ``avail_rate`` [in/h] of water at the surface."""
        f0, fc, kd = self.f0, self.fc, self.kd
        if avail_rate <= 0:
            return 0.0
        if f0 <= fc or kd <= 0:
            return min(f0, avail_rate)
        if self.modified:  # f = max(fc, f0 - kd Fe), Fe the infiltration above fc (Vol. I §4.3)
            if self.fmax > 0 and self.Fe >= self.fmax:
                return 0.0
            f = min(avail_rate, max(fc, f0 - kd * self.Fe))
            if self.fmax > 0:
                f = max(0.0, min(f, (self.fmax - self.Fmh) / dt))
                self.Fmh += f * dt
            self.Fe += max(f - fc, 0.0) * dt
            return f
        if self.fmax > 0 and self.Fe >= self.fmax:
            return 0.0
        t1 = self.tp + dt
        Fp = self._F(self.tp)
        fp = max((self._F(t1) - Fp) / dt, fc)
        if fp > avail_rate:
            fp = avail_rate
            target, tp = Fp + fp * dt, self.tp + dt / 2.0
            for _ in range(20):
                ex = math.exp(-min(60.0, kd * tp))
                r = (fc * tp + (f0 - fc) / kd * (1.0 - ex) - target) / (fc + (f0 - fc) * ex)
                tp -= r
                if abs(r) <= 0.001 * dt:
                    break
            self.tp = tp
        else:
            self.tp = t1
        if self.fmax > 0:
            fp = max(0.0, min(fp, (self.fmax - self.Fe) / dt))
            self.Fe += fp * dt
        return fp


class _GreenAmpt:
    """Green-Ampt with SWMM's upper soil zone (Vol. I §4.4): depth Lu = 4 Ks^0.5 [in]; rain below Ks fills the
    zone and, unless modified, lowers the moisture deficit; above Ks the surface saturates once
    F > Fs = Ks (ψ + d) IMD / (i - Ks), then F2 - C ln(F2 + C) = F1 - C ln(F1 + C) + Ks dt, C = (ψ + d) IMD."""

    def __init__(self, psi, ks, imd, modified=False):
        self.psi, self.ks, self.imd_max, self.modified = psi, ks, imd, modified
        self.lu = 4.0 * math.sqrt(ks)  # in
        self.fumax = imd * self.lu
        self.imd, self.F, self.Fu, self.sat, self.T = imd, 0.0, 0.0, False, 0.0

    def _f2(self, f1, c1, dt):
        f2min = f1 + self.ks * dt
        if c1 == 0:
            return f2min
        c2, f2 = c1 * math.log(f1 + c1) - self.ks * dt, f1
        for _ in range(20):
            d = (f2 - f1 - c1 * math.log(f2 + c1) + c2) / (1.0 - c1 / (f2 + c1))
            if abs(d) < 1e-5 / 12:
                return max(f2, f2min)
            f2 -= d
        return f2min

    def _add(self, dF):
        self.F += dF
        self.Fu = min(self.Fu + dF, self.fumax)

    def step(self, rain_rate, ponded, dt):
        ia = max(rain_rate + ponded / dt, 0.0)
        self.T -= dt
        lu_ft = self.lu / 12.0
        if self.sat:
            if ia <= 0:
                return 0.0
            self.T = 1.5 / lu_ft
            dF = self._f2(self.F, (self.psi + ponded) * self.imd, dt) - self.F
            if dF > ia * dt:
                dF, self.sat = ia * dt, False
            self._add(dF)
            return dF / dt
        if ia == 0:  # recovery of the upper zone between rains
            if self.Fu > 0:
                dF = lu_ft / 25.0 * self.fumax * dt
                self.F -= dF
                self.Fu -= dF
                if self.Fu <= 0:
                    self.Fu = self.F = 0.0
                    self.imd = self.imd_max
                elif self.T <= 0:
                    self.imd, self.F = (self.fumax - self.Fu) / self.lu, 0.0
            return 0.0
        if ia <= self.ks:
            self._add(ia * dt)
            if not self.modified and self.T <= 0:
                self.imd, self.F = (self.fumax - self.Fu) / self.lu, 0.0
            return ia
        self.T = 1.5 / lu_ft
        fs = self.ks * (self.psi + ponded) * self.imd / (ia - self.ks)
        if self.F > fs:
            self.sat = True
            return self._sat_step(ia, ponded, dt)
        if self.F + ia * dt < fs:
            self._add(ia * dt)
            return ia
        ts = max(dt - (fs - self.F) / ia, 0.0)
        f2 = min(self._f2(fs, (self.psi + ponded) * self.imd, ts), fs + ia * ts)
        dF = f2 - self.F
        self.F = f2
        self.Fu = min(self.Fu + dF, self.fumax)
        self.sat = True
        return dF / dt

    def _sat_step(self, ia, ponded, dt):
        self.T = 1.5 / (self.lu / 12.0)
        dF = self._f2(self.F, (self.psi + ponded) * self.imd, dt) - self.F
        if dF > ia * dt:
            dF, self.sat = ia * dt, False
        self._add(dF)
        return dF / dt


@functools.lru_cache(maxsize=4)
def _fractions(storm_type: str) -> tuple[float, ...]:
    """The NRCS 24-hour storm's cumulative fraction at every step."""
    from stormwater.engineering.rainfall import nrcs_24hr_cumulative_fraction

    return tuple(nrcs_24hr_cumulative_fraction(k * STEP_HR, storm_type) for k in range(int(round(24.0 / STEP_HR)) + 1))


def pervious_runoff_in(method: str, params: tuple[float, ...], depression_in: float, rainfall_in: float,
                       storm_type: str = "III", *, n_perv: float = 0.1, length_ft: float = 0.0,
                       slope: float = 0.01) -> float:
    """Runoff depth [in] of a pervious subarea on the NRCS 24-hour storm, its losses run as SWMM runs them.

    With ``length_ft`` (= area / width) the ponded water leaves through SWMM's nonlinear reservoir,
    q = 1.49 / n (d - ds)^(5/3) s^(1/2) / L per unit area (Vol. I ch. 3), and keeps infiltrating meanwhile;
    without it, water above the depression storage runs off at once."""
    fractions = _fractions(storm_type)
    if "HORTON" in method:
        loss = _Horton(*params, modified=method == "MODIFIED_HORTON")
    else:
        loss = _GreenAmpt(*params, modified=method == "MODIFIED_GREEN_AMPT")
    dt = STEP_HR
    alpha = 1.49 * math.sqrt(slope) / (n_perv * length_ft) * 3600.0 if length_ft > 0 else None  # ft/h per ft^(5/3)
    n = int(round(24.0 / dt))
    ponded = runoff = prev = 0.0
    for k in range(1, int(round(48.0 / dt)) + 1):
        cum = rainfall_in * fractions[k] if k <= n else rainfall_in
        rain, prev = cum - prev, cum
        if k > n and ponded <= depression_in + 1e-6:
            break
        rate = rain / dt
        if "HORTON" in method:
            f = loss.step(rate + ponded / dt, dt)
        else:
            f = loss.step(rate, ponded, dt)
        ponded = max(ponded + rain - f * dt, 0.0)
        if ponded > depression_in:
            if alpha is None:
                q = ponded - depression_in
            else:
                q = min(ponded - depression_in,
                        alpha * ((ponded - depression_in) / 12.0) ** (5.0 / 3.0) * 12.0 * dt)
            runoff += q
            ponded -= q
    return runoff


def design_depths_from_pfds(text: str, years=(2, 10, 100)) -> tuple[float, ...] | None:
    """The review's design depths from a NOAA PFDS file (0.9 × the 24-hour upper 90 % bound, § 380-11 A(2)),
    to fit the curve number on the storms the review will run; None if the file cannot be read."""
    from stormwater.engineering.rainfall import noaa_plus_design_rainfall_in, read_pfds_csv

    try:
        data = read_pfds_csv(text)
        return tuple(round(noaa_plus_design_rainfall_in(data.depth_in(duration="24-hr", ari_years=y,
                                                                       statistic="upper")), 3) for y in years)
    except (ValueError, KeyError):
        return None


def read_params(method: str, row: list[str], sid: str) -> tuple[float, ...]:
    """The [INFILTRATION] row's parameters: Horton f0 fc kd drytime [fmax]; Green-Ampt suction Ks IMD."""
    want = 5 if "HORTON" in method else 3
    vals = []
    for i in range(1, want + 1):
        if i >= len(row):
            if "HORTON" in method and i == 5:
                vals.append(0.0)
                continue
            raise InfiltrationParamError(f"swmm: subcatchment {sid}: [INFILTRATION] {method} needs {want} values")
        try:
            x = float(row[i])
        except ValueError:
            raise InfiltrationParamError(f"swmm: subcatchment {sid}: [INFILTRATION] field {i + 1} "
                                         f"{row[i]!r} is not a number") from None
        if not math.isfinite(x) or x < 0:
            raise InfiltrationParamError(f"swmm: subcatchment {sid}: [INFILTRATION] field {i + 1} must be ≥ 0")
        vals.append(x)
    if "HORTON" in method and vals[1] > vals[0]:
        raise InfiltrationParamError(f"swmm: subcatchment {sid}: Horton minimum rate {vals[1]:g} in/h is above the "
                                     f"maximum rate {vals[0]:g}")
    return tuple(vals)


def equivalent_cn(method: str, params: tuple[float, ...], depression_in: float,
                  depths_in=REFERENCE_DEPTHS_IN, **plane) -> tuple[float, list[tuple[float, float, float]]]:
    """The CN fitting the subarea's runoff [(P, runoff by the losses, runoff by the CN), ...]."""
    from stormwater.engineering.runoff import runoff_depth_in

    target = [(p, pervious_runoff_in(method, params, depression_in, p, **plane)) for p in depths_in]

    def err(cn: float) -> float:
        return sum((runoff_depth_in(p, cn) - q) ** 2 for p, q in target)

    best = min(range(30, 99), key=err)  # whole numbers, then tenths around the best
    best = min((i / 10.0 for i in range(max(300, best * 10 - 10), min(989, best * 10 + 10) + 1)), key=err)
    return best, [(p, q, runoff_depth_in(p, best)) for p, q in target]


def describe(method: str, params: tuple[float, ...]) -> str:
    if "HORTON" in method:
        f0, fc, kd, dry, fmax = params
        return (f"{method.replace('_', ' ').title()} f0 {f0:g} in/h, fc {fc:g} in/h, kd {kd:g} /h, dry time {dry:g} d"
                + (f", max. volume {fmax:g} in" if fmax > 0 else ""))
    psi, ks, imd = params
    return f"{method.replace('_', ' ').title()} suction {psi:g} in, Ks {ks:g} in/h, initial deficit {imd:g}"


def hsg_from_rate(rate_in_hr: float) -> str:
    for g, lo in HSG_MIN_RATE_IN_HR:
        if rate_in_hr >= lo:
            return g
    return "D"


def hsg_from_params(method: str, params: tuple[float, ...]) -> tuple[str, str]:
    """(group, why): from Horton's fc or Green-Ampt's Ks."""
    rate, what = (params[1], "Horton minimum rate fc") if "HORTON" in method else (params[1], "Green-Ampt Ks")
    g = hsg_from_rate(rate)
    return g, (f"HSG {g} inferred from the {what} {rate:g} in/h (minimum infiltration rates by soil group: "
               f"A ≥ 0.30, B 0.15-0.30, C 0.05-0.15, D < 0.05 in/h; Musgrave 1955, in {SRC})")


def hsg_from_cn(cn: float) -> tuple[str, str]:
    """(group, why): the group whose TR-55 Table 2-2a open space (good) CN is nearest."""
    from stormwater.engineering.runoff import curve_number_lookup

    table = {g: curve_number_lookup("open_space_good", g) for g in "ABCD"}
    g = min(table, key=lambda h: abs(table[h] - cn))
    return g, (f"HSG {g} inferred from the pervious CN {cn:g}, taking the cover as open space in good condition "
               f"(TR-55 Table 2-2a: A {table['A']}, B {table['B']}, C {table['C']}, D {table['D']}); state the "
               "group in [TAGS] (Subcatch <name> HSG-B) if it differs")
