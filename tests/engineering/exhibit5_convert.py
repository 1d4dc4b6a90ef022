"""Convert TR-55 Exhibit 5 (tabular hydrograph unit discharges, csm/in) from the PDF text to CSV.

Run from the repository root::

    .venv/bin/python tests/engineering/exhibit5_convert.py src/stormwater/engineering/data

The source is ``../shared/reference/tr55/TR-55_Urban_Hydrology_for_Small_Watersheds_1986.pdftotext-layout.txt``
(``pdftotext -layout`` of USDA NRCS TR-55, 2nd ed., June 1986, Exhibits 5-I, 5-IA, 5-II, 5-III,
pp. 5-19 to 5-58). ``test_exhibit5.py`` re-runs this conversion and checks the shipped CSVs are identical.
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

SOURCE = (Path(__file__).resolve().parents[2] / ".." / "shared" / "reference" / "tr55"
          / "TR-55_Urban_Hydrology_for_Small_Watersheds_1986.pdftotext-layout.txt")

_II_III = ("11.0", "11.3", "11.6", "11.9", "12.0", "12.1", "12.2", "12.3", "12.4", "12.5", "12.6", "12.7",
           "12.8", "13.0", "13.2", "13.4", "13.6", "13.8", "14.0", "14.3", "14.6", "15.0", "15.5", "16.0",
           "16.5", "17.0", "17.5", "18.0", "19.0", "20.0", "22.0", "26.0")
# Hydrograph times (hr) of the 32 columns, per exhibit, as printed in each sheet's two header lines.
HYDROGRAPH_TIMES_HR = {
    "I": ("9.0", "9.3", "9.6", "9.9", "10.0", "10.1", "10.2", "10.3", "10.4", "10.5", "10.6", "10.7", "10.8",
          "11.0", "11.2", "11.4", "11.6", "11.8", "12.0", "12.3", "12.6", "13.0", "13.5", "14.0", "14.5",
          "15.0", "15.5", "16.0", "17.0", "18.0", "20.0", "24.0"),
    "IA": ("7.0", "7.3", "7.6", "7.9", "8.0", "8.1", "8.2", "8.3", "8.4", "8.5", "8.6", "8.7", "8.8", "9.0",
           "9.2", "9.4", "9.6", "9.8", "10.0", "10.3", "10.6", "11.0", "11.5", "12.0", "12.5", "13.0", "13.5",
           "14.0", "15.0", "16.0", "18.0", "22.0"),
    "II": _II_III,
    "III": _II_III,
}
NCOL = 32
TC_HR = ("0.1", "0.2", "0.3", "0.4", "0.5", "0.75", "1.0", "1.25", "1.5", "2.0")
TT_HR = ("0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.75", "1.0", "1.5", "2.0", "2.5", "3.0")
IA_P = ("0.10", "0.30", "0.50")
TYPES = ("I", "IA", "II", "III")

_TITLE = re.compile(r"Exhibit 5-(IA|III|II|I):\s+Tabular hydrograph")
_TC = re.compile(r"TC\s*=\s*([0-9.]+)\s*HR")
_IAP = re.compile(r"IA/P\s*=\s*([0-9.]+)")
_LABEL = re.compile(r"^[0-9.,s]{2,4}$")
# Row labels the OCR misread ("," for "." and "s" for "5" are mapped generally); the row's place
# in its block (rows always run 0.0, .10, ..., 3.0) decides its travel time.
_LABEL_FIXES = {(3462, "2.0"): "2.5", (4700, "3.3"): "3.0", (5000, ".0"): "0.0", (5719, "1.0"): "3.0"}
_TT = {"0.0": "0.0", ".10": "0.1", ".20": "0.2", ".30": "0.3", ".40": "0.4", ".50": "0.5", ".75": "0.75",
       "1.0": "1.0", "1.5": "1.5", "2.0": "2.0", "2.5": "2.5", "3.0": "3.0"}


# The PDF's text layer is OCR: a few glyphs were misread. Unambiguous letter-for-digit slips are
# mapped character by character; the rest are fixed token by token, each with the reason.
_GLYPHS = str.maketrans({"l": "1", "o": "0", "O": "0"})
_TOKEN_FIXES = {
    # (source line, token as read): (value, why)
    (3297, "4&"): ("48", "type I Tc 1.25 Ia/P 0.50 Tt 0.5: the row is 48 on both sides (plateau)"),
    (3463, "n"): ("0", "type I Tc 1.5 Ia/P 0.50 Tt 3.0: every other value before 13.5 h is 0"),
    (3615, "tS"): ("15", "type IA Tc 0.1 Ia/P 0.50 Tt 0.5: between 10 and 20 on a rising limb; 't'/'S' are '1'/'5'"),
    (5555, "0."): ("0", "type III Tc 1.0 Ia/P 0.30 Tt 0.3: stray period after a zero in a row of zeros"),
}


def _clean(n: int, tok: str) -> str:
    if (n, tok) in _TOKEN_FIXES:
        return _TOKEN_FIXES[(n, tok)][0]
    return tok.translate(_GLYPHS)


def convert(text: str) -> list[tuple[str, str, str, str, list[int]]]:
    rows = []
    rtype = tc = iap = None
    problems = []
    header: list[str] = []
    for n, line in enumerate(text.split("\n"), 1):  # not splitlines(): form feeds would shift line numbers
        if rtype and line.split()[:1] in (["TIME"], ["(hr)"]) or line.lstrip().startswith("(hr)"):
            header += line.replace("TIME", "").replace("(hr)", " ").translate(_GLYPHS).split()
            if len(header) == NCOL:
                if sorted(header, key=float) != list(HYDROGRAPH_TIMES_HR[rtype]):
                    problems.append(f"line {n}: hydrograph times {header} differ from type {rtype}'s")
                header = []
            continue
        m = _TITLE.search(line)
        if m:
            rtype = m.group(1)
        if "RAINFALL TYPE" in line:  # the sheet footer closes a sheet; the last one ends the exhibit
            if "TYPE = III" in line and "TC = 2.0 HR" in line:
                break
            continue
        m = _TC.search(line)
        if m and rtype:
            tc = m.group(1)
        m = _IAP.search(line)
        if m and rtype:
            iap = m.group(1)
        if m and rtype:
            seen = 0  # a new Ia/P block: its rows come in TT_HR order
        toks = line.split()
        if rtype and toks and _LABEL.match(toks[0]) and len(toks) == NCOL + 1:
            label = toks[0].replace(",", ".").replace("s", "5")
            want = TT_HR[seen] if seen < len(TT_HR) else None
            if _TT.get(label) != want and (n, toks[0]) not in _LABEL_FIXES:
                problems.append(f"line {n}: row label {toks[0]!r} where {want!r} is expected")
            vals = [_clean(n, t) for t in toks[1:]]
            if not all(v.isdigit() for v in vals):
                problems.append(f"line {n}: unreadable values: {line.strip()}")
                seen += 1
                continue
            rows.append((rtype, tc, iap, want, [int(v) for v in vals]))
            seen += 1
    if problems:
        raise SystemExit("unparsed rows:\n" + "\n".join(problems))
    return rows


def render(rows, rtype: str) -> str:
    """The CSV text of one exhibit (5-I, 5-IA, 5-II or 5-III)."""
    order = {(tc, i, tt): k for k, (tc, i, tt) in enumerate((tc, i, tt) for tc in TC_HR for i in IA_P for tt in TT_HR)}
    lines = [
        f"# TR-55 Exhibit 5-{rtype}: tabular hydrograph unit discharges qt (csm/in) for the type {rtype} rainfall "
        "distribution, by Tc (hr), Ia/P and travel time Tt (hr); columns are hydrograph times (hr).",
        "# Source: USDA NRCS, Urban Hydrology for Small Watersheds, TR-55, 2nd ed., June 1986 (210-VI-TR-55), "
        "Chapter 5, Exhibit 5-" + rtype + " (10 sheets).",
        "# Converted from the pdftotext -layout text of the PDF by tests/engineering/exhibit5_convert.py: every row "
        "has exactly 32 values, rows checked to come in the printed order; OCR glyph slips fixed as listed there.",
        "# Values are as printed, including a few that break a hydrograph's rise-then-fall shape (e.g. 5-I Tc 0.3 "
        "Ia/P 0.30 Tt 0.3 at 11.2 h = 34; 5-III Tc 0.3 Ia/P 0.30 Tt 0.3 at 14.0 h = 31): checked against the page "
        "images, the publication itself prints them; see docs/engineering.md.",
        "tc_hr,ia_over_p,tt_hr," + ",".join(HYDROGRAPH_TIMES_HR[rtype]),
    ]
    for r in sorted((r for r in rows if r[0] == rtype), key=lambda r: order[(r[1], r[2], r[3])]):
        lines.append(",".join([r[1], r[2], r[3]] + [str(v) for v in r[4]]))
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    rows = convert(SOURCE.read_text(encoding="utf-8", errors="replace"))
    keys = [(r[0], r[1], r[2], r[3]) for r in rows]
    expected = [(t, tc, i, tt) for t in TYPES for tc in TC_HR for i in IA_P for tt in TT_HR]
    if sorted(keys) != sorted(expected) or len(keys) != len(set(keys)):
        missing = sorted(set(expected) - set(keys))
        raise SystemExit(f"{len(keys)} rows parsed, {len(expected)} expected; missing {missing[:10]}")
    out = Path(argv[0]) if argv else None
    for t in TYPES:
        text = render(rows, t)
        if out:
            (out / f"tr55_exhibit5_{t.lower()}_tabular_hydrograph.csv").write_text(text)
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
