"""Import a BMP / structure inventory from a folder of GIS files into a site (new site if --site is absent).

The whole folder is read and checked first (stormwater.imports pipeline, issue 20): a missing or empty folder or an
unreadable layer is an error naming it, and no site is opened; opening the site and importing are one transaction.
Importing the same inventory into the same site again adds nothing (BMPs are matched by their source id)."""
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from stormwater.stewardship.inventory import read_inventory
from stormwater.stewardship.models import Site
from stormwater.stewardship.services import inventory_import, inventory_site_of, site_open


class Command(BaseCommand):
    help = "Import STM_Structure_pt / STM_Structure_py / STM_Line_ln / STM_Subwatersheds_py layers from a folder."

    def add_arguments(self, parser):
        parser.add_argument("folder")
        parser.add_argument("--site", help="site case number (SWS-…); default: open a new site")
        parser.add_argument("--name", default="Imported MS4 inventory")

    def handle(self, *args, folder, site=None, name="", **opts):
        s = None
        if site:
            s = Site.objects.filter(case__number=site).first()
            if s is None:
                raise CommandError(f"no site {site}")
        try:
            data = read_inventory(folder)
            with transaction.atomic():
                # without --site: the site already holding these BMPs (a re-import), else a new one (issue 26)
                s = s or inventory_site_of(data) or site_open(name=name, acting_user=None)
                imp = inventory_import(site=s, folder=folder, acting_user=None, data=data)
        except ValueError as e:
            raise CommandError(str(e)) from None
        self.stdout.write(f"{s.case.number}: {imp.counts['bmps']} BMPs ({imp.counts['bmps_added']} added, "
                          f"{imp.counts['bmps_updated']} updated) by EPA Region 1 category "
                          f"{imp.counts['bmps_by_category']}; structures {imp.counts['structures']}")
