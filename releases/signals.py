from news import purge as news_purge
from pagecache.purges import purge

from .dependencies import PROJECT, PROJECTS


def project_changed(sender, instance, **kwargs):
    """A project renamed, its page opened or closed, its topics changed: its page, the
    index of projects and the pages linking it are built again."""
    news_purge.on_commit(lambda: purge({PROJECT(instance.pk), PROJECTS()}))
