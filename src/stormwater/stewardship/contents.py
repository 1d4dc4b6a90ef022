"""The required contents of the O&M plan and agreement, item by item (Ch. 380 § 380-14 C)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Item:
    key: str
    label: str
    citation: str


OM_ITEMS: tuple[Item, ...] = (
    Item("owners", "The name(s) of the owner(s) for all components of the system", "§ 380-14 C(1)"),
    Item("responsible", "Names and addresses of the person(s) responsible for operation and maintenance", "§ 380-14 C(2)(a)"),
    Item("financing", "Person(s) responsible for financing maintenance and emergency repairs", "§ 380-14 C(2)(b)"),
    Item("bmp_plan", "Plan drawn to scale locating all BMPs in each treatment train, catch basins, manholes/access "
                     "lids, main, devices and the discharge point", "§ 380-14 C(2)(c)"),
    Item("easement_list", "List of easements with the purpose and location of each", "§ 380-14 C(2)(d)"),
    Item("records", "Records of installation and maintenance", "§ 380-14 C(2)(e)"),
    Item("safety", "Description and delineation of public safety features", "§ 380-14 C(2)(f)"),
    Item("budget", "Estimated operations and management budget", "§ 380-14 C(2)(g)"),
    Item("schedule", "Inspection and maintenance schedule for all drainage structures, routine and nonroutine tasks "
                     "and the time period for each", "§ 380-14 C(2)(h)"),
    Item("log_form", "Operation and maintenance log form", "§ 380-14 C(2)(i)"),
    Item("agree_log", "Agreement to follow the schedule and keep the log (inspections, repairs, replacement, "
                      "disposal: material and location)", "§ 380-14 C(2)(j)"),
    Item("agree_repair", "Agreement to maintain in good condition and promptly repair and restore per the approved "
                         "plans", "§ 380-14 C(2)(k)"),
    Item("agree_certify", "Agreement to submit an annual certification of the last 12 months' work", "§ 380-14 C(2)(l)"),
    Item("easement_map", "Map and list of stormwater management easements with purpose and location", "§ 380-14 C(2)(m)"),
    Item("future_owners", "How future property owners will be notified of the system and its O&M requirement",
         "§ 380-14 C(2)(n)"),
    Item("signatures", "Signatures of the owner(s) and the person(s) responsible for operation and maintenance",
         "§ 380-14 C(2)(o)"),
)
BY_KEY = {i.key: i for i in OM_ITEMS}


def missing_items(items: dict) -> list[Item]:
    """The content items not located in the plan (no page/section reference given)."""
    return [i for i in OM_ITEMS if not str(items.get(i.key, "") or "").strip()]
