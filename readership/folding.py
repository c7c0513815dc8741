"""Beacons folded into counts (a periodic task, and `manage.py readership` first): per
article and hour, views and visitors (a visitor counted once a day per article, in the
hour of their first view) and views per source. The beacons folded are deleted in the
same transaction, so raw views are never kept past the minute or so that folds them."""

from collections import Counter
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Max
from django.urls import resolve
from django.utils import timezone

from news.models import Article

from . import beacons
from .models import ArticleHour, Beacon, DayVisitor, FoldedBatch, SourceHour

# A referrer's host named as a group: readers care where they came from, not which of
# an engine's many hosts sent them.
SEARCH_ENGINES = (
    "google.", "bing.com", "duckduckgo.com", "search.yahoo.", "yandex.", "baidu.com",
    "ecosia.org", "search.brave.com", "kagi.com", "qwant.com", "startpage.com",
)  # fmt: skip
# Web mail: a reader who followed a link in an e-mail (the newsletter's carry ?ref=).
WEB_MAIL = (
    "mail.google.com", "outlook.live.com", "outlook.office.com", "outlook.office365.com",
    "mail.yahoo.com", "mail.proton.me", "app.fastmail.com", "mail.aol.com", "webmail.",
)  # fmt: skip
# The fediverse's biggest instances and the hosts its software names itself in: a
# reader who came from a post. (Links in Skillo's own posts carry ?ref=fediverse.)
FEDIVERSE = (
    "mastodon.", "mstdn.", "fosstodon.org", "hachyderm.io", "infosec.exchange",
    "mas.to", "chaos.social", "toot.", "floss.social", "techhub.social",
    "ioc.exchange", "universeodon.com", "mastodon.online", "masto.ai", "lemmy.",
    "kbin.", "pixelfed.", "misskey.", "threads.net",
)  # fmt: skip
# The names of ?ref= channels (readership.beacons.VIA).
VIA_NAMES = {"newsletter": "Newsletter", "fediverse": "Fediverse"}
LOCK = 0x5E11_0FD5  # the PostgreSQL advisory lock that lets one fold run at a time


def one_of(host, names):
    """Whether ``host`` is one of ``names``: a host, a host's start ("mastodon.") or
    a domain it is under."""
    return any(host.startswith(name) or f".{name}" in f".{host}" for name in names)


def source_name(host, via=""):
    """Where a view came from, as editors read it: a channel or a group by name, else
    the referring site's host."""
    if via in VIA_NAMES:
        return VIA_NAMES[via]
    if not host:
        return "Direct"
    if host == urlsplit(settings.SKILLO_SITE_URL).hostname:
        return "Skillo"
    if one_of(host, WEB_MAIL):  # before the engines: mail.google.com is not a search
        return "E-mail"
    if one_of(host, SEARCH_ENGINES):
        return "Search engines"
    if one_of(host, FEDIVERSE):
        return "Fediverse"
    return host.removeprefix("www.")


def one_fold_at_a_time():
    # SQLite's transactions already take the write lock when they begin (IMMEDIATE).
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [LOCK])


def fold():
    """Fold every beacon received so far; returns how many were folded, or None when
    another fold (with Redis) holds the lock and folds them.

    With the default cache in Redis the beacons wait there (readership.beacons.RedisList):
    the fold takes them in one step, and they leave Redis only once their counts are
    committed. Call it outside any transaction (a task, a command): it commits its own."""
    waiting = beacons.redis_list()
    if waiting is None:
        with transaction.atomic():
            return fold_rows()
    with waiting.batch() as batch:
        if batch is None:  # another fold holds the lock: it folds what waits
            return None
        with transaction.atomic(durable=True):
            _, new = FoldedBatch.objects.get_or_create(name=batch.name)
            # A batch already folded, whose delete from Redis failed after the commit:
            # its counts are in; only the table's rows, if any, are folded.
            folded = fold_rows(batch.rows if new else ())
            batch.still_ours()
        FoldedBatch.objects.filter(at__lt=timezone.now() - timedelta(days=1)).delete()
    return folded


def fold_rows(taken=()):
    """Fold ``taken`` (beacons from Redis, as readership.beacons.loads reads them) and the
    beacons written to the table so far, deleting those; in the caller's transaction."""
    one_fold_at_a_time()
    rows = list(taken)
    last = Beacon.objects.aggregate(last=Max("id"))["last"]
    if last is None and not rows:
        return 0
    if last is not None:  # with Redis, only what was written before it was the buffer
        written = Beacon.objects.filter(id__lte=last)
        rows += written.values_list("path", "referrer_host", "via", "visitor", "at").iterator(2000)
    slugs = {path: resolve(path).kwargs.get("slug") for path in {row[0] for row in rows}}
    articles = dict(
        Article.objects.published()
        .filter(slug__in={slug for slug in slugs.values() if slug})
        .values_list("slug", "id")
    )
    views, sources = Counter(), Counter()
    first_hour = {}  # (day, article, visitor): the hour of their first view in this fold
    for path, host, via, visitor, at in rows:
        article = articles.get(slugs[path])
        if article is None:  # a draft, or an article gone since
            continue
        hour = at.replace(minute=0, second=0, microsecond=0)
        views[article, hour] += 1
        sources[article, hour, source_name(host, via)] += 1
        if visitor:
            key = (timezone.localdate(at), article, visitor)
            first_hour[key] = min(first_hour.get(key, hour), hour)
    visitors = Counter()
    for (_day, article, _visitor), hour in new_visitors(first_hour).items():
        visitors[article, hour] += 1
    add_counts(views, visitors)
    add_sources(sources)
    if last is not None:
        written.delete()
    return len(rows)


def new_visitors(first_hour):
    """Those of the fold's visitors not already seen that day on that article, recorded
    as seen. One query per 500 visitors, however many articles they read."""
    days = {day for day, _, _ in first_hour}
    articles = {article for _, article, _ in first_hour}
    hashes = sorted({visitor for _, _, visitor in first_hour})
    seen = set()
    for start in range(0, len(hashes), 500):
        seen.update(
            DayVisitor.objects.filter(
                day__in=days, article_id__in=articles, visitor__in=hashes[start : start + 500]
            ).values_list("day", "article_id", "visitor")
        )
    new = {key: hour for key, hour in first_hour.items() if key not in seen}
    DayVisitor.objects.bulk_create(
        [DayVisitor(day=day, article_id=article, visitor=v) for day, article, v in new],
        batch_size=1000,
    )
    return new


def add_counts(views, visitors):
    keys = set(views) | set(visitors)
    existing = {
        (row.article_id, row.hour): row
        for row in ArticleHour.objects.filter(
            article_id__in={article for article, _ in keys}, hour__in={hour for _, hour in keys}
        )
    }
    rows = []
    for article, hour in keys:
        row = existing.get((article, hour)) or ArticleHour(article_id=article, hour=hour)
        row.views += views[article, hour]
        row.visitors += visitors[article, hour]
        rows.append(row)
    ArticleHour.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["article", "hour"],
        update_fields=["views", "visitors"],
    )


def add_sources(sources):
    existing = {
        (row.article_id, row.hour, row.source): row
        for row in SourceHour.objects.filter(
            article_id__in={key[0] for key in sources}, hour__in={key[1] for key in sources}
        )
    }
    rows = []
    for (article, hour, source), count in sources.items():
        row = existing.get((article, hour, source)) or SourceHour(
            article_id=article, hour=hour, source=source
        )
        row.views += count
        rows.append(row)
    SourceHour.objects.bulk_create(
        rows,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["article", "hour", "source"],
        update_fields=["views"],
    )
