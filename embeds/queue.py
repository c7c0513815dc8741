"""Asking for the cards of the links an article sets alone on a line."""

from django.db import IntegrityError, transaction
from django.utils import timezone

from .models import MAX_URL, Embed
from .tasks import fetch_embed


def request(urls):
    """Make sure each of ``urls`` has its card on the way: a new one is queued for a
    worker to fetch, a failed one again once RETRY_AFTER has passed. In the caller's
    transaction: a save that rolls back asks for nothing."""
    urls = [url for url in dict.fromkeys(urls) if len(url) <= MAX_URL]
    if not urls:
        return []
    now = timezone.now()
    existing = {embed.url: embed for embed in Embed.objects.filter(url__in=urls)}
    queued = []
    for url in urls:
        embed = existing.get(url)
        if embed is None:
            try:
                with transaction.atomic():
                    Embed.objects.create(url=url, requested_at=now)
            except IntegrityError:
                continue  # another save asked for it at the same moment
        elif embed.retry_due(now):
            Embed.objects.filter(pk=embed.pk).update(state=Embed.State.PENDING, requested_at=now)
        else:
            continue
        fetch_embed.enqueue(url)
        queued.append(url)
    return queued
