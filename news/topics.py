"""Site-wide facts every page needs, counted once per change rather than per request.

Counting each topic's published articles reads every tagging (a quarter of a second on
SQLite at 100,000 articles); the list of months with articles reads every article. Both
are kept in the cache until a publication or a topic change purges them (news.purge
purges TOPICS and LATEST), so the header, the topic pages and the archive pages cost no
such scan.
"""

from array import array
from bisect import bisect_left
from collections.abc import Mapping, Sequence

from django.db.models import Count, Max
from django.http import Http404
from django.utils.functional import cached_property

from pagecache.remembered import remember

from .dependencies import FEEDS, LATEST, TOPICS
from .models import Article, Tag, TaggedArticle
from .rules import MAX_HEADER_TOPICS

MAIN_TOPICS_COUNT = 6


# The cache keys of topic rows name their shape, (id, name, slug, count[, intro]): a
# shared cache outlives a deploy, and rows of another shape must not be read as these.
ROWS = "topics:rows"


def _topic(row):
    pk, name, slug, count, *intro = row
    tag = Tag(pk=pk, name=name, slug=slug, intro=intro[0] if intro else "")
    tag.article_count = count
    return tag


def _per_topic(aggregate):
    """{tag id: ``aggregate``} over the published articles of every topic that has any."""
    return dict(
        TaggedArticle.objects.filter(content_object__in=Article.objects.published())
        .values("tag")
        .annotate(value=aggregate)
        .order_by()
        .values_list("tag", "value")
    )


def _published_counts():
    """{tag id: published articles} for every topic with any.

    Every topic's taggings are counted from the tag index alone, less those of the
    articles the public cannot see (drafts, articles in review, scheduled ones), which
    are few and found by the index on status. Counting only the published articles'
    taggings joined each of them to its article, several times slower on either
    database.
    """

    def by_tag(taggings):
        return taggings.values("tag").annotate(n=Count("*")).order_by().values_list("tag", "n")

    counts = dict(by_tag(TaggedArticle.objects.all()))
    hidden = Article.objects.not_public()
    for tag, n in by_tag(TaggedArticle.objects.filter(content_object__in=hidden)):
        counts[tag] -= n
    return {tag: n for tag, n in counts.items() if n}


def _count_topics():
    """(id, name, slug, published articles) of every topic with any, by name.

    The counts come from the tag index (_published_counts()), and the names from the
    tags: grouped by every column of a join of tags, taggings and articles, as it was, the
    same count took many times as long.
    """
    counts = _published_counts()
    return [
        (pk, name, slug, counts[pk])
        for pk, name, slug in Tag.objects.order_by("name").values_list("pk", "name", "slug")
        if pk in counts
    ]


class Topics(Sequence):
    """Topics made into Tag objects only when read: a page of the topic index or of the
    sitemap reads a slice of thousands. The rows themselves are read from the cache
    only when first needed (the sitemap index asks for a paginator it never reads)."""

    def __init__(self, read_rows):
        self._read_rows = read_rows

    @cached_property
    def rows(self):
        return self._read_rows()

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [_topic(row) for row in self.rows[index]]
        return _topic(self.rows[index])


def topic_latest_changes():
    """{tag id: the latest change among its published articles}, for the topics' sitemap
    alone: reading every tagged article's row for it took longer than the counts."""
    # FEEDS as well: an edit changes an article's updated_at but no topic's membership.
    return remember(
        "topics:latest-changes",
        [TOPICS(), FEEDS()],
        lambda: _per_topic(Max("content_object__updated_at")),
    )


def all_topics():
    """Every topic with a published article, by name, each with ``article_count``."""
    return Topics(lambda: remember(ROWS, [TOPICS()], _count_topics))


def topic_count():
    """How many topics have a published article, without reading their rows out of the
    cache (a few ms at 5,000 topics)."""
    return remember("topics:count", [TOPICS()], lambda: len(all_topics()))


class TopicIndex(Sequence):
    """all_topics() for the topic index, as (id, name, slug, article count) rows: counted
    and sliced into pages without reading every topic's row out of the cache or making a
    Tag of each of a page's 200. A page reads its rows only to write out its entries,
    which are kept (templatetags.news.topic_index_items)."""

    def __len__(self):
        return topic_count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            raise TypeError("The topic index is read a page at a time.")
        return _IndexPage(index, len(range(len(self))[index]))


class _IndexPage(Sequence):
    def __init__(self, index, length):
        self.index, self.length = index, length

    @cached_property
    def rows(self):
        return all_topics().rows[self.index]

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        return self.rows[index]


class TopicSizes(Mapping):
    """{tag id: published articles} over two arrays sorted by id: an article page reads
    the sizes of its few topics, and unpickling every topic's row (or a dict of them)
    for those cost far more than these arrays."""

    def __init__(self, ids, counts):
        self.ids, self.counts = ids, counts

    def __getitem__(self, pk):
        at = bisect_left(self.ids, pk)
        if at == len(self.ids) or self.ids[at] != pk:
            raise KeyError(pk)
        return self.counts[at]

    def __iter__(self):
        return iter(self.ids)

    def __len__(self):
        return len(self.ids)


def topic_sizes():
    """{tag id: published articles} for every topic with any."""

    def sizes():
        rows = sorted((row[0], row[3]) for row in remember(ROWS, [TOPICS()], _count_topics))
        return TopicSizes(array("q", (pk for pk, _ in rows)), array("q", (n for _, n in rows)))

    return remember("topics:sizes", [TOPICS()], sizes)


def biggest_topics(count):
    """The ``count`` topics with the most published articles, biggest first."""
    rows = remember(ROWS, [TOPICS()], _count_topics)
    return [_topic(row) for row in sorted(rows, key=lambda row: (-row[3], row[1]))[:count]]


def main_topics():
    """The site header's topics: those the editors chose, in their order (public ones
    only), or else the biggest."""

    def biggest():
        rows = remember(ROWS, [TOPICS()], _count_topics)
        chosen = list(
            Tag.objects.filter(header_position__isnull=False)
            .order_by("header_position", "name")
            .values_list("pk", flat=True)[:MAX_HEADER_TOPICS]
        )
        if chosen:
            by_pk = {row[0]: row for row in rows}
            return [by_pk[pk] for pk in chosen if pk in by_pk]
        return sorted(rows, key=lambda row: (-row[3], row[1]))[:MAIN_TOPICS_COUNT]

    return [_topic(row) for row in remember("topics:header-rows", [TOPICS()], biggest)]


def get_topic_or_404(slug):
    def find():
        tag = Tag.objects.filter(slug=slug).values_list("pk", "name", "slug", "intro").first()
        if tag is None:
            return None
        pk, name, tag_slug, intro = tag
        # From every topic's count, which the header's topics need anyway: counting
        # this one's published articles through a join took 76 ms for the biggest topic
        # at 100,000 articles.
        count = topic_sizes().get(pk, 0)
        return (pk, name, tag_slug, count, intro) if count else None

    row = remember(f"topics:row:{slug}", [TOPICS()], find)
    if row is None:
        raise Http404("No such topic.")
    return _topic(row)


def archive_months():
    """{year: {first day of each month with published articles: how many}}, years and
    months ascending."""

    def months():
        # The published articles counted by event date (a few thousand days for decades
        # of news), read from the index on (status, event date, ...), and cut to months
        # here: SQLite truncates dates in a Python function called for every article.
        days = (
            Article.objects.published()
            .order_by("event_date")
            .values_list("event_date")
            .annotate(count=Count("pk"))
        )
        by_year = {}
        for day, count in days:
            month = by_year.setdefault(day.year, {})
            first = day.replace(day=1)
            month[first] = month.get(first, 0) + count
        return by_year

    return remember("archive:month-counts", [LATEST()], months)
