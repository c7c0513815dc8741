"""What the queue holds, for /health/, ``manage.py tasks_status`` and the metrics: in
all, and by queue (settings.TASKS: a full "default" queue must not hide an "urgent" one
whose workers are gone)."""

from django.conf import settings
from django.db.models import Count, Min
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import WorkerBeat

STATES = {
    "queued": TaskResultStatus.READY,
    "running": TaskResultStatus.RUNNING,
    "failed": TaskResultStatus.FAILED,
    "succeeded": TaskResultStatus.SUCCESSFUL,
}


def queue_status(now=None):
    """Counts by state, the age in seconds of the oldest task waiting to run (due now,
    not yet taken), and the workers seen in the last minute, in all and by queue (under
    "queues"). Reads only."""
    now = now or timezone.now()
    names = list(settings.TASKS["default"]["QUEUES"])
    counts = {}
    for queue, state, count in (
        DBTaskResult.objects.values_list("queue_name", "status").annotate(Count("pk")).order_by()
    ):
        counts[queue, state] = count
    oldest = dict(
        DBTaskResult.objects.ready()
        .values_list("queue_name")
        .annotate(oldest=Min("enqueued_at"))
        .order_by()
    )
    workers = {}
    seen = WorkerBeat.objects.filter(seen_at__gte=now - timezone.timedelta(minutes=1))
    for queues in seen.values_list("queues", flat=True):
        for queue in queues.split(","):
            workers[queue] = workers.get(queue, 0) + 1
    # A queue no longer in the settings still counts while tasks wait in it.
    names += sorted({queue for queue, _state in counts} - set(names))

    def age(moment):
        return round((now - moment).total_seconds(), 1) if moment else 0

    queues = {
        queue: {
            **{key: counts.get((queue, state), 0) for key, state in STATES.items()},
            "oldest_queued_seconds": age(oldest.get(queue)),
            "workers": workers.get(queue, 0),
        }
        for queue in names
    }
    return {
        **{key: sum(each[key] for each in queues.values()) for key in STATES},
        "oldest_queued_seconds": age(min(oldest.values(), default=None)),
        "workers": seen.count(),
        "queues": queues,
    }


def latest_failures(limit):
    """The tasks that failed last, newest first."""
    return [
        {
            "id": str(row.id),
            "task": row.task_path,
            "queue": row.queue_name,
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "tries": len(row.worker_ids),
            "error": (row.traceback.strip().splitlines() or [row.exception_class_path])[-1],
        }
        for row in DBTaskResult.objects.failed().order_by("-finished_at")[:limit]
    ]


def is_waiting(task, *args):
    """Whether ``task`` with ``args`` is queued or running: a task that works through
    everything of one kind (one remote host's activities) is queued once, not again
    for each thing."""
    return DBTaskResult.objects.filter(
        task_path=task.module_path,
        status__in=[TaskResultStatus.READY, TaskResultStatus.RUNNING],
        args_kwargs__args=list(args),
    ).exists()
