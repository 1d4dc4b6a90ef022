"""Property classes from the definitions of Chapter 295 Article IV.

- Small residential property: improved property with one, two or three dwelling units, not
  structures used primarily for nonresidential purposes (hotels, motels, retirement centers,
  nursing or assisted living homes, or "mixed-use" as designated by the Board of Assessors).
- Large residential property: apartments or condominiums with four or more dwelling units,
  rooming houses and boardinghouses (same nonresidential exclusions). Billed as nonresidential
  (the definition of nonresidential property includes large residential property).
- Nonresidential property: everything that is not small residential, incl. public buildings,
  mixed-use and the listed uses.
- Exempt: public streets, highways and rights-of-way (exemptions ¶B(1)); maintenance buildings and
  other property used for road maintenance are not exempt.

Assessor data uses the Massachusetts DOR property type classification codes (land-use codes):
1xx residential (101 single family, 102 condominium, 104 two-family, 105 three-family,
109 multiple houses, 111–112 apartments, 121 rooming/boarding houses, 13x vacant residential land),
0xx mixed use (first digit 0), 3xx commercial, 4xx industrial, 9xx exempt owners.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class PropertyClass(str, enum.Enum):
    SMALL_RESIDENTIAL = "small_residential"
    LARGE_RESIDENTIAL = "large_residential"
    NONRESIDENTIAL = "nonresidential"
    EXEMPT = "exempt"

    @property
    def label(self) -> str:
        return {
            "small_residential": "Small residential",
            "large_residential": "Large residential (billed as nonresidential)",
            "nonresidential": "Nonresidential",
            "exempt": "Exempt (public way)",
        }[self.value]


# DOR 121 rooming houses, 122 fraternity/sorority houses: large residential by definition.
# Hotels, motels, nursing homes etc. carry 3xx codes, so they fall to nonresidential already.
ROOMING_HOUSE_CODES = frozenset({"121", "122"})


@dataclass(frozen=True)
class Classification:
    property_class: PropertyClass
    reason: str


class ClassificationError(ValueError):
    """The assessor data do not decide the class (e.g. unknown dwelling units)."""


def normalize_use_code(code: str) -> str:
    code = (code or "").strip()
    digits = "".join(ch for ch in code if ch.isdigit())
    if not digits:
        raise ClassificationError(f"land-use code {code!r} is not a DOR classification code")
    return digits[:3].rjust(3, "0")


def classify(
    *, land_use_code: str, dwelling_units: int | None, public_way: bool = False, road_maintenance: bool = False
) -> Classification:
    """Class of a parcel from assessor data (Ch. 295 Art. IV definitions and exemptions ¶B(1))."""
    if public_way and not road_maintenance:
        return Classification(PropertyClass.EXEMPT,
                              "Public street, highway or right-of-way: exempt (exemptions ¶B(1)).")
    code = normalize_use_code(land_use_code)
    if public_way and road_maintenance:
        return Classification(PropertyClass.NONRESIDENTIAL,
                              "Road-maintenance property is not exempt (exemptions ¶B(1)); billed as nonresidential.")
    if code[0] == "0":
        return Classification(PropertyClass.NONRESIDENTIAL,
                              f"Land use {code}: mixed use as designated by the Assessors; nonresidential by definition.")
    if code[0] != "1":
        return Classification(PropertyClass.NONRESIDENTIAL,
                              f"Land use {code}: not residential; nonresidential by definition.")
    if code in ROOMING_HOUSE_CODES:
        return Classification(PropertyClass.LARGE_RESIDENTIAL,
                              f"Land use {code}: rooming or boarding house; large residential, billed as nonresidential.")
    if code.startswith("13") or code.startswith("14"):
        return Classification(PropertyClass.NONRESIDENTIAL,
                              f"Land use {code}: residential land without dwellings is not small residential "
                              "(not improved with 1–3 dwelling units); fee by impervious area.")
    if dwelling_units is None:
        raise ClassificationError(f"land use {code} is residential but the number of dwelling units is unknown")
    if dwelling_units < 0:
        raise ClassificationError(f"dwelling units {dwelling_units} is negative")
    if dwelling_units == 0:
        return Classification(PropertyClass.NONRESIDENTIAL,
                              f"Land use {code} with no dwelling units: not small residential; fee by impervious area.")
    if dwelling_units <= 3:
        return Classification(PropertyClass.SMALL_RESIDENTIAL,
                              f"Land use {code}, {dwelling_units} dwelling unit{'s' if dwelling_units > 1 else ''}: small residential (1–3 units).")
    return Classification(PropertyClass.LARGE_RESIDENTIAL,
                          f"Land use {code}, {dwelling_units} dwelling units: large residential (4 or more), billed as nonresidential.")
