from django.tasks import task

from . import figures, folding, most_read, visitors


@task
def fold_beacons():
    """The beacons written so far, folded into counts (a periodic task)."""
    return folding.fold()


@task
def forget_past_days():
    """Yesterday's salt and visitor lists deleted, once what they counted is folded.
    While another fold runs, its beacons may be yesterday's: the lists are kept until the
    next hour's run, or those readers would count again."""
    if folding.fold() is None:
        return 0
    return visitors.forget_past_days()


@task
def refresh_figures():
    """'Most read' ranked again from what is folded (its pages purged if it changed),
    and the dashboard's figures worked out again."""
    changed = most_read.refresh()
    figures.summarise()
    return changed
