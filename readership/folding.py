"""Beacons folded into counts (a periodic task, and `manage.py readership` first): per
article and hour, views (at most one per visitor, article and hour) and visitors (a
visitor counted once a day per article, in the hour of their first view) and views per
source (the source of each view counted). The beacons folded are deleted in the
same transaction, so raw views are never kept past the minute or so that folds them."""

from collections import Counter, defaultdict
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
# More beacons than this from one visitor (an address and a browser) within a minute are
# a script's: a reader who opens a page a second for a minute is already far past what
# reading is. Such a visitor's views count nowhere, nor their later views that day of the
# articles it sent them for.
PERSON_PER_MINUTE = 60


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
    rows.sort(key=lambda row: row[4])  # a visitor's first view of an hour is the one counted
    slugs = {path: resolve(path).kwargs.get("slug") for path in {row[0] for row in rows}}
    articles = dict(
        Article.objects.published()
        .filter(slug__in={slug for slug in slugs.values() if slug})
        .values_list("slug", "id")
    )
    scripts = faster_than_a_person(rows)
    views, sources = Counter(), Counter()
    # (day, article, visitor): {hour: the source of their first view in it}
    seen = defaultdict(dict)
    for path, host, via, visitor, at in rows:
        article = articles.get(slugs[path])
        if article is None:  # a draft, or an article gone since
            continue
        hour = at.replace(minute=0, second=0, microsecond=0)
        if not visitor:  # Sec-GPC: no hash, so every view counts, and never as a reader
            views[article, hour] += 1
            sources[article, hour, source_name(host, via)] += 1
            continue
        seen[timezone.localdate(at), article, visitor].setdefault(hour, source_name(host, via))
    visitors = Counter()
    for (_day, article, _visitor), hours, new_reader in new_views(seen, scripts):
        for hour, source in hours.items():
            views[article, hour] += 1
            sources[article, hour, source] += 1
        if new_reader:
            visitors[article, min(hours)] += 1
    add_counts(views, visitors)
    add_sources(sources)
    if last is not None:
        written.delete()
    return len(rows)


def faster_than_a_person(rows):
    """The visitors of ``rows`` (sorted by time) who sent more than PERSON_PER_MINUTE
    beacons within a minute: a script, whatever its headers say."""
    times = defaultdict(list)
    for *_, visitor, at in rows:
        if visitor:
            times[visitor].append(at)
    scripts = set()
    for visitor, ats in times.items():
        if len(ats) <= PERSON_PER_MINUTE:
            continue
        first = 0
        for n, at in enumerate(ats):
            while at - ats[first] >= timedelta(minutes=1):
                first += 1
            if n - first >= PERSON_PER_MINUTE:
                scripts.add(visitor)
                break
    return scripts


def hour_bit(hour):
    # A visitor's hash is a day's, and a day is at most 25 hours: 48 bits tell them apart.
    return 1 << (int(hour.timestamp()) // 3600 % 48)


EVERY_HOUR = (1 << 48) - 1


def new_views(seen, scripts):
    """(key, {hour: source}, new reader) for each (day, article, visitor) key of ``seen``:
    the hours in which that visitor had no view of that article counted yet, and whether
    it is their first view of it that day. Recorded as counted (DayVisitor.hours). A
    visitor of ``scripts`` counts nothing, and nothing more on those articles that day.
    One query per 500 visitors to read, however many articles they read."""
    days = {day for day, _, _ in seen}
    articles = {article for _, article, _ in seen}
    hashes = sorted({visitor for _, _, visitor in seen})
    counted = {}
    for start in range(0, len(hashes), 500):
        counted.update(
            ((day, article, visitor), hours)
            for day, article, visitor, hours in DayVisitor.objects.filter(
                day__in=days, article_id__in=articles, visitor__in=hashes[start : start + 500]
            ).values_list("day", "article_id", "visitor", "hours")
        )
    found, recorded = [], []
    for key, hours in seen.items():
        before = counted.get(key, 0)
        if key[2] in scripts:
            after = EVERY_HOUR
        else:
            hours = {hour: source for hour, source in hours.items() if not before & hour_bit(hour)}
            after = before
            for hour in hours:
                after |= hour_bit(hour)
            if hours:
                found.append((key, hours, key not in counted))
        if after != before or key not in counted:
            day, article, visitor = key
            recorded.append(DayVisitor(day=day, article_id=article, visitor=visitor, hours=after))
    DayVisitor.objects.bulk_create(
        recorded,
        batch_size=1000,
        update_conflicts=True,
        unique_fields=["day", "article", "visitor"],
        update_fields=["hours"],
    )
    return found


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
