"""Which cached pages an article change makes stale, worked out after the change commits.

An article's *footprint* is what decides which pages show it: whether it is public, its
dates, title, tags, related links and authors. The footprint is read before the first change
in a transaction and again after the commit; the pages of both are purged (see the
pagecache app for how a purge lands). An edit that leaves the footprint alone purges
only the pages that show the article itself; publishing, unpublishing, rescheduling or
deleting also purges the lists it joins or leaves. The keys are the ones the views
declare (news.dependencies).
"""

import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime

from django.db import transaction
from django.dispatch import Signal
from django.utils import timezone

from embeds.models import Embed
from pagecache import purges
from pagecache.store import cache_call, share
from people.models import Author

from .dependencies import (
    ARTICLE,
    AUTHOR,
    AUTHOR_ARTICLES,
    AUTHORS,
    CORRECTIONS,
    EMBED,
    FEEDS,
    FRONT,
    LATEST,
    NAV,
    REFERENCED_BY,
    SOURCE,
    TAG,
    TOPICS,
    title_key,
)
from .models import Article, ArticleAuthor, FrontPin, RelatedLink, TaggedArticle
from .topics import main_topics

NAV_KEY = "nav:tags"

_local = threading.local()

# Sent after the commit, once the purges are done, with ``changes``: {article id:
# (footprint before, footprint after)}, None for an article that did not exist before
# (created) or no longer exists (deleted). Apps above news (the API's webhooks) learn
# from it what was published, changed, unpublished or deleted, at no query of their own.
articles_changed = Signal()
# Sent inside the transaction when an editor changes whether a story is e-mailed
# (Article.email_subscribers) without publishing it now: sending a published one later,
# or a scheduled one's choice. Receivers (the newsletter) answer True if they planned
# the e-mail, so the editor can be told it was sent once already.
email_choice_changed = Signal()


def on_commit(callback):
    # One name to replace in tests, where pytest-django's transactions never commit.
    transaction.on_commit(callback)


def publication_time(old, new):
    """When a change (footprints before and after, as ``articles_changed`` sends them)
    makes the article public: now, its scheduled time, or None."""
    if new is None:
        return None
    if new.public and not (old is not None and old.public):
        return timezone.now()
    if new.scheduled and (old is None or not old.scheduled or old.published_at != new.published_at):
        return new.published_at
    return None


@dataclass(frozen=True)
class Footprint:
    public: bool
    # Published with a time still to come: it becomes public by itself then.
    scheduled: bool
    published_at: datetime
    event_date: object
    title: str
    slug: str
    tags: frozenset
    link_targets: frozenset
    link_titles: frozenset
    authors: frozenset


def footprint(pk):
    row = (
        Article.objects.filter(pk=pk)
        .values("status", "published_at", "event_date", "title", "slug")
        .first()
    )
    if row is None:
        return None
    tags = TaggedArticle.objects.filter(content_object=pk).values_list("tag_id", flat=True)
    links = list(RelatedLink.objects.filter(article_id=pk).values_list("target_id", "title"))
    authors = ArticleAuthor.objects.filter(article=pk).values_list("author_id", flat=True)
    article = Article(status=row["status"], published_at=row["published_at"])
    return Footprint(
        # The one rule for what readers see (Article.is_published / .published()).
        public=article.is_published(),
        scheduled=article.is_scheduled,
        published_at=row["published_at"],
        event_date=row["event_date"],
        title=row["title"],
        slug=row["slug"],
        tags=frozenset(tags),
        link_targets=frozenset(target for target, _ in links if target),
        link_titles=frozenset(title for target, title in links if not target and title),
        authors=frozenset(authors),
    )


def membership_keys(fp):
    """The lists a public article belongs to: they change when it joins or leaves."""
    if fp is None or not fp.public:
        return set()
    return {
        LATEST(),
        TOPICS(),
        title_key(fp.title),
        *TAG.each(fp.tags),
        *REFERENCED_BY.each(fp.link_targets),
        *(title_key(title) for title in fp.link_titles),
        *AUTHOR_ARTICLES.each(fp.authors),
    }


def keys_to_purge(pk, old, new):
    keys = {ARTICLE(pk)}
    if (old and old.public) or (new and new.public):
        keys.add(FEEDS())
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
        keys |= (before ^ after) | {TOPICS()}
    return keys


def is_withdrawn(old, new):
    """Unpublished or deleted: its pages must go from every cache at once, not be served
    from grace while they are fetched again."""
    return old is not None and old.public and (new is None or not new.public)


def before_change(pk):
    """Called before an article or its parts change: remember what pages showed it."""
    pending = _local.__dict__.setdefault("pending", {})
    if pk is not None and pk not in pending:
        pending[pk] = footprint(pk)


def after_change(pk):
    _local.__dict__.setdefault("pending", {}).setdefault(pk, None)
    if getattr(_local, "restoring", False):
        _local.__dict__.setdefault("restored", set()).add(pk)
    on_commit(flush)


@contextmanager
def restoring():
    """Articles written inside are a backup restored (import_site), not news: their pages
    are purged, but articles_changed is not sent for them (but for scheduled ones, whose
    announcements are still to come), so no newsletter, webhook or fediverse post
    announces every restored story again to the restored subscribers. Receivers of
    other signals (a correction saved) ask ``is_restoring()``."""
    _local.restoring = True
    try:
        yield
    finally:
        _local.restoring = False
        # Consumed by flush() at the commit; a restore rolled back leaves none behind to
        # silence a later, real publication in this thread.
        _local.restored = set()


def is_restoring():
    return getattr(_local, "restoring", False)


def flush():
    """After the commit: purge the pages of every article changed in the transaction."""
    pending, _local.pending = _local.__dict__.get("pending", {}), {}
    restored, _local.restored = _local.__dict__.get("restored", set()), set()
    changes = {pk: (old, footprint(pk)) for pk, old in pending.items()}
    keys, withdrawn = set(), set()
    for pk, (old, new) in changes.items():
        found = keys_to_purge(pk, old, new)
        if is_withdrawn(old, new):
            withdrawn |= found
        else:
            keys |= found
    purges.purge(keys - withdrawn)
    purges.purge(withdrawn, hard=True)
    # Only a scheduled article, before or after, moves when content next comes due: other
    # changes leave it, and working it out is two queries on every save. (Left out, the
    # time kept could only be early, which costs the first reader after it a look.)
    if any(fp is not None and fp.scheduled for pair in changes.values() for fp in pair):
        purges.store_next_due()
    news = {
        pk: (old, new)
        for pk, (old, new) in changes.items()
        if pk not in restored or (new is not None and new.scheduled)
    }
    if news:
        articles_changed.send(sender=Article, changes=news)


def tag_changed(tag_pk):
    """A topic renamed or deleted: its pages and every article page showing its name."""
    article_ids = TaggedArticle.objects.filter(tag=tag_pk).values_list("content_object", flat=True)
    keys = {TOPICS(), FEEDS(), TAG(tag_pk), *ARTICLE.each(article_ids)}
    on_commit(lambda: purges.purge(keys))


def front_page_changed():
    """An editor pinned, unpinned or reordered the home page's choices."""
    on_commit(lambda: purges.purge({FRONT()}))
    on_commit(purges.store_next_due)


def image_changed(image):
    """An image's words or focal point changed, or it is being deleted: the pages and
    feeds showing it, as a lead image, in the text or in a link card (its alt text,
    caption, credit and crops)."""
    article_ids = Article.objects.showing_image(image).values_list("pk", flat=True)
    author_ids = Author.objects.filter(photo=image).values_list("pk", flat=True)
    # Link cards with it as their picture (embeds), on whichever pages show them.
    card_urls = Embed.objects.filter(thumbnail=image).values_list("url", flat=True)
    keys = {*ARTICLE.each(article_ids), *AUTHOR.each(author_ids), *EMBED.each(card_urls)}
    if keys:
        keys |= {FEEDS()}
        on_commit(lambda: purges.purge(keys))


def author_changed(author_pk):
    """An author's name, role, bio or links changed, or the author was added or deleted:
    their page, the author index and every page showing their byline. Which articles
    those are is not looked up: the pages say so themselves (AUTHOR)."""
    keys = {
        AUTHOR(author_pk),
        AUTHORS(),
        # Feeds name each entry's authors; the sitemap gives the author page's lastmod.
        FEEDS(),
    }
    on_commit(lambda: purges.purge(keys))


def correction_changed(article_pk):
    """A correction or update added, edited or removed: the article's page (which shows
    it), /corrections/ and its feed, and the feeds and sitemaps (its dates)."""
    keys = {
        ARTICLE(article_pk),  # its page shows it
        CORRECTIONS(),
        FEEDS(),  # and the sitemap lists /corrections/ with its lastmod
    }
    on_commit(lambda: purges.purge(keys))


def embed_changed(url):
    """A link's card fetched (or failed): the pages with the link alone on a line show it
    (EMBED)."""
    keys = {EMBED(url)}
    on_commit(lambda: purges.purge(keys))


def source_url_changed(url):
    """A source URL's archived copy set or removed: the pages citing it say so (SOURCE)."""
    keys = {SOURCE(url)}
    on_commit(lambda: purges.purge(keys))


def nav_change(sender, keys, **kwargs):
    """Purge NAV when a purge of topic counts changed the header's topics.

    Counting them afresh here (after the purge) also spares the next reader the count.
    """
    if TOPICS() not in keys:
        return
    # Lists, not tuples: the value is shared with other processes as JSON.
    topics = [[tag.pk, tag.name, tag.slug] for tag in main_topics()]
    ok, shown = cache_call("get", NAV_KEY)
    if ok and shown == topics:
        return
    share(NAV_KEY, topics)
    purges.purge({NAV()})


class ArticleSchedule(purges.Schedule):
    """Scheduled articles: published with a future time, public by themselves then."""

    def next_due(self):
        due = [
            Article.objects.scheduled()
            .order_by("published_at")
            .values_list("published_at", flat=True)
            .first(),
            # Front-page pins that run out by themselves.
            FrontPin.objects.filter(until__gt=timezone.now())
            .order_by("until")
            .values_list("until", flat=True)
            .first(),
        ]
        return min((when for when in due if when), default=None)

    def keys_due_since(self, since: datetime):
        keys = set()
        if FrontPin.objects.filter(until__gte=since, until__lte=timezone.now()).exists():
            keys.add(FRONT())
        for pk in (
            Article.objects.published().filter(published_at__gte=since).values_list("pk", flat=True)
        ):
            now = footprint(pk)
            keys |= keys_to_purge(pk, replace(now, public=False, scheduled=True), now)
        return keys
