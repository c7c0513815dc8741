"""What the queue holds, for /health/, ``manage.py tasks_status`` and the metrics."""

from django.db.models import Count, Min
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import WorkerBeat


def queue_status(now=None):
    """Counts by state, the age in seconds of the oldest task waiting to run (due now,
    not yet taken), and the workers seen in the last minute. Reads only."""
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
