from django.apps import AppConfig


class WorkqueueConfig(AppConfig):
    name = "stormwater.workqueue"
    label = "workqueue"
    verbose_name = "Work queue (issue 16): everything with a clock, for each role"

    def ready(self):
        # Each app contributes its clocks through a ``workqueue.py`` module that registers providers
        # (stormwater.workqueue.registry.register), found the way Django's admin finds ``admin.py``.
        from django.utils.module_loading import autodiscover_modules

        autodiscover_modules("workqueue")
