"""Issue 30: the Director's library of standard permit conditions, seeded with conditions the rules themselves
require of a permittee (Ch. 380 §§ 380-13 to 380-18), each naming its section. The Director edits or retires them
on /permits/standard-conditions/."""
from django.db import migrations, models

SEED = [
    ("pre-construction-meeting", 10, "Pre-construction meeting", "§ 380-16 A",
     "Before any clearing, excavation or construction, the applicant, the applicant's technical representative and "
     "the general contractor shall meet with the DPW Director or their designated representative to review the "
     "approved plans and their implementation."),
    ("plan-on-site", 20, "Approved plan kept on site", "§ 380-16 B",
     "A paper copy of the approved plan bearing the DPW Director's signature of approval shall be kept at the site "
     "while the work is in progress."),
    ("erosion-controls-first", 30, "Erosion controls before construction", "§ 380-16 C(4)(b)",
     "The erosion and sediment control measures of the approved plan shall be installed and inspected before the "
     "start of construction, and inspected thereafter at the frequencies of Section 4 of EPA's 2022 Construction "
     "General Permit."),
    ("inspection-notice", 40, "Notice of inspections", "§ 380-16 C(3)",
     "The project design engineer shall notify the DPW Director at least 24 hours before each inspection, and a "
     "written report shall be submitted to the applicant and the DPW Director after each inspection "
     "(§ 380-16 C(4)(f)[1])."),
    ("pre-bury-inspection", 50, "Pre-bury inspection", "§ 380-16 C(4)(c)",
     "No underground drainage, stormwater conveyance or infiltration structure shall be backfilled before its "
     "pre-bury inspection."),
    ("surety", 60, "Surety before land disturbance", "§ 380-17 A",
     "Before the start of land disturbance the permittee shall post the surety the DPW Director requires, in a form "
     "approved by Town Counsel and the Finance Department, of not less than the estimated construction cost of the "
     "stormwater management facility."),
    ("completion-submissions", 70, "As-builts, final O&M plan and final inspection", "§ 380-18",
     "On completion the permittee shall submit the final operation and maintenance plan (§ 380-14), as-built "
     "drawings certified by a Massachusetts registered professional engineer (§ 380-15) and the final inspection "
     "report (§ 380-16 C(4)(e)); the certificate of completion is issued on their approval."),
    ("easements-recorded", 80, "Easements recorded", "§ 380-14 D(4)",
     "Stormwater management easements shall be recorded with the Hampden County Registry of Deeds before the "
     "certificate of completion is issued."),
]


def forwards(apps, schema_editor):
    """Idempotent: a seeded row the Director has edited or retired is left as it is."""
    StandardCondition = apps.get_model("permits", "StandardCondition")
    for key, seq, title, citation, text in SEED:
        if not StandardCondition.objects.filter(key=key).exists():
            StandardCondition.objects.create(key=key, seq=seq, title=title, citation=citation, text=text)


class Migration(migrations.Migration):
    dependencies = [("permits", "0003_permit_sheets_and_signer")]
    operations = [
        migrations.CreateModel(
            name="StandardCondition",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("key", models.CharField(blank=True, db_index=True, max_length=60)),
                ("title", models.CharField(max_length=120)),
                ("text", models.TextField()),
                ("citation", models.CharField(help_text="the section of the rules it comes from, e.g. § 380-16 B",
                                              max_length=80)),
                ("active", models.BooleanField(default=True)),
                ("seq", models.PositiveSmallIntegerField(default=0, help_text="its place in the list")),
            ],
            options={"ordering": ["seq", "id"]},
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
