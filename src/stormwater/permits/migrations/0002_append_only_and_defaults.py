from datetime import date
from decimal import Decimal

from django.db import migrations

from stormwater.appendonly import AppendOnly

# § 380-10 F: the Town Clerk is notified of receipt; one electronic copy of the package goes to the
# Director of Planning and Community Development, the Building Commissioner, the Conservation
# Commission and/or Planning Board as appropriate. Email addresses are entered by staff (none shipped).
RECIPIENTS = [
    ("town_clerk", "Town Clerk"),
    ("planning", "Director of Planning and Community Development"),
    ("building", "Building Commissioner"),
    ("concom", "Conservation Commission"),
    ("planning_board", "Planning Board"),
]


def forwards(apps, schema_editor):
    NoticeRecipient = apps.get_model("permits", "NoticeRecipient")
    for key, name in RECIPIENTS:
        NoticeRecipient.objects.get_or_create(key=key, defaults={"name": name})
    PermitFeeSchedule = apps.get_model("permits", "PermitFeeSchedule")
    if not PermitFeeSchedule.objects.exists():
        # Demo values until the Director adopts a schedule (§ 380-10 G(1) sets no amounts); labelled as demo.
        PermitFeeSchedule.objects.create(
            label="Demo fee schedule (not adopted)", effective_from=date(2023, 11, 28),
            application_fee=Decimal("500.00"), inspection_fee_per_acre=Decimal("250.00"),
            technical_review_fee_per_acre=Decimal("500.00"), is_demo=True)


class Migration(migrations.Migration):
    dependencies = [("permits", "0001_initial")]
    operations = [
        AppendOnly("permits_accountentry"),
        migrations.RunPython(forwards, migrations.RunPython.noop),
    ]
