"""Property associations' instruments with their history (Ch. 295 Art. IV ¶G; issue 17).

Before: one instrument per association (``instrument``, ``recorded_on``) and a ``percent`` on each unit, replaced in
place on re-recording (which failed once a unit had an account). After: each instrument a dated, append-only row with
its shares; units keep their identity (accounts point at them). What was on file becomes each association's first
instrument, in force from 1900-01-01 (it governed every bill so far)."""
from datetime import date


import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from stormwater.appendonly import AppendOnly

ON_FILE_FROM = date(1900, 1, 1)


def instruments_from_units(apps, schema_editor):
    Association = apps.get_model("parcels", "PropertyAssociation")
    Instrument = apps.get_model("parcels", "AssociationInstrument")
    Share = apps.get_model("parcels", "InstrumentShare")
    for a in Association.objects.all():
        units = list(apps.get_model("parcels", "AssociationUnit").objects.filter(association=a))
        if not units:
            continue
        inst = Instrument.objects.create(
            association=a, reference=a.instrument or "(on file before instrument history)",
            recorded_on=a.recorded_on or ON_FILE_FROM, effective_on=ON_FILE_FROM,
            note="Carried over from the single instrument on file (migration parcels 0003).")
        Share.objects.bulk_create(Share(instrument=inst, unit=u, percent=u.percent) for u in units)
    if schema_editor.connection.vendor == "postgresql":
        # Check the deferred foreign keys now, so the column drops below meet no pending trigger events.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):

    dependencies = [
        ('parcels', '0002_parcel_water_sewer_account'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='associationunit',
            name='parcel',
            field=models.OneToOneField(blank=True, help_text="The unit's own parcel (Assessors' id)", null=True, on_delete=django.db.models.deletion.PROTECT, related_name='association_unit', to='parcels.parcel'),
        ),
        migrations.CreateModel(
            name='AssociationInstrument',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reference', models.CharField(help_text='Hampden Registry of Deeds book/page or Land Court document number', max_length=200)),
                ('recorded_on', models.DateField(help_text='Recorded at the Registry')),
                ('effective_on', models.DateField(db_index=True, help_text='Bills for periods from this day use its shares')),
                ('note', models.TextField(blank=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('association', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='instruments', to='parcels.propertyassociation')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['-effective_on', '-id'],
            },
        ),
        migrations.CreateModel(
            name='InstrumentShare',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('percent', models.DecimalField(decimal_places=4, max_digits=7)),
                ('instrument', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='shares', to='parcels.associationinstrument')),
                ('unit', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='shares', to='parcels.associationunit')),
            ],
            options={
                'ordering': ['unit__unit'],
                'constraints': [models.UniqueConstraint(fields=('instrument', 'unit'), name='unit_once_per_instrument')],
            },
        ),
        migrations.RunPython(instruments_from_units, migrations.RunPython.noop),
        migrations.RemoveField(
            model_name='associationunit',
            name='percent',
        ),
        migrations.RemoveField(
            model_name='propertyassociation',
            name='instrument',
        ),
        migrations.RemoveField(
            model_name='propertyassociation',
            name='recorded_on',
        ),
        AppendOnly("parcels_associationinstrument"),
        AppendOnly("parcels_instrumentshare"),
    ]
