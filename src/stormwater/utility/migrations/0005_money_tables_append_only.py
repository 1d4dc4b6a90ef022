from django.db import migrations

from stormwater.appendonly import AppendOnly


class Migration(migrations.Migration):
    """Issue 14: the money-bearing tables interest and fees are computed from are append-only at the database level
    (no code updates or deletes them; a correction is an abatement or a reversing ledger entry)."""

    dependencies = [("utility", "0004_alter_ledgerentry_kind")]
    operations = [AppendOnly("utility_rateresolution"), AppendOnly("utility_resolutionblock"),
                  AppendOnly("utility_bill"), AppendOnly("utility_installment")]
