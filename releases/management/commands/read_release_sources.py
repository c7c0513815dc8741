from django.core.management.base import BaseCommand

from releases.models import ReleaseSource
from releases.polling import Pace, read_due


class Command(BaseCommand):
    help = (
        "Read the release sources that are due now, as the worker does every 5 minutes "
        "(read-release-sources), and put their new releases on the desk."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--all", action="store_true", help="Read every source, due or not (back-off too)."
        )
        parser.add_argument(
            "--pace", type=float, default=1.0, help="Seconds between two requests to a host."
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Say how many are due; read nothing."
        )

    def handle(self, *args, **options):
        if options["dry_run"]:
            count = (
                ReleaseSource.objects if options["all"] else ReleaseSource.objects.due()
            ).count()
            self.stdout.write(f"{count} release source{'s' if count != 1 else ''} to read.")
            return
        summary = read_due(pace=Pace(per_host=options["pace"]), everything=options["all"])
        style = self.style.WARNING if summary.failed else self.style.SUCCESS
        self.stdout.write(style(str(summary)))
        if summary.failed and options["verbosity"] > 1:
            for source in ReleaseSource.objects.filter(failures__gt=0).select_related("project"):
                self.stdout.write(f"  {source}: {source.last_error}")
