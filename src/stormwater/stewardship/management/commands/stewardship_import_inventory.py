"""Import a BMP / structure inventory from a folder of GIS files into a site (new site if --site is absent)."""
from django.core.management.base import BaseCommand, CommandError

from stormwater.stewardship.models import Site
from stormwater.stewardship.services import inventory_import, site_open


class Command(BaseCommand):
    help = "Import STM_Structure_pt / STM_Structure_py / STM_Line_ln / STM_Subwatersheds_py layers from a folder."

    def add_arguments(self, parser):
        parser.add_argument("folder")
        parser.add_argument("--site", help="site case number (SWS-…); default: open a new site")
        parser.add_argument("--name", default="Imported MS4 inventory")

    def handle(self, *args, folder, site=None, name="", **opts):
        if site:
            s = Site.objects.filter(case__number=site).first()
            if s is None:
                raise CommandError(f"no site {site}")
        else:
            s = site_open(name=name, acting_user=None)
        imp = inventory_import(site=s, folder=folder, acting_user=None)
        self.stdout.write(f"{s.case.number}: {imp.counts['bmps']} BMPs by EPA Region 1 category "
                          f"{imp.counts['bmps_by_category']}; structures {imp.counts['structures']}")
