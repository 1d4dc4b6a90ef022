from django.apps import AppConfig


class JobsConfig(AppConfig):
    name = "stormwater.jobs"
    label = "jobs"
    verbose_name = "Background jobs"

    def ready(self):
        # Each module of kinds/ registers the job kinds it holds (registry.job_kind).
        from . import kinds  # noqa: F401
