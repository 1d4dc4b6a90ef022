from __future__ import annotations

from django import forms

from stormwater.rules.applicability import EXEMPTIONS
from stormwater.web.forms import CHOOSE, form_auto_id

from .decision import ERR_CONDITIONS_KIND, STANDARDS
from .models import ConsultantAppeal, DecisionKind, ProjectType, StandardCondition
from .standard_conditions import standard_conditions_active, standard_condition_texts

# The longest extension of a clock a form or the API accepts (§ 380-10 I(2) and K set no limit; more than ten
# years is a typo, and a date past year 9999 cannot be computed; issue 15: days = 10^20 was a 500).
MAX_EXTENSION_DAYS = 3650

EXEMPTION_CHOICES = [("", "— none claimed —")] + [(k, f"{k}. {e.title} ({e.citation})") for k, e in EXEMPTIONS.items()]
# One checkbox per (exemption, condition): D and E share a condition key but are separate questions.
CONDITION_FIELDS = [(k, c.key) for k, e in EXEMPTIONS.items() for c in e.conditions]


class ApplicabilityForm(forms.Form):
    """§ 380-4 and § 380-5: the applicant's first question."""

    disturbance = forms.DecimalField(min_value=0, max_digits=14, decimal_places=3, label="Land disturbance")
    unit = forms.ChoiceField(choices=[("sqft", "ft²"), ("acres", "acres")], initial="sqft",
                             widget=forms.Select(attrs={"aria-label": "Unit: square feet or acres"}))
    on = forms.DateField(label="When the work is to start", widget=forms.DateInput(attrs={"type": "date"}))
    common_plan = forms.BooleanField(required=False, label="Part of a larger common plan of development or sale")
    common_plan_total_sqft = forms.DecimalField(required=False, min_value=0, label="The common plan's total "
                                                                                   "disturbance (ft²), if known")
    discharges_to_ms4 = forms.BooleanField(required=False, initial=True,
                                           label="Discharges directly or indirectly to the municipal storm drains")
    exemption = forms.ChoiceField(choices=EXEMPTION_CHOICES, required=False, label="Exemption claimed",
                                  help_text="Work the rules exempt from the permit. Ch. 380 § 380-5.")
    other_work = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3}),
                                 label="Other work by the same owner or on adjacent parcels, one per line: "
                                       "description; ft²; date (YYYY-MM-DD); same owner yes/no; adjacent yes/no")

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        for letter, key in CONDITION_FIELDS:
            self.fields[f"c_{letter}_{key}"] = forms.BooleanField(required=False)


class ApplicationForm(forms.Form):
    owner_name = forms.CharField(max_length=200, label="Permittee: the owner of the site",
                                 help_text="The permit is issued to the owner; an agent may file for them. "
                                           "Ch. 380 § 380-10 B(1).")
    owner_address = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Owner's mailing address")
    agent_name = forms.CharField(max_length=200, required=False, label="Agent filing for the owner (if any)")
    site_address = forms.CharField(max_length=300)
    parcel_ids = forms.CharField(max_length=300, required=False, label="Assessors' parcel ids, comma-separated")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Project description")
    project_type = forms.ChoiceField(choices=ProjectType.choices)
    disturbance_sqft = forms.DecimalField(min_value=0, max_digits=14, decimal_places=2, label="Land disturbance (ft²)")
    common_plan = forms.BooleanField(required=False, label="Part of a larger common plan of development or sale")
    other_work = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}),
                                 label="Other work by the owner or on adjacent parcels within two years",
                                 help_text="One per line: description; ft²; date (YYYY-MM-DD); same owner yes/no; "
                                           "adjacent yes/no. Work split into parts is one project. Ch. 380 § 380-4 A.")
    wetlands_jurisdiction = forms.BooleanField(required=False, label="Subject to the Wetlands Protection Act "
                                                                     "(Conservation Commission)")
    planning_board = forms.BooleanField(required=False, label="Also before the Planning Board")
    other_board_hearing = forms.CharField(max_length=200, required=False,
                                          label="Board holding a public hearing on the project",
                                          help_text="If another board holds a hearing, the abutter notice is waived. "
                                                    "Ch. 380 § 380-10 H(3).")
    autocad_plans = forms.BooleanField(required=False, label="Plans drawn in AutoCAD",
                                       help_text="Then the drawing files are part of the application. "
                                                 "Ch. 380 § 380-10 B(2).")


ERR_STANDARD_NOT_ADDED = ("Ticked standard conditions are not in the conditions yet: press “Add the ticked conditions”, "
                          "read and edit them there, then record the decision (or untick them).")


class DecisionForm(forms.Form):
    """The Director's written action (§ 380-10 I(1)). Issue 16: no kind is preselected on a legal act, and
    conditions typed with a kind that takes none are refused here (and by the service), never dropped."""

    kind = forms.ChoiceField(choices=[CHOOSE] + [(k, v) for k, v in DecisionKind.choices if not k.startswith("deny")],
                             label="Decision")
    findings = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), label="Findings")
    standards = forms.MultipleChoiceField(choices=list(STANDARDS.items()), widget=forms.CheckboxSelectMultiple,
                                          label="Standards the decision rests on (§ 380-11)")
    conditions = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}),
                                 label="Conditions, one per line",
                                 help_text="Only with “Approval with conditions, modifications or restrictions”.")
    # Issue 30: the Director's library; ticked ones are copied into the conditions above (a button of their own)
    standard = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple,
                                         label="Standard conditions (§ 380-10 I(1)(b))",
                                         help_text="Tick, then “Add the ticked conditions”: their text goes into the "
                                                   "conditions above, to be edited there before recording.")
    order_of_conditions = forms.CharField(required=False, max_length=200,
                                          label="Order of Conditions serving as the permit (§ 380-9 A), if any")
    sheets = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 4}),
                             label="Approved plan sheets, one per line: number; title; revision; YYYY-MM-DD")

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", form_auto_id("decide"))
        super().__init__(*args, **kwargs)
        self.fields["standard"].choices = [(str(c.pk), f"{c.title} ({c.citation}): {c.text}")
                                           for c in standard_conditions_active()]

    def clean(self):
        d = super().clean()
        kind, conditions = d.get("kind"), (d.get("conditions") or "").strip()
        if kind and conditions and kind != DecisionKind.APPROVE_WITH_CONDITIONS:
            self.add_error("conditions", ERR_CONDITIONS_KIND.format(kind=DecisionKind(kind).label.lower()))
        typed = {" ".join(x.split()) for x in conditions.splitlines()}
        if any(" ".join(t.split()) not in typed for t in standard_condition_texts(d.get("standard") or [])):
            # issue 30: a ticked condition is never slipped into a decision unseen, nor dropped
            self.add_error("standard", ERR_STANDARD_NOT_ADDED)
        return d


class ConsultantForm(forms.Form):
    name = forms.CharField(max_length=200)
    firm = forms.CharField(max_length=200, required=False)
    degree = forms.CharField(max_length=200, required=False)
    years_of_practice = forms.IntegerField(min_value=0, initial=0)
    services = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}))
    fee = forms.DecimalField(min_value=0, max_digits=14, decimal_places=2)
    notice_on = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}), label="Notice mailed/delivered on")
    username = forms.CharField(required=False, max_length=150, label="Consultant's sign-in (optional)")


class AppealForm(forms.Form):
    """The applicant's appeal is received today (the server's date); the Select Board's clerk recording a paper
    appeal gives the day it arrived (``paper=True``; cases.filing)."""

    received_on = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}),
                                  label="Received on (a paper appeal; empty: today)")
    ground = forms.ChoiceField(choices=ConsultantAppeal.Ground.choices)
    statement = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, paper: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if not paper:
            del self.fields["received_on"]


class RuleHearingForm(forms.Form):
    title = forms.CharField(max_length=300)
    summary = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}))
    newspaper = forms.CharField(max_length=200)
    advertised_on = forms.DateField(widget=forms.DateInput(attrs={"type": "date"}))
    hearing_at = forms.DateTimeField(widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    location = forms.CharField(max_length=300)


class StandardConditionForm(forms.ModelForm):
    """A standard condition of the Director's library (issue 30): the section it comes from is required."""

    class Meta:
        model = StandardCondition
        fields = ["title", "citation", "text", "seq", "active"]
        labels = {"citation": "Section of the rules it comes from", "text": "Text, as the permit states it",
                  "seq": "Place in the list", "active": "Offered on the decision form"}
        widgets = {"text": forms.Textarea(attrs={"rows": 3})}
