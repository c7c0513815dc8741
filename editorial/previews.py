"""Preview links for outside reviewers: a link to a draft's page that works for a chosen
time (at most MAX_HOURS) unless revoked. The token is random, 32 bytes; only its SHA-256
is stored, so a copy of the database opens no draft."""

from datetime import timedelta

from django.utils import timezone

from .models import PreviewLink
from .tokens import digest, new_token

MAX_HOURS = 7 * 24
CHOICES = [(1, "1 hour"), (24, "1 day"), (72, "3 days"), (MAX_HOURS, "7 days")]


def make(article, user, hours):
    """A new link's token (shown once) and its row."""
    hours = max(1, min(int(hours), MAX_HOURS))
    token, token_hash = new_token()
    link = PreviewLink.objects.create(
        article=article,
        token_hash=token_hash,
        created_by=user,
        expires_at=timezone.now() + timedelta(hours=hours),
    )
    return token, link


def find(token):
    """(the link, None) if it works; (None or the link, why not) otherwise."""
    link = PreviewLink.objects.select_related("article").filter(token_hash=digest(token)).first()
    if link is None:
        return None, "unknown"
    if link.revoked_at is not None:
        return link, "revoked"
    if link.expires_at <= timezone.now():
        return link, "expired"
    return link, None


def active(article):
    return PreviewLink.objects.filter(
        article=article, revoked_at=None, expires_at__gt=timezone.now()
    ).select_related("created_by")
