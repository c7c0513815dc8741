from django.core.management.base import BaseCommand

from api.delivery import send_due


class Command(BaseCommand):
    # Once, by hand: the workers send what is due every minute (the periodic
    # send-webhooks task), so a loop here would be a second worker.
    help = "Send the webhook deliveries that are due, once."

    def handle(self, *args, verbosity, **options):
        tried = send_due()
        if tried and verbosity > 0:
            self.stdout.write(self.style.SUCCESS(f"Tried {tried} webhook deliveries."))
