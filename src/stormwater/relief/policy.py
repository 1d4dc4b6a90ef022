"""The demo credit policy: one credit per kind the ordinance names (credits ¶A).

DEMO VALUES. Longmeadow's credit policy is proposed by the Town Manager and approved by the Select
Board; until it is entered, these values let the system run. They are labelled as demo values
wherever they are shown. Amounts are modelled on common Massachusetts practice (credits for
retention BMPs up to half the fee; hardship credits for small residential owners).
"""
from __future__ import annotations

from decimal import Decimal

DEMO_POLICY = {
    "label": "Stormwater credit policy (demo values)",
    "max_combined_percent": Decimal("50"),
}

DEMO_TYPES: list[dict] = [
    {"code": "BMP", "category": "improvements", "name": "Stormwater improvements (on-site BMPs)",
     "eligibility": "Structural BMPs on the property (infiltration, detention, rain gardens, porous pavement) that "
                    "retain or treat runoff from impervious area, built to the Town's design and performance "
                    "standards and maintained under an O&M plan.",
     "property_classes": [], "amount_kind": "percent", "amount": Decimal("25"), "max_percent": Decimal("50"),
     "stackable": True, "duration_months": None, "recertify_months": 36,
     "required_documents": [["bmp_plan", "Site plan of the BMPs and the area they serve, stamped by a PE"],
                            ["om_plan", "Operation and maintenance plan"],
                            ["inspection", "Latest inspection report"]]},
    {"code": "PROTECTED", "category": "protected_land", "name": "Undeveloped land with protected status",
     "eligibility": "Land under a recorded conservation restriction, agricultural preservation restriction or "
                    "Chapter 61/61A/61B classification, left in its natural state.",
     "property_classes": [], "amount_kind": "percent", "amount": Decimal("20"), "max_percent": Decimal("20"),
     "stackable": True, "duration_months": None, "recertify_months": 60,
     "required_documents": [["restriction", "Recorded restriction or classification (Registry of Deeds)"]]},
    {"code": "MULTI", "category": "multiple_undeveloped", "name": "Multiple undeveloped parcels, single owner",
     "eligibility": "Two or more contiguous undeveloped parcels under one owner, billed as separate parcels.",
     "property_classes": [], "amount_kind": "percent", "amount": Decimal("10"), "max_percent": Decimal("10"),
     "stackable": True, "duration_months": None, "recertify_months": 36,
     "required_documents": [["deeds", "Deeds of each parcel"]]},
    {"code": "SENIOR", "category": "senior", "name": "Senior owner-occupant",
     "eligibility": "Owner-occupant aged 65 or more of small residential property.",
     "property_classes": ["small_residential"], "amount_kind": "fixed", "amount": Decimal("15.00"),
     "max_percent": Decimal("30"), "stackable": False, "duration_months": 12, "recertify_months": 12,
     "required_documents": [["age", "Proof of age"], ["residence", "Proof of residence at the property"]]},
    {"code": "LOWINC", "category": "low_income", "name": "Low-income owner-occupant",
     "eligibility": "Owner-occupant of small residential property whose household income qualifies for a "
                    "Massachusetts fuel or utility assistance program.",
     "property_classes": ["small_residential"], "amount_kind": "percent", "amount": Decimal("30"),
     "max_percent": Decimal("30"), "stackable": False, "duration_months": 12, "recertify_months": 12,
     "required_documents": [["income", "Proof of income eligibility"], ["residence", "Proof of residence"]]},
    {"code": "EDU", "category": "education", "name": "Stormwater education program",
     "eligibility": "A school or organization on the property running a stormwater education program approved "
                    "by the Department.",
     "property_classes": ["nonresidential", "large_residential"], "amount_kind": "percent", "amount": Decimal("5"),
     "max_percent": Decimal("5"), "stackable": True, "duration_months": 12, "recertify_months": 12,
     "required_documents": [["program", "Program description"], ["attendance", "Attendance records"]]},
    {"code": "OTHER", "category": "other", "name": "Other (Director's determination)",
     "eligibility": "Any other measure the Director finds reduces the property's burden on the stormwater system.",
     "property_classes": [], "amount_kind": "percent", "amount": Decimal("10"), "max_percent": Decimal("10"),
     "stackable": True, "duration_months": None, "recertify_months": 36,
     "required_documents": [["support", "Supporting documentation"]]},
]
