from django.db import models


class PendingPurge(models.Model):
    """Purges that could not reach the cache (it was down), kept until it is back.

    pagecache.purges re-sends them, so no page built before the change outlives the
    outage.
    """

    keys = models.TextField()
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{len(self.keys.split())} keys at {self.created_at:%Y-%m-%d %H:%M:%S}"
