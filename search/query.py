"""Full-text search over published articles: PostgreSQL's text search or SQLite's FTS5.

Both index the title (most weight), the summary, the tags and sources, and the body's
plain text. The index lives outside the Django model (a tsvector column kept by a
trigger on PostgreSQL, an FTS5 table kept by triggers on SQLite), created by this app's
migrations (search/migrations).
"""

import html
import re

from django.db import connection
from django.db.models import F, prefetch_related_objects
from django.db.models import Value as V
from django.db.models.expressions import RawSQL
from django.db.models.functions import Replace
from django.utils.html import escape
from django.utils.safestring import mark_safe

from news.models import Article

MAX_QUERY_LENGTH = 200
MAX_TERMS = 12
START, STOP = "\x02", "\x03"  # highlight markers, turned into <mark> after escaping
FTS_TABLE = "news_article_fts"


def terms(query):
    """The words of a reader's query; operators, quotes and symbols are dropped."""
    return re.findall(r"\w+", (query or "")[:MAX_QUERY_LENGTH])[:MAX_TERMS]


def search(query):
    """Published articles matching every word of ``query``, best first, each with
    ``rank`` and ``headline`` (the best passage, highlighted with START/STOP markers)."""
    words = terms(query)
    articles = Article.objects.published()
    if not words:
        return articles.none()
    if connection.vendor == "postgresql":
        return PostgresResults(_search_postgresql(articles, words).prefetch_related("tags"))
    return SQLiteResults(articles, words)


def _search_postgresql(articles, words):
    from django.contrib.postgres.search import (
        SearchHeadline,
        SearchQuery,
        SearchRank,
        SearchVectorField,
    )

    query = SearchQuery(" ".join(words), search_type="plain", config="english")
    vector = RawSQL('"news_article"."search_vector"', [], output_field=SearchVectorField())
    return (
        articles.alias(search_vector=vector)
        .filter(search_vector=query)
        .annotate(
            rank=SearchRank(F("search_vector"), query),
            # ts_headline drops anything shaped like an HTML tag, so it is given escaped
            # text (PostgresResults unescapes it): "<label>" in an article stays visible.
            headline=SearchHeadline(
                Replace(Replace(Replace(F("body_text"), V("&"), V("&amp;")), V("<"), V("&lt;")),
                        V(">"), V("&gt;")),
                query, config="english", start_sel=START, stop_sel=STOP,
                max_words=35, min_words=15,
            ),
        )
        .order_by("-rank", "-published_at", "-pk")
    )  # fmt: skip


class PostgresResults:
    """The ranked queryset, with each headline's escaping undone."""

    def __init__(self, queryset):
        self.queryset = queryset

    def count(self):
        return self.queryset.count()

    def __len__(self):
        return self.count()

    def __getitem__(self, page):
        if not isinstance(page, slice):
            return self[page : page + 1][0]
        articles = list(self.queryset[page])
        for article in articles:
            article.headline = html.unescape(article.headline or "")
        return articles

    def __iter__(self):
        return iter(self[:])


class SQLiteResults:
    """Ranked FTS5 matches among published articles, sliceable for Django's Paginator.

    The matches are materialised first (FTS5 ranks them all in one pass) and only then
    narrowed to published articles. Letting SQLite plan a plain join instead made it run
    the full-text match once per article: 300 times slower for a common word.
    """

    def __init__(self, articles, words):
        self.match = " ".join(f'"{word}"' for word in words)
        # The WHERE clause of published(), compiled: the rule stays written once.
        compiler = articles.query.get_compiler(connection=connection)
        public_sql, public_params = compiler.compile(articles.query.where)
        self.hits = (
            f"WITH hits AS MATERIALIZED (SELECT rowid AS id, {{rank}} AS r FROM {FTS_TABLE} "
            f"WHERE {FTS_TABLE} MATCH %s), "
            "public_hits AS MATERIALIZED (SELECT hits.* FROM hits "
            f"JOIN news_article ON news_article.id = hits.id WHERE {public_sql})"
        )
        self.params = [self.match, *public_params]
        self._count = None

    def count(self):
        if self._count is None:
            with connection.cursor() as cursor:
                # Counting needs no ranking, which is most of the cost on common words.
                hits = self.hits.format(rank="0")
                cursor.execute(f"{hits} SELECT count(*) FROM public_hits", self.params)
                self._count = cursor.fetchone()[0]
        return self._count

    def __len__(self):
        return self.count()

    def __getitem__(self, page):
        if not isinstance(page, slice):
            return self[page : page + 1][0]
        start, stop = page.start or 0, page.stop
        limit = (stop - start) if stop is not None else -1
        # The snippet needs the full-text match again, but only for this page's rows.
        sql = f"""{self.hits.format(rank="rank")},
            page AS MATERIALIZED (
                SELECT public_hits.id, public_hits.r, news_article.published_at
                FROM public_hits JOIN news_article ON news_article.id = public_hits.id
                ORDER BY public_hits.r, news_article.published_at DESC, news_article.id DESC
                LIMIT %s OFFSET %s)
            SELECT news_article.*, -page.r AS rank,
                snippet({FTS_TABLE}, 3, char(2), char(3), '…', 30) AS headline
            FROM page
            JOIN news_article ON news_article.id = page.id
            JOIN {FTS_TABLE} ON {FTS_TABLE}.rowid = page.id
            WHERE {FTS_TABLE} MATCH %s
            ORDER BY page.r, page.published_at DESC, page.id DESC"""
        page_articles = list(Article.objects.raw(sql, [*self.params, limit, start, self.match]))
        prefetch_related_objects(page_articles, "tags")
        return page_articles

    def __iter__(self):
        return iter(self[:])


def highlight(headline):
    """Escape a headline and turn its markers into <mark> elements."""
    return mark_safe(escape(headline or "").replace(START, "<mark>").replace(STOP, "</mark>"))
