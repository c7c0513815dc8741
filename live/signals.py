"""Purges for coverage turned on or off: the story's page shows a live section or not."""

from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver

from news import purge as news_purge
from pagecache import purges

from .dependencies import LIVE, LIVE_STORIES
from .models import LiveCoverage


@receiver(post_save, sender=LiveCoverage)
def coverage_saved(sender, instance, created, **kwargs):
    # Later changes purge LIVE themselves (live.desk), with the version they made.
    if created:
        keys = {LIVE(instance.pk), LIVE_STORIES()}
        news_purge.on_commit(lambda: purges.purge(keys))


@receiver(post_delete, sender=LiveCoverage)
def coverage_deleted(sender, instance, **kwargs):
    keys = {LIVE(instance.pk), LIVE_STORIES()}
    news_purge.on_commit(lambda: purges.purge(keys, hard=True))
