from django.apps import AppConfig


class WorkbenchConfig(AppConfig):
    name = "stormwater.workbench"
    label = "workbench"
    verbose_name = "Reviewer's workbench (Ch. 380 §§ 380-11 B–C, 380-12, 380-13)"
