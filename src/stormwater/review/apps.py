from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "stormwater.review"
    label = "review"
    verbose_name = "Engineering review (Ch. 380 § 380-11)"
