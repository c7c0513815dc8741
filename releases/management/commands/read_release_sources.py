from django.core.management.base import BaseCommand
from django.db.models import Min
from django.utils import timezone

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
        if not options["all"]:
            self.say_backed_off()

    def say_backed_off(self):
        """'0 sources read' after a failure says nothing of the sources that wait: how
        many, until when, and how to read them now."""
        now = timezone.now()
        waiting = ReleaseSource.objects.filter(failures__gt=0, next_attempt_at__gt=now)
        count = waiting.count()
        if not count:
            return
        until = timezone.localtime(
            waiting.aggregate(Min("next_attempt_at"))["next_attempt_at__min"]
        )
        self.stdout.write(
            self.style.WARNING(
                f"{count} failing source{'s are' if count != 1 else ' is'} backed off, the "
                f"first until {until:%Y-%m-%d %H:%M %Z}; read "
                f"{'them' if count != 1 else 'it'} now with --all."
            )
        )
