from django.tasks import task

from . import figures, folding, most_read, visitors


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
def refresh_figures():
    """'Most read' ranked again from what is folded (its pages purged if it changed),
    and the dashboard's figures worked out again."""
    changed = most_read.refresh()
    figures.summarise()
    return changed
