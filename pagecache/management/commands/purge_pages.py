from django.conf import settings
from django.core.management.base import BaseCommand

from pagecache import purges, varnish
from pagecache.models import Release


class Command(BaseCommand):
    help = (
        "Purge every page, fragment and remembered value kept by the site's cache and by "
        "each Varnish in front (VARNISH_PURGE_URLS): after a change made outside the site "
        "(a restored backup, rows edited by hand). Soft by default: Varnish serves the old "
        "page while it fetches the new one; --hard drops them at once."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--hard", action="store_true", help="drop Varnish's pages at once, no grace"
        )

    def handle(self, hard, **options):
        purges.purge_everything(hard=hard)
        targets = varnish.targets()
        if targets:
            self.stdout.write(
                f"Purged the cache and each Varnish ({', '.join(targets)}); one that did not "
                "answer gets the purge from the task worker."
            )
            return
        message = "Purged the cache. No Varnish was purged: VARNISH_PURGE_URLS is empty here."
        if Release.objects.exclude(varnish=[]).exists():
            # The app servers have told a Varnish of their release: there is one in front.
            message += (
                " A Varnish in front has heard from this site's app servers: run this with "
                "their VARNISH_PURGE_URLS (or none set), or it serves what it keeps for up "
                f"to {settings.SKILLO_VARNISH_MAX_AGE} s."
            )
        self.stderr.write(self.style.WARNING(message))
