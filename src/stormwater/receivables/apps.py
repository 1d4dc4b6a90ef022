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
        # What the parcels list shows, filters, sorts and totals for a parcel is "Due now" (issue 25: one figure
        # everywhere, interest to the day included: ``owed.DueNow``), not the posted ledger the utility registers
        # in ``parcels.fees`` (it cannot compute interest to the day without collections' positions SQL).
        from dataclasses import replace

        from stormwater.parcels import fees

        from .owed import parcel_due_now, parcel_due_now_total

        fees.register(replace(fees.fee_provider(), parcel_balance=parcel_due_now,
                              parcel_balance_total=parcel_due_now_total))
