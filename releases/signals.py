from django.db import transaction

from pagecache.purges import purge

from .dependencies import PROJECT, PROJECTS


def project_changed(sender, instance, **kwargs):
    """A project renamed, its page opened or closed, its topics changed: its page, the
    index of projects and the pages linking it are built again."""
    transaction.on_commit(lambda: purge({PROJECT(instance.pk), PROJECTS()}))
