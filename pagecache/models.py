from django.db import models


class PendingPurge(models.Model):
    """Purges that could not reach the cache (it was down), kept until it is back.

    pagecache.purges re-sends them, so no page built before the change outlives the
    outage. (A Varnish in front that misses a purge gets it from a task instead:
    pagecache.varnish.)
    """

    keys = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{len(self.keys.split())} keys at {self.created_at:%Y-%m-%d %H:%M:%S}"


class Release(models.Model):
    """The release (pagecache.release) whose pages the Varnish servers in front were last
    told of. An app server process of another release, starting, purges that release's
    pages from them (every page names its release among its keys) and takes its place."""

    name = models.CharField(max_length=64)
    since = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"{self.name} since {self.since:%Y-%m-%d %H:%M:%S}"
