"""Which cached pages an article change makes stale, worked out after the change commits.

An article's *footprint* is what decides which pages show it: whether it is public, its
dates, title, tags and related links. The footprint is read before the first change
in a transaction and again after the commit; the pages of both are purged (see
news.pagecache for how a purge works). An edit that leaves the footprint alone purges
only the pages that show the article itself; publishing, unpublishing, rescheduling or
deleting also purges the lists it joins or leaves.
"""

import hashlib
import threading
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, transaction

from . import pagecache
from .models import Article, PendingPurge, RelatedLink
from .topics import main_topics

NAV_KEY = "nav:tags"
LOCK_KEY = "schedule:lock"

_local = threading.local()


def on_commit(callback):
    # One name to replace in tests, where pytest-django's transactions never commit.
    transaction.on_commit(callback)


@dataclass(frozen=True)
class Footprint:
    public: bool
    published_at: datetime
    event_date: object
    title: str
    tags: frozenset
    link_targets: frozenset
    link_titles: frozenset


def title_key(title):
    # Hashed: titles hold spaces and may be long, which cache keys must not.
    digest = hashlib.md5(title.upper().encode(), usedforsecurity=False).hexdigest()[:16]
    return f"title:{digest}"


def footprint(pk):
    row = (
        Article.objects.filter(pk=pk)
        .values("status", "published_at", "event_date", "title")
        .first()
    )
    if row is None:
        return None
    tags = Article.tags.through.objects.filter(
        content_type=ContentType.objects.get_for_model(Article), object_id=pk
    ).values_list("tag_id", flat=True)
    links = list(RelatedLink.objects.filter(article_id=pk).values_list("target_id", "title"))
    return Footprint(
        # The one rule for what readers see (Article.is_published / .published()).
        public=Article(status=row["status"], published_at=row["published_at"]).is_published(),
        published_at=row["published_at"],
        event_date=row["event_date"],
        title=row["title"],
        tags=frozenset(tags),
        link_targets=frozenset(target for target, _ in links if target),
        link_titles=frozenset(title for target, title in links if not target and title),
    )


def membership_keys(fp):
    """The lists a public article belongs to: they change when it joins or leaves."""
    if fp is None or not fp.public:
        return set()
    return {
        "list:all",
        "tags",
        title_key(fp.title),
        *(f"tag:{tag}" for tag in fp.tags),
        *(f"refs:{target}" for target in fp.link_targets),
        *(title_key(title) for title in fp.link_titles),
    }


def keys_to_purge(pk, old, new):
    keys = {f"article:{pk}"}
    if (old and old.public) or (new and new.public):
        keys.add("feeds")
    before, after = membership_keys(old), membership_keys(new)
    moved = (
        old is None
        or new is None
        or (old.public, old.published_at, old.event_date)
        != (new.public, new.published_at, new.event_date)
    )
    if moved:
        # Joined or left every list, or changed place in all of them.
        keys |= before | after
    elif before != after:
        keys |= (before ^ after) | {"tags"}
    return keys


def before_change(pk):
    """Called before an article or its parts change: remember what pages showed it."""
    pending = _local.__dict__.setdefault("pending", {})
    if pk is not None and pk not in pending:
        pending[pk] = footprint(pk)


def after_change(pk):
    _local.__dict__.setdefault("pending", {}).setdefault(pk, None)
    on_commit(flush)


def flush():
    """After the commit: purge the pages of every article changed in the transaction."""
    pending, _local.pending = _local.__dict__.get("pending", {}), {}
    keys = set()
    for pk, old in pending.items():
        keys |= keys_to_purge(pk, old, footprint(pk))
    purge(keys)
    next_due()


def tag_changed(tag_pk):
    """A topic renamed or deleted: its pages and every article page showing its name."""
    article_ids = Article.tags.through.objects.filter(
        tag_id=tag_pk, content_type=ContentType.objects.get_for_model(Article)
    ).values_list("object_id", flat=True)
    keys = {"tags", "feeds", f"tag:{tag_pk}", *(f"article:{pk}" for pk in article_ids)}
    on_commit(lambda: purge(keys))


def everything():
    """After changes no signal told about (bulk inserts): drop every cached page and
    count, since every one of them depends on "schedule"."""
    purge({"schedule"})
    next_due()


def purge(keys):
    if not keys:
        return
    if not pagecache.bump(keys):
        # The cache is down: keep the purge until it is back (news.pagecache).
        PendingPurge.objects.create(keys="\n".join(sorted(keys)))
    elif "tags" in keys:
        pagecache.bump(nav_change())


def nav_change():
    """{"nav"} when the header's topics are no longer those pages show, else nothing.

    Counting them afresh here (after the purge) also spares the next reader the count.
    """
    topics = [(tag.pk, tag.name, tag.slug) for tag in main_topics()]
    ok, shown = pagecache.cache_call("get", NAV_KEY)
    if ok and shown == topics:
        return set()
    pagecache.cache_call("set", NAV_KEY, topics, timeout=None)
    return {"nav"}


def apply_pending_purges():
    """Send the purges the cache missed; False if the database could not be asked."""
    try:
        pending = list(PendingPurge.objects.all()[:100])
        if not pending:
            return True
        keys = {key for purge in pending for key in purge.keys.split()}
        if pagecache.bump(keys):
            pagecache.bump(nav_change())
            PendingPurge.objects.filter(pk__in=[purge.pk for purge in pending]).delete()
    except DatabaseError:
        return False
    return True


def next_due():
    """Store when the next scheduled article becomes public; returns it (Unix time)."""
    upcoming = (
        Article.objects.scheduled()
        .order_by("published_at")
        .values_list("published_at", flat=True)
        .first()
    )
    due = upcoming.timestamp() if upcoming else pagecache.NEVER
    pagecache.cache_call("set", pagecache.SCHEDULE_KEY, due, timeout=None)
    return due


def publish_due_articles(due):
    """Purge the pages of scheduled articles whose time came at or after ``due``.

    Called by the first request after that time. ``None`` means nobody knows (an empty
    or restarted cache): every page built before now is dropped. Returns the next due
    time, or None if this request must not use the cache (another one is purging).
    """
    try:
        if due is None:
            pagecache.cache_call("set", "schedule", f"0:{pagecache.new_token()}", timeout=None)
            return next_due()
        ok, locked = pagecache.cache_call("add", LOCK_KEY, 1, timeout=10)
        if not ok or not locked:
            return None
        try:
            since = datetime.fromtimestamp(due, UTC)
            keys = set()
            for pk in (
                Article.objects.published()
                .filter(published_at__gte=since)
                .values_list("pk", flat=True)
            ):
                now = footprint(pk)
                keys |= keys_to_purge(pk, replace(now, public=False), now)
            purge(keys)
            return next_due()
        finally:
            pagecache.cache_call("delete", LOCK_KEY)
    except DatabaseError:
        return None
