from django.db import migrations

from stormwater.appendonly import AppendOnly


class Migration(migrations.Migration):
    dependencies = [("audit", "0001_initial")]
    operations = [AppendOnly("audit_auditevent")]
