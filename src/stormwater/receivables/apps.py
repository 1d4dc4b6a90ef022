from django.apps import AppConfig


class ReceivablesConfig(AppConfig):
    name = "stormwater.receivables"
    label = "receivables"

    def ready(self):
        # The bill run (utility) must not post into closed books; the utility sits below collections and does not
        # import them: it asks through the registry it owns (utility.books), filled here.
        from stormwater.utility import books

        from .selectors import closed_through

        books.register_closed_through(closed_through)
