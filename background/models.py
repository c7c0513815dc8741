from django.db import models
from django_tasks_db.models import DBTaskResult


class PeriodicRun(models.Model):
    """When a periodic task (settings.SKILLO_PERIODIC_TASKS) was last queued: kept in the
    database, so that the worker that finds it due queues it once, whichever worker
    and however long the machine was off."""

    name = models.CharField(max_length=100, primary_key=True)
    last_queued_at = models.DateTimeField(null=True)

    def __str__(self):
        return self.name


class WorkerBeat(models.Model):
    """A running worker's last sign of life, written every few seconds while it runs (also
    during a long task). A task whose worker has been silent for SKILLO_TASK_LEASE
    seconds is run again elsewhere: the worker was killed or its machine lost."""

    worker_id = models.CharField(max_length=200, primary_key=True)
    seen_at = models.DateTimeField()
    # The queues it takes tasks from, comma-separated (/health/ counts workers by queue).
    queues = models.CharField(max_length=200, default="default")

    def __str__(self):
        return self.worker_id


class BackgroundTask(DBTaskResult):
    """django-tasks-db's task results under this app's name, so that the admin lists them
    as "Background work > Background tasks" (the library's own names are "Tasks Database
    Backend > Task Results"). A proxy: the same table, no column of its own."""

    class Meta:
        proxy = True
        verbose_name = "background task"
        verbose_name_plural = "background tasks"
