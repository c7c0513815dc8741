from datetime import timedelta

from django.conf import settings
from django.tasks import task
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from .models import WorkerBeat


@task
def prune_results():
    """Forget tasks that ended well more than SKILLO_TASK_RESULTS_DAYS ago; failed ones are
    kept until someone runs or discards them. Returns how many were removed."""
    before = timezone.now() - timedelta(days=settings.SKILLO_TASK_RESULTS_DAYS)
    removed, _ = DBTaskResult.objects.successful().filter(finished_at__lt=before).delete()
    # And the heartbeats of workers gone a day (killed: a worker that stops removes its own).
    WorkerBeat.objects.filter(seen_at__lt=timezone.now() - timedelta(days=1)).delete()
    return removed
