import json

from django.core.management.base import BaseCommand
from django_tasks_db.models import DBTaskResult

from background.status import queue_status

SHOWN = 10


class Command(BaseCommand):
    help = "Print the background queue: tasks by state, the oldest waiting, the latest failures."

    def add_arguments(self, parser):
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="One JSON object, for scripts."
        )

    def handle(self, *args, as_json, **options):
        status = queue_status()
        failures = [
            {
                "id": str(row.id),
                "task": row.task_path,
                "finished_at": row.finished_at.isoformat() if row.finished_at else None,
                "tries": len(row.worker_ids),
                "error": (row.traceback.strip().splitlines() or [row.exception_class_path])[-1],
            }
            for row in DBTaskResult.objects.failed().order_by("-finished_at")[:SHOWN]
        ]
        if as_json:
            self.stdout.write(json.dumps({**status, "latest_failures": failures}, indent=2))
            return
        self.stdout.write(
            f"{status['queued']} queued (oldest waiting {status['oldest_queued_seconds']:g} s), "
            f"{status['running']} running, {status['failed']} failed, "
            f"{status['succeeded']} succeeded; {status['workers']} workers seen in the last minute."
        )
        for failure in failures:
            self.stdout.write(
                f"failed: {failure['task']} ({failure['tries']} tries, {failure['finished_at']}): "
                f"{failure['error']}"
            )
