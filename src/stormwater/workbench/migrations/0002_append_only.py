from django.db import migrations

from stormwater.appendonly import AppendOnly


class Migration(migrations.Migration):
    """Findings, raised items and LID answers are history: the database refuses UPDATE and DELETE."""

    dependencies = [("workbench", "0001_initial")]

    operations = [
        AppendOnly("workbench_itemfinding"),
        AppendOnly("workbench_raiseditem"),
        AppendOnly("workbench_lidchecklistanswer"),
    ]
