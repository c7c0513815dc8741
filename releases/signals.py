from django.db import transaction

from pagecache.purges import purge

from .dependencies import PROJECT


def project_changed(sender, instance, **kwargs):
    """A project renamed, its page opened or closed: its page is built again."""
    transaction.on_commit(lambda: purge({PROJECT(instance.pk)}))
