from pathlib import Path

from django import forms

from stormwater.web.filetypes import HEAD_BYTES, PFDS_CSV, SWMM_INP
from stormwater.cases.services import DocumentError, upload_type
from stormwater.imports.pipeline import sniff

from .services import MAX_INPUT_BYTES


def _read_upload(f, *, what: str = "a JSON or YAML plan file", latin1: bool = False, filetype=None) -> str:
    """The upload's text. With ``filetype`` (web.filetypes) its name's extension and its content must agree."""
    if f.size > MAX_INPUT_BYTES:
        raise forms.ValidationError("The file is larger than 2 MB.")
    raw = f.read()
    if filetype is not None:
        try:
            upload_type(f.name, raw[:HEAD_BYTES], lambda: raw, (filetype,))
        except DocumentError as e:
            raise forms.ValidationError(str(e)) from None
    binary = sniff(raw[:8192])  # the pipeline's reading rule (issue 20): a binary file is named for what it is
    if binary:
        raise forms.ValidationError(f"{Path(f.name).name}: this is {binary}, not a text file ({what}).")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        if latin1:  # NOAA PFDS files are ISO-8859-1 (the degree sign)
            return raw.decode("latin-1")
        raise forms.ValidationError(f"The file is not UTF-8 text ({what}).") from None


class SwmmImportForm(forms.Form):
    post_file = forms.FileField(label="Post-development SWMM 5 model (.inp)",
                                help_text="US units (CFS) and curve-number infiltration.")
    pre_file = forms.FileField(required=False, label="Pre-development SWMM 5 model (.inp)",
                               help_text="Same outfall names as the post-development model. Without it you add the "
                                         "pre-development subcatchments in the form.")
    pfds_file = forms.FileField(required=False, label="NOAA Atlas 14 PFDS file for the site (upper bound CSV)",
                                help_text="The design storms are 0.9 × its 24-hour upper bounds (§ 380-11 A(2)).")
    disturbance_acres = forms.DecimalField(required=False, min_value=0, max_digits=10, decimal_places=3,
                                           label="Land disturbed (acres)",
                                           help_text="Default: the modelled post-development area.")
    title = forms.CharField(required=False, max_length=300)
    case_number = forms.CharField(required=False, max_length=30, label="Permit case number (optional)")

    def clean_post_file(self):
        return _read_upload(self.cleaned_data["post_file"], what="a SWMM .inp file", latin1=True, filetype=SWMM_INP)

    def clean_pre_file(self):
        f = self.cleaned_data.get("pre_file")
        return _read_upload(f, what="a SWMM .inp file", latin1=True, filetype=SWMM_INP) if f else ""

    def clean_pfds_file(self):
        f = self.cleaned_data.get("pfds_file")
        return _read_upload(f, what="a PFDS CSV", latin1=True, filetype=PFDS_CSV) if f else ""


class ReviewForm(forms.Form):
    plan_file = forms.FileField(required=False, label="Plan file (JSON or YAML)",
                                help_text="Schema longmeadow-swmp/1; see docs/examples/commercial-5-acre.yaml.")
    plan_text = forms.CharField(required=False, label="…or paste the plan",
                                widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false"}))
    title = forms.CharField(required=False, max_length=300, help_text="Defaults to the project name in the plan.")
    case_number = forms.CharField(required=False, max_length=30, label="Permit case number (optional)")

    def clean(self):
        data = super().clean()
        f = data.get("plan_file")
        text = data.get("plan_text") or ""
        if f and text.strip():
            self.add_error("plan_file", "Upload a file or paste the plan, not both.")
        elif f:
            data["input_text"] = _read_upload(f)
            data["input_name"] = f.name
        elif text.strip():
            data["input_text"] = text
            data["input_name"] = ""
        elif "plan_file" not in self.errors:
            self.add_error("plan_file", "Upload a plan file or paste it.")
        return data


class BmpTableForm(forms.Form):
    name = forms.CharField(max_length=200, help_text="Shown on every result, e.g. “MS4 App. F Att. 3 (TP)”. "
                                                     "Loading a name again makes its next version.")
    source_citation = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}),
                                      help_text="Document, table, page and date the numbers come from.")
    csv_file = forms.FileField(label="CSV of points",
                               help_text="Columns bmp, pollutant, infiltration_rate_in_hr (blank if not "
                                         "rate-dependent), storage_depth_in, removal (fraction or %).")
    provisional = forms.BooleanField(required=False, help_text="Flag every result from this table provisional.")

    def clean_csv_file(self):
        return _read_upload(self.cleaned_data["csv_file"])


class RetireForm(forms.Form):
    reason = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
