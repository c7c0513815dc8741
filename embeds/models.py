"""What a link alone on its line in an article stands for: a card with the linked page's
title, source, picture and words, fetched once on the server (embeds.tasks) and shown
without any request to the other site; a video's player only after the reader asks."""

from datetime import timedelta

from django.db import models
from django.utils import timezone

from .fetch import player_origin

MAX_URL = 500
# A failed fetch is tried again when an article with the link is saved after this long.
RETRY_AFTER = timedelta(hours=1)


class EmbedQuerySet(models.QuerySet):
    def ready(self):
        return self.filter(state=Embed.State.READY)


class Embed(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Being fetched"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed (shown as a plain link)"

    class Kind(models.TextChoices):
        VIDEO = "video", "Video"
        RICH = "rich", "Post or page"
        PHOTO = "photo", "Photo"
        LINK = "link", "Link"

    url = models.CharField("address", max_length=MAX_URL, unique=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.LINK)
    provider = models.CharField(max_length=100, blank=True)
    title = models.CharField(max_length=300, blank=True)
    author = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    # In the image library: the card's picture is served by Skillo, never hot-linked.
    thumbnail = models.ForeignKey(
        "images.Image", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A video's player, loaded in an iframe only once the reader clicks; the page's CSP
    # allows frames from its origin alone.
    player_url = models.CharField(max_length=MAX_URL, blank=True)
    player_width = models.PositiveIntegerField(null=True, blank=True)
    player_height = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    fetched_at = models.DateTimeField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)

    objects = EmbedQuerySet.as_manager()

    class Meta:
        ordering = ["-requested_at"]

    def __str__(self):
        return self.title or self.url

    @property
    def player_origin(self):
        """The scheme, host and port the player is loaded from, for the page's CSP ("" for
        an address that could not be one)."""
        return player_origin(self.player_url)

    def retry_due(self, now=None):
        """A failed fetch, or one that never finished (a worker killed, an error of its
        own), is tried again once RETRY_AFTER has passed."""
        now = now or timezone.now()
        return self.state != self.State.READY and self.requested_at <= now - RETRY_AFTER
