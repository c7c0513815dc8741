"""The embeds' background work: each linked page is fetched once, by a worker."""

import logging

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.tasks import task
from django.utils import timezone

from images.models import Image, Licence
from images.tasks import make_renditions
from images.uploads import check_upload, max_upload_bytes

from .fetch import FetchFailed, fetch, get
from .models import Embed

logger = logging.getLogger(__name__)


def library_thumbnail(url, provider):
    """The picture at ``url`` in the image library (the same picture is one entry), its
    renditions made, or None when it cannot be had: the card then shows none."""
    try:
        _, _, body = get(url, max_upload_bytes(), "image/avif,image/webp,image/*")
        upload = check_upload(ContentFile(body, name="thumbnail"))
    except (FetchFailed, ValidationError):
        return None
    image = Image.objects.filter(sha256=upload.sha256).first()
    if image is None:
        image = Image(
            decorative=True,  # the card's title says what it shows
            credit=provider[:200] or "Linked page",
            licence=Licence.SCREENSHOT,
        )
        image.take(ContentFile(body, name=f"embed-{upload.sha256[:12]}"), upload)
        image.save()
    if not image.renditions_ready:
        # Now rather than by the task the save queued: the card is ready with its picture.
        make_renditions.call(image.pk)
        image.refresh_from_db()
    return image


def failed(embed, why):
    embed.state, embed.error = Embed.State.FAILED, why[:300]
    embed.fetched_at = timezone.now()
    embed.save()
    return embed.state


@task(queue_name="remote")
def fetch_embed(url):
    """Fetch the card of ``url``: ready, or failed (the link stays a plain link). Saving
    it purges the pages showing the link (news.signals)."""
    embed = Embed.objects.filter(url=url).first()
    if embed is None:
        return None
    try:
        found = fetch(url)
    except FetchFailed as error:
        return failed(embed, str(error))
    except Exception as error:  # a page no rule foresaw: a plain link, and a log line
        logger.exception("Reading %s for its card failed", url)
        return failed(embed, f"{type(error).__name__}: {error}")
    thumbnail = (
        library_thumbnail(found.thumbnail_url, found.provider) if found.thumbnail_url else None
    )
    for name in ("kind", "provider", "title", "author", "text", "player_url"):
        setattr(embed, name, getattr(found, name))
    embed.player_width, embed.player_height = found.player_width, found.player_height
    embed.thumbnail = thumbnail
    embed.state, embed.error = Embed.State.READY, ""
    embed.fetched_at = timezone.now()
    embed.save()
    return embed.state
