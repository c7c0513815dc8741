"""Periodic tasks: settings.SKILLO_PERIODIC_TASKS names each with its task and how often
it runs. A worker queues one when it is due; the time it was queued is kept in the
database (PeriodicRun), so several workers queue it once, and after the machine was off
for a week a daily task runs once, not seven times."""

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from .models import PeriodicRun


def queue_due(now=None):
    """Queue the periodic tasks that are due; return their names."""
    entries = settings.SKILLO_PERIODIC_TASKS
    if not entries:
        return []
    now = now or timezone.now()
    PeriodicRun.objects.bulk_create(
        [PeriodicRun(name=name) for name in entries], ignore_conflicts=True
    )
    queued = []
    with transaction.atomic():
        for run in (
            PeriodicRun.objects.select_for_update().filter(name__in=entries).order_by("name")
        ):
            path, every = entries[run.name]
            if run.last_queued_at is not None and run.last_queued_at + every > now:
                continue
            import_string(path).enqueue()
            run.last_queued_at = now
            run.save(update_fields=["last_queued_at"])
            queued.append(run.name)
    return queued


def periodic_task_paths():
    """The import paths of the periodic tasks (as task results name them)."""
    return {path for path, _every in settings.SKILLO_PERIODIC_TASKS.values()}
