from django.db import migrations

from stormwater.appendonly import AppendOnly


class Migration(migrations.Migration):
    dependencies = [("utility", "0001_initial")]
    operations = [AppendOnly("utility_ledgerentry")]
