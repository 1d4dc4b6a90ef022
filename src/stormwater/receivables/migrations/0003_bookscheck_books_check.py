from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("receivables", "0002_payonline_onlinepayment"),
    ]

    operations = [
        migrations.CreateModel(
            name="BooksCheck",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("as_of", models.DateField()),
                ("checked_at", models.DateTimeField(auto_now_add=True)),
                ("source", models.CharField(help_text="daily (the sweep) or command", max_length=20)),
                ("job_id", models.PositiveIntegerField(blank=True, help_text="the daily sweep's job that ran it",
                                                       null=True)),
                ("clean", models.BooleanField()),
                ("breaks", models.JSONField(blank=True, default=list)),
                ("counts", models.JSONField(blank=True, default=dict)),
                ("trial_balance", models.JSONField(blank=True, default=list)),
            ],
            options={"ordering": ["-checked_at", "-id"]},
        ),
    ]
