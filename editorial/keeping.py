"""No lost work: autosaves of what an editor types, and who else has an article open.
The article admin's views call these; the page's script is static/editorial/autosave.js."""

from datetime import timedelta

from django.utils import timezone

from .models import AutoSave, Presence

# Someone whose page has not said so for this long has left it. Pages say so every
# 10 s (static/editorial/autosave.js) and when they close (leave()): a tab closed without
# a word (a crash, a lost connection, a laptop put to sleep) drops out within this time.
# The others' pages are told when each one they show runs out (describe()), and drop
# them then by their own clock: waiting for their next heartbeat, or for one that fails
# (the editor's own connection lost, the server restarting), would keep a name up to
# a heartbeat longer, or for ever. 25 s and not 30 leaves room for a slow answer.
PRESENT_FOR = timedelta(seconds=25)
KEPT_FIELDS = ("title", "summary", "body")


def autosave(user, article, data):
    fields = {name: str(data.get(name, ""))[:200_000] for name in KEPT_FIELDS}
    saved, _ = AutoSave.objects.update_or_create(
        user=user, article=article, defaults={"fields": fields}
    )
    return saved


def newer_autosave(user, article):
    """The editor's autosave for ``article`` (None: a new one) if it holds text the
    article does not and was made after the article's last save; else None."""
    saved = AutoSave.objects.filter(user=user, article=article).first()
    if saved is None:
        return None
    if article is not None:
        stored = {name: getattr(article, name) for name in KEPT_FIELDS}
        if saved.saved_at <= article.updated_at or saved.fields == stored:
            return None
    if not any(saved.fields.values()):
        return None
    return saved


def forget_autosave(user, article, added=False):
    """The editor saved ``article``: what they typed is in it now (``added``: it was a
    new article, whose autosave had none)."""
    AutoSave.objects.filter(user=user, article=None if added else article).delete()


def here(user, article):
    """Note that ``user`` has ``article`` open; return the others who have it open."""
    now = timezone.now()
    mine = Presence.objects.filter(user=user, article=article).first()
    if mine is None or mine.seen_at < now - PRESENT_FOR:
        Presence.objects.update_or_create(
            user=user, article=article, defaults={"since": now, "seen_at": now}
        )
    else:
        Presence.objects.filter(pk=mine.pk).update(seen_at=now)
    return others_here(user, article)


def leave(user, article_id):
    """``user`` closed the page of the article ``article_id``."""
    Presence.objects.filter(user=user, article=article_id).delete()


def others_here(user, article):
    return list(
        Presence.objects.filter(article=article, seen_at__gte=timezone.now() - PRESENT_FOR)
        .exclude(user=user)
        .select_related("user")
        .order_by("since")
    )


def describe(presences):
    """What a page shows of ``presences``; ``gone_in``: the seconds until each is
    forgotten unless their page says so again (the page drops them then)."""
    now = timezone.now()
    return [
        {
            "name": presence.user.get_full_name() or presence.user.get_username(),
            "since": timezone.localtime(presence.since).strftime("%H:%M"),
            "gone_in": round(max(0, (presence.seen_at + PRESENT_FOR - now).total_seconds()), 1),
        }
        for presence in presences
    ]
