from django.apps import AppConfig


class UtilityConfig(AppConfig):
    name = "stormwater.utility"
    label = "utility"

    def ready(self):
        # The parcel app and GIS sit below the utility (it bills parcels) and do not import it: they reach the fee
        # path through the registry they own (parcels.fees), filled here (docs/architecture.md "Layers").
        from stormwater.parcels import fees

        from . import balances, selectors

        fees.register(fees.FeeProvider(
            parcel_fee=selectors.parcel_fee, resolution_in_force=selectors.resolution_in_force,
            assess=selectors.assess, association_split=selectors.association_split,
            parcel_balance=balances.parcel_balance))
