"""Forms of the GIS app: upload, the field-mapping steps (built from what was uploaded), survey pickers."""
from __future__ import annotations

from datetime import date

from django import forms

from stormwater.parcels.models import ImperviousSurvey
from stormwater.townconfig import town_config
from stormwater.web.forms import FieldRefusal

from .assessor import LOT_UNITS, TARGETS
from .models import GisImport

ROLE_CHOICES = [("", "— not used —"), ("impervious", "Impervious layer"), ("right_of_way", "Right-of-way")]
ERR_NO_PARCELS = "Choose the parcel polygon layer."
ERR_NO_ID = "Give the parcel id field of the parcel layer."
ERR_NO_IMPERVIOUS = "Mark at least one layer as impervious."
ERR_DUP_NAME = "Two impervious layers are both named {name!r}: give them different names."


class MultiFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files in one field (the Django documentation's pattern)."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultiFileInput())
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        if isinstance(data, (list, tuple)):
            return [super(MultipleFileField, self).clean(d, initial) for d in data]
        return [super().clean(data, initial)]


class UploadForm(forms.Form):
    kind = forms.ChoiceField(choices=GisImport.Kind.choices, label="What is it")
    files = MultipleFileField(label="Files")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        c = town_config()  # the zip limits (issue 14) are the town's; show them where they decide
        self.fields["files"].help_text = (
            "GeoPackage, GeoJSON, zipped Shapefile or zipped File Geodatabase (.gdb folder in a .zip); for assessor "
            f"records CSV or Excel (.xlsx), or a GIS table. A zip may expand to at most {c.gis_archive_max_mb:,} MB "
            f"({c.gis_archive_max_ratio:,} times its size) and hold at most {c.gis_archive_max_members:,} files.")


def _key(src: dict) -> str:
    return f"{src['source']}|{src['layer']}"


def layers_mapping_from_post(post, sources: list[dict]) -> tuple[dict, list[FieldRefusal]]:
    """The layer import's field mapping from the form (names follow templates/gis/import_layers.html)."""
    errors: list[FieldRefusal] = []  # each names the input it is about (issue 16 "Forms": the refused form marks it)
    by_key = {_key(s): s for s in sources}
    pkey = post.get("parcels", "")
    if pkey not in by_key:
        errors.append(FieldRefusal(ERR_NO_PARCELS, "parcels"))
    id_field = post.get("id_field", "").strip()
    if not id_field:
        errors.append(FieldRefusal(ERR_NO_ID, "id_field"))
    impervious, row = [], []
    for i, s in enumerate(sources):
        role = post.get(f"role_{i}", "")
        if not role or _key(s) == pkey:
            continue
        entry = {"source": s["source"], "layer": s["layer"], "name": (post.get(f"name_{i}") or s["layer"]).strip()}
        (impervious if role == "impervious" else row).append(entry)
    if not impervious:
        errors.append(FieldRefusal(ERR_NO_IMPERVIOUS, "role_0"))
    names = [e["name"] for e in impervious]
    for n in {n for n in names if names.count(n) > 1}:
        errors.append(FieldRefusal(ERR_DUP_NAME.format(name=n),
                                   next((f"name_{i}" for i, s in enumerate(sources)
                                         if (post.get(f"name_{i}") or s["layer"]).strip() == n), None)))
    surveyed_on = post.get("surveyed_on") or str(date.today())
    try:
        date.fromisoformat(surveyed_on)
    except ValueError:
        errors.append(FieldRefusal("Survey date: use YYYY-MM-DD.", "surveyed_on"))
    mapping = {
        "parcels": {"source": by_key[pkey]["source"], "layer": by_key[pkey]["layer"]} if pkey in by_key else {},
        "id_field": id_field, "impervious": impervious, "right_of_way": row,
        "row_field": post.get("row_field", "").strip(),
        "row_values": [v.strip() for v in post.get("row_values", "").split(",") if v.strip()],
        "source_crs": post.get("source_crs", "").strip(),
        "name": post.get("name", "").strip() or f"Impervious survey {surveyed_on}", "surveyed_on": surveyed_on,
    }
    return mapping, errors


def assessor_mapping_from_post(post) -> tuple[dict, list[FieldRefusal]]:
    """The assessor import's field mapping (target → columns) from the form."""
    src = post.get("source", "")
    source, _, layer = src.partition("|")
    mapping: dict = {"source": source, "layer": layer, "_lot_unit": post.get("lot_unit", "sqft")}
    errors: list[FieldRefusal] = []
    if mapping["_lot_unit"] not in LOT_UNITS:
        errors.append(FieldRefusal("Lot size unit: ft², acres or m².", "lot_unit"))
    for t in TARGETS:
        cols = [c for c in post.getlist(f"map_{t}") if c]
        if cols:
            mapping[t] = cols
    for t in ("parcel_id", "address", "land_use_code"):
        if not mapping.get(t):
            errors.append(FieldRefusal(f"Map a column to “{TARGETS[t]}”.", f"map_{t}"))
    return mapping, errors


class ChangeForm(forms.Form):
    survey_from = forms.ModelChoiceField(ImperviousSurvey.objects.all(), label="From survey")
    survey_to = forms.ModelChoiceField(ImperviousSurvey.objects.all(), label="To survey")
