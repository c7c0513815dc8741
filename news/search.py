"""Full-text search over published articles: PostgreSQL's text search or SQLite's FTS5.

Both index the title (most weight), the summary, the tags and sources, and the body's
plain text. The index lives outside the Django model (a tsvector column kept by a
trigger on PostgreSQL, an FTS5 table kept by triggers on SQLite) and is (re)installed
after every migrate, so that it survives SQLite's table rebuilds.
"""

import re

from django.db import connection, connections
from django.db.models import F
from django.db.models.expressions import RawSQL
from django.utils.html import escape
from django.utils.safestring import mark_safe

from .models import Article

MAX_QUERY_LENGTH = 200
MAX_TERMS = 12
START, STOP = "\x02", "\x03"  # highlight markers, turned into <mark> after escaping
FTS_TABLE = "news_article_fts"
COLUMNS = ("title", "summary", "search_extra", "body_text")

SQLITE_INSTALL = [
    f"""CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(
        title, summary, search_extra, body_text,
        content='news_article', content_rowid='id',
        tokenize='porter unicode61 remove_diacritics 2')""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_insert AFTER INSERT ON news_article BEGIN
        INSERT INTO {FTS_TABLE}(rowid, title, summary, search_extra, body_text)
        VALUES (new.id, new.title, new.summary, new.search_extra, new.body_text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_delete AFTER DELETE ON news_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, search_extra, body_text)
        VALUES ('delete', old.id, old.title, old.summary, old.search_extra, old.body_text);
    END""",
    f"""CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_update AFTER UPDATE ON news_article BEGIN
        INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, title, summary, search_extra, body_text)
        VALUES ('delete', old.id, old.title, old.summary, old.search_extra, old.body_text);
        INSERT INTO {FTS_TABLE}(rowid, title, summary, search_extra, body_text)
        VALUES (new.id, new.title, new.summary, new.search_extra, new.body_text);
    END""",
    f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')",
]

POSTGRES_INSTALL = [
    "ALTER TABLE news_article ADD COLUMN IF NOT EXISTS search_vector tsvector",
    """CREATE OR REPLACE FUNCTION news_article_search_vector() RETURNS trigger AS $$
    BEGIN
        NEW.search_vector :=
            setweight(to_tsvector('english', coalesce(NEW.title, '')), 'A') ||
            setweight(to_tsvector('english', coalesce(NEW.summary, '')), 'B') ||
            setweight(to_tsvector('english', coalesce(NEW.search_extra, '')), 'C') ||
            setweight(to_tsvector('english', coalesce(NEW.body_text, '')), 'D');
        RETURN NEW;
    END $$ LANGUAGE plpgsql""",
    """CREATE OR REPLACE TRIGGER news_article_search_vector
        BEFORE INSERT OR UPDATE OF title, summary, search_extra, body_text ON news_article
        FOR EACH ROW EXECUTE FUNCTION news_article_search_vector()""",
    """CREATE INDEX IF NOT EXISTS news_article_search_vector_gin
        ON news_article USING gin (search_vector)""",
    "UPDATE news_article SET title = title WHERE search_vector IS NULL",
]


def install(using="default", **kwargs):
    """Create or repair the search index; safe to run any number of times."""
    db = connections[using]
    statements = {"sqlite": SQLITE_INSTALL, "postgresql": POSTGRES_INSTALL}.get(db.vendor)
    if statements is None:
        return
    with db.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


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
        return _search_postgresql(articles, words)
    return _search_sqlite(articles, words)


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
            headline=SearchHeadline(
                "body_text", query, config="english", start_sel=START, stop_sel=STOP,
                max_words=35, min_words=15,
            ),
        )
        .order_by("-rank", "-published_at", "-pk")
    )  # fmt: skip


def _search_sqlite(articles, words):
    match = " ".join(f'"{word}"' for word in words)
    matching = f"FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s"
    correlated = f"{matching} AND rowid = news_article.id"
    return (
        articles.filter(pk__in=RawSQL(f"SELECT rowid {matching}", [match]))
        .annotate(
            rank=RawSQL(f"(SELECT -bm25({FTS_TABLE}, 10.0, 5.0, 3.0, 1.0) {correlated})", [match]),
            headline=RawSQL(
                f"(SELECT snippet({FTS_TABLE}, 3, char(2), char(3), '…', 30) {correlated})",
                [match],
            ),
        )
        .order_by("-rank", "-published_at", "-pk")
    )  # fmt: skip


def highlight(headline):
    """Escape a headline and turn its markers into <mark> elements."""
    return mark_safe(escape(headline or "").replace(START, "<mark>").replace(STOP, "</mark>"))
