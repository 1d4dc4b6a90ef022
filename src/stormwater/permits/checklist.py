"""The application package (Ch. 380 § 380-10 B) as checklist items, each with its citation."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    key: str
    label: str
    citation: str
    by_upload: bool = True   # satisfied by uploading a document; otherwise staff confirm it


ITEMS: tuple[Item, ...] = (
    Item("application_form", "Completed application form with the original signatures of all owners",
         "§ 380-10 B(1)(a)"),
    Item("abutter_list", "List of immediate abutters and addresses, certified by the Assessor's office",
         "§ 380-10 B(1)(b)"),
    Item("abutter_notice_proof", "Proof of notification of abutters by certified mail",
         "§ 380-10 B(1)(c), H(1)"),
    Item("swmp", "Stormwater management plan and project description (electronic copy)", "§ 380-10 B(1)(d)[1], § 380-12"),
    Item("escp", "Erosion and sediment control plan, or the EPA 2022 CGP SWPPP (electronic copy)",
         "§ 380-10 B(1)(d)[2], § 380-13 A(2)"),
    Item("om_plan", "Draft operation and maintenance plan and agreement (electronic copy)",
         "§ 380-10 B(1)(d)[3], § 380-14 A(2)"),
    Item("paper_copies", "Three paper copies of the plans received", "§ 380-10 B(1)(d)", by_upload=False),
    Item("autocad", "AutoCAD (DWG) files of plans drawn in AutoCAD", "§ 380-10 B(2)"),
    Item("fees", "Payment of the application and review fees", "§ 380-10 B(1)(e), G(1)", by_upload=False),
)
BY_KEY = {i.key: i for i in ITEMS}

# Other document tags a permit file keeps (not checklist items).
OTHER_TAGS = {
    "info_response": "Response to an information request (§ 380-10 E)",
    "consultant_report": "Outside consultant's report (§ 380-10 G(2)(b))",
    "consultant_appeal": "Written appeal of the consultant selection (§ 380-10 G(2)(e))",
    "successor_documentation": "Documentation of a successor in interest (§ 380-10 G(2)(f))",
    "waiver_request": "Waiver request and supporting documentation (§ 380-8 B)",
    "project_change": "Notice of a project change (§ 380-10 J)",
    "order_of_conditions": "Conservation Commission Order of Conditions (§ 380-9 A)",
    "plan_data": "Stormwater management plan data file (YAML or JSON, for the engineering review)",
    "other": "Other document",
}


def tag_label(tag: str) -> str:
    if tag in BY_KEY:
        return BY_KEY[tag].label
    return OTHER_TAGS.get(tag, tag.replace("_", " ").capitalize())
