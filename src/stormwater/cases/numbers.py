"""What a case number says (issue 16): PREFIX-YYYY-NNNN, one prefix per kind of case, each explained here and on
the page /case-numbers/. The prefix is the kind's state machine's ``number_prefix`` (cases.machines); this table
gives each one its plain-language name and the rule it comes from. A test holds the prefixes distinct and every
registered kind explained.

History: until December 2026 construction files were numbered SWC, like credit applications; they were renumbered
SWD with the same year and sequence (migration cases 0005), and the old numbers redirect (CaseNumberAlias)."""
from __future__ import annotations

from dataclasses import dataclass

from .machines import MACHINES


@dataclass(frozen=True)
class Explained:
    name: str        # what the case is, in plain words
    rule: str        # where the ordinance provides for it
    where: str       # the list it is found on (URL name), "" if none


LEGEND: dict[str, Explained] = {
    "permit": Explained("Stormwater management permit application", "Ch. 380 § 380-10", "permit_list"),
    "waiver": Explained("Waiver request within a permit application", "Ch. 380 § 380-8", "permit_list"),
    "construction": Explained("Construction oversight file of an approved permit (land disturbance: inspections, "
                              "stop-work orders, surety, as-built drawings, certificate of completion)",
                              "Ch. 380 §§ 380-15 to 380-18", "construction_list"),
    "stewardship": Explained("Stormwater system in stewardship (O&M plan, easements, annual certifications)",
                             "Ch. 380 § 380-14", "site_list"),
    "maintenance": Explained("Notice to correct a failure to maintain a stormwater system", "Ch. 380 § 380-14 E",
                             "site_list"),
    "credit": Explained("Credit application (a reduction of the stormwater fee)", "Ch. 295 Art. IV, credits",
                        "relief_home"),
    "abatement": Explained("Abatement application (a bill corrected after it was paid)",
                           "Ch. 295 Art. IV, billing ¶E", "relief_home"),
    "appeal": Explained("Appeal to the Select Board of a credit or abatement decision", "Ch. 295 Art. IV, appeals",
                        "relief_home"),
    "lien_abatement": Explained("Abatement of charges committed to the tax bill as a lien", "MGL c.83 §16E; "
                                "Ch. 295 Art. IV, appeals ¶B", "relief_home"),
}
RENUMBERED = [("SWC", "SWD", "construction", "December 2026")]


def legend() -> list[dict]:
    """Every kind of case with its prefix, in prefix order: [{prefix, kind, name, rule, where, example}]."""
    rows = []
    for kind, m in MACHINES.items():
        e = LEGEND.get(kind, Explained(kind.replace("_", " ").capitalize(), "", ""))
        rows.append({"prefix": m.number_prefix, "kind": kind, "name": e.name, "rule": e.rule, "where": e.where,
                     "example": f"{m.number_prefix}-2026-0001"})
    return sorted(rows, key=lambda r: r["prefix"])
