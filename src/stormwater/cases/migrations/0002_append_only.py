from django.db import migrations

from stormwater.appendonly import AppendOnly


class Migration(migrations.Migration):
    dependencies = [("cases", "0001_initial")]
    operations = [AppendOnly("cases_caseevent"), AppendOnly("cases_clockextension")]
