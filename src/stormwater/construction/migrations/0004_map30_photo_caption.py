from django.db import migrations, models


class Migration(migrations.Migration):
    """Issue 30: a caption typed by the inspector under each photo of a report."""

    dependencies = [("construction", "0003_nov30_row_violation_unsafe")]

    operations = [
        migrations.AddField(
            model_name="inspectionphoto", name="caption",
            field=models.CharField(blank=True, help_text="typed by the inspector under the photo", max_length=300)),
    ]
