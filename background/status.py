"""What the queue holds, for /health/, ``manage.py tasks_status`` and the metrics: the
database queue's, or the Redis queue's when TASKS_URL names one (background.redis_queue)."""

from django.db.models import Count, Min
from django.tasks import TaskResultStatus, task_backends
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import WorkerBeat


def redis_backend():
    """The default task backend if it is the Redis queue, else None."""
    if task_backends["default"].__class__.__module__ != "background.redis_queue":
        return None  # rq is not even imported
    from .redis_queue import redis_backend

    return redis_backend()


def queue_status(now=None):
    """Counts by state, the age in seconds of the oldest task waiting to run (due now,
    not yet taken), and the workers seen in the last minute. Reads only."""
    if backend := redis_backend():
        from .redis_queue import queue_status

        return queue_status(backend, now)
    now = now or timezone.now()
    counts = dict(DBTaskResult.objects.values_list("status").annotate(Count("pk")).order_by())
    oldest = DBTaskResult.objects.ready().aggregate(oldest=Min("enqueued_at"))["oldest"]
    return {
        "queued": counts.get(TaskResultStatus.READY, 0),
        "running": counts.get(TaskResultStatus.RUNNING, 0),
        "failed": counts.get(TaskResultStatus.FAILED, 0),
        "succeeded": counts.get(TaskResultStatus.SUCCESSFUL, 0),
        "oldest_queued_seconds": round((now - oldest).total_seconds(), 1) if oldest else 0,
        "workers": WorkerBeat.objects.filter(
            seen_at__gte=now - timezone.timedelta(minutes=1)
        ).count(),
    }


def latest_failures(limit):
    """The tasks that failed last, newest first."""
    if backend := redis_backend():
        from .redis_queue import latest_failures

        return latest_failures(backend, limit)
    return [
        {
            "id": str(row.id),
            "task": row.task_path,
            "finished_at": row.finished_at.isoformat() if row.finished_at else None,
            "tries": len(row.worker_ids),
            "error": (row.traceback.strip().splitlines() or [row.exception_class_path])[-1],
        }
        for row in DBTaskResult.objects.failed().order_by("-finished_at")[:limit]
    ]
