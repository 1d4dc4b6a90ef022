"""The database cache's table (settings.CACHES, issue 27): the throttles' counts, shared by every server worker.

Made here rather than by a separate ``createcachetable`` so that ``stormwater migrate`` — the one step of an install
and of every upgrade (docs/deploy.md), run as the owner role on PostgreSQL — makes it, and the runtime role is then
granted it with the other ordinary tables (appendonly.grant_runtime_role)."""
from django.core.management import call_command
from django.db import migrations


def create(apps, schema_editor):
    # createcachetable makes the table of every database cache in settings.CACHES, if missing (idempotent).
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


def drop(apps, schema_editor):
    from django.conf import settings

    schema_editor.execute(f"DROP TABLE IF EXISTS {schema_editor.quote_name(settings.CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("web", "0001_submit_tokens")]
    operations = [migrations.RunPython(create, drop)]
