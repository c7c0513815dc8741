"""Show the site's recorded identity (news.identity), or record a deliberate move."""

from django.core.management.base import BaseCommand

from news import identity
from news.models import SiteIdentity


class Command(BaseCommand):
    help = (
        "Show the site address and feed id authority recorded at the first publication; "
        "--accept records the current settings after a deliberate move."
    )
    # The check this command exists to settle would refuse to run it.
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument(
            "--accept",
            action="store_true",
            help="Record the current SITE_URL and FEED_ID_AUTHORITY as the site's.",
        )

    def handle(self, *args, accept, **options):
        before = SiteIdentity.objects.first()
        if accept:
            identity.record(accept=True)
        now = SiteIdentity.objects.first()
        if accept and before is not None and str(before) != str(now):
            self.stdout.write(f"Was: {before}")
        self.stdout.write(f"Recorded: {now}" if now else "Nothing recorded yet.")
        if not accept and now is not None:
            current = identity.current()
            if (now.site_url, now.feed_id_authority) != tuple(current.values()):
                self.stdout.write(
                    f"The settings say: {current['site_url']} (feed ids: "
                    f"{current['feed_id_authority']})"
                )
