from django.tasks import task

from .polling import read_due


@task(queue_name="remote")
def read_release_sources():
    """Read the release sources that are due (settings.SKILLO_PERIODIC_TASKS): each is
    read about every half hour, a failing one later and later. Returns the summary."""
    return str(read_due())
