from django.db import models


class Release(models.Model):
    """The release (pagecache.release) whose pages the Varnish servers in front were last
    told of. An app server process of another release, starting, purges that release's
    pages from them (every page names its release among its keys) and takes its place."""

    name = models.CharField(max_length=64)
    # The VARNISH_PURGE_URLS of the app servers that announced it: where a process not
    # told itself (a manage.py command) sends its purges (pagecache.varnish.targets).
    varnish = models.JSONField(default=list)
    since = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.name} since {self.since:%Y-%m-%d %H:%M:%S}"
