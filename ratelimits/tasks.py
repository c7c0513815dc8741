from django.tasks import task
from django.utils import timezone

from .models import Window


@task
def forget_ended_windows():
    """Hourly: the rate limits' windows that have ended (counted in the database)."""
    deleted, _ = Window.objects.filter(ends__lte=timezone.now()).delete()
    return deleted
