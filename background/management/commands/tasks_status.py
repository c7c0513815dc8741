import json

from django.core.management.base import BaseCommand

from background.status import latest_failures, queue_status

SHOWN = 10


class Command(BaseCommand):
    help = "Print the background queue: tasks by state, the oldest waiting, the latest failures."

    def add_arguments(self, parser):
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="One JSON object, for scripts."
        )

    def handle(self, *args, as_json, **options):
        status = queue_status()
        failures = latest_failures(SHOWN)
        if as_json:
            self.stdout.write(json.dumps({**status, "latest_failures": failures}, indent=2))
            return
        self.stdout.write(
            f"{status['queued']} queued (oldest waiting {status['oldest_queued_seconds']:g} s), "
            f"{status['running']} running, {status['failed']} failed, "
            f"{status['succeeded']} succeeded; {status['workers']} workers seen in the last minute."
        )
        for queue, counts in status["queues"].items():
            self.stdout.write(
                f"  {queue}: {counts['queued']} queued (oldest waiting "
                f"{counts['oldest_queued_seconds']:g} s), {counts['running']} running, "
                f"{counts['failed']} failed; {counts['workers']} workers."
            )
        for failure in failures:
            self.stdout.write(
                f"failed: {failure['task']} ({failure['tries']} tries, {failure['finished_at']}): "
                f"{failure['error']}"
            )
