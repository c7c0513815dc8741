from django.db import models


class PeriodicRun(models.Model):
    """When a periodic task (settings.SKILLO_PERIODIC_TASKS) was last queued: kept in the
    database, so that the worker that finds it due queues it once, whichever worker
    and however long the machine was off."""

    name = models.CharField(max_length=100, primary_key=True)
    last_queued_at = models.DateTimeField(null=True)

    def __str__(self):
        return self.name
