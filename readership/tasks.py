from django.tasks import task

from . import folding, visitors


@task
def fold_beacons():
    """The beacons written so far, folded into counts (a periodic task)."""
    return folding.fold()


@task
def forget_past_days():
    """Yesterday's salt and visitor lists deleted, once what they counted is folded."""
    folding.fold()
    return visitors.forget_past_days()
