import time

from django.core.management.base import BaseCommand

from api.delivery import send_due


class Command(BaseCommand):
    help = (
        "Send the webhook deliveries that are due, once (for cron) or in a loop "
        "(--loop, for systemd or beside the app server)."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--loop", action="store_true", help="Keep running, looking every --interval s."
        )
        parser.add_argument("--interval", type=float, default=5.0)

    def handle(self, *args, loop, interval, verbosity, **options):
        while True:
            tried = send_due()
            if tried and verbosity > 0:
                self.stdout.write(self.style.SUCCESS(f"Tried {tried} webhook deliveries."))
            if not loop:
                return
            if not tried:
                time.sleep(interval)
