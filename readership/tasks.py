from django.tasks import task

from . import folding, most_read, visitors


@task
def fold_beacons():
    """The beacons written so far, folded into counts (a periodic task)."""
    return folding.fold()


@task
def forget_past_days():
    """Yesterday's salt and visitor lists deleted, once what they counted is folded."""
    folding.fold()
    return visitors.forget_past_days()


@task
def refresh_most_read():
    """'Most read' ranked again from what is folded; its pages purged if it changed."""
    return most_read.refresh()
