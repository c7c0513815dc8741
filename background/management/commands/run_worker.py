import logging
import os
import socket

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from background.worker import ClockDrift, Worker


class Command(BaseCommand):
    help = (
        "Run queued background tasks until stopped (SIGTERM or Ctrl-C lets the running "
        "task finish). Start as many as the work needs, on this machine or others that "
        "share the database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--queue",
            action="append",
            dest="queues",
            help="a queue to take tasks from, the first first (default: every queue, urgent "
            "first); repeat for more",
        )
        parser.add_argument(
            "--interval", type=float, default=1.0, help="seconds between looks at an empty queue"
        )
        parser.add_argument("--max-tasks", type=int, help="stop after running this many")
        parser.add_argument("--batch", action="store_true", help="stop once the queue is empty")
        parser.add_argument(
            "--id", dest="worker_id", help="the worker's name in task results (default: host:pid)"
        )

    def handle(self, *args, queues, interval, max_tasks, batch, worker_id, verbosity, **options):
        # What the worker does, on its standard error: a line per task (verbosity 1), the
        # periodic tasks that ended well too (2), only problems at 0.
        logger = logging.getLogger("background")
        if not logger.handlers:
            handler = logging.StreamHandler()
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
            logger.addHandler(handler)
        logger.setLevel({0: logging.WARNING, 1: logging.INFO}.get(verbosity, logging.DEBUG))
        worker_id = worker_id or f"{socket.gethostname()}:{os.getpid()}"
        known = settings.TASKS["default"]["QUEUES"]
        if unknown := [queue for queue in queues or [] if queue not in known]:
            raise CommandError(
                f"No queue {', '.join(map(repr, unknown))}: the queues are {', '.join(known)}."
            )
        try:
            Worker(worker_id, queues, interval, max_tasks, batch).run()
        except ClockDrift as error:
            raise CommandError(f"The worker did not start: {error}.") from error
