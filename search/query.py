"""Full-text search over published articles: PostgreSQL's text search or SQLite's FTS5.

Both index the title (most weight), the summary, the tags and sources, and the body's
plain text. The index lives outside the Django model (a tsvector column kept by a
trigger on PostgreSQL, an FTS5 table kept by triggers on SQLite), created by this app's
migrations (search/migrations).

What keeps a search fast at 100,000 articles, whatever the words: no query ranks or
counts every match.

- Only the newest ``RANK_WINDOW`` matches are ranked (found by walking the articles
  newest first, through the index on status and publication time, so a common word stops
  after a few hundred rows); past them the results go on newest first. Readers looking
  for a common word want the recent articles about it; a rare word has fewer matches
  than the window, and then every match is ranked.
- Matches are counted up to ``EXACT_COUNT``; past that the count is an estimate ("about
  N results"), from how far back through the article ids the first matches reach.
"""

import html
import re
from dataclasses import dataclass, field

from django.db import connection, connections
from django.db.models import prefetch_related_objects
from django.utils.html import escape
from django.utils.safestring import mark_safe

from news.models import Article, with_topics

MAX_QUERY_LENGTH = 200
MAX_TERMS = 12
START, STOP = "\x02", "\x03"  # highlight markers, turned into <mark> after escaping
FTS_TABLE = "news_article_fts"
FTS_VOCAB = "news_article_fts_vocab"
# The words a prefix stands for, at most (see SQLiteEngine).
MAX_EXPANSION = 20
RANK_WINDOW = 100
# Counting stops here: past it, the count is an estimate. Kept low since a word found in
# a few percent of articles is counted by walking articles newest first, and PostgreSQL
# reads each one's tsvector: 100 matches at 3% is 3,300 articles (docs/benchmarks.md has
# what 100 and 300 cost).
EXACT_COUNT = 100
# A shorter prefix matches so many words that merging them costs more than it helps.
MIN_PREFIX = 3
# Past this share of matching articles, SQLite checks articles one by one, newest first,
# rather than listing every match first (see SQLiteEngine.newest): RANK_WINDOW / DENSE
# lookups at most, and listing a phrase's matches means checking it in every article.
DENSE = 0.2
# Relevance is divided by (1 + age in days / RECENCY_DAYS): an article a year old needs
# twice the relevance of today's to rank above it.
RECENCY_DAYS = 365
# Both tokenizers drop the "++" of C++ and the "#" of C#, so both read "c": an article
# whose title or text has a query's word as typed, punctuation and all, counts this many
# times more, so that the exact form ranks first and "C" alone only after it.
AS_TYPED = 1000

# A quoted phrase, or a run of anything else up to a space or a quote, typed as written:
# each engine's own tokenizer reads it as it reads the articles, so "Node.js", "C++" or
# "HTTP/3" find what PostgreSQL's parser (node.js, http/3) or FTS5's (node js, http 3)
# made of the same text. A minus excludes only at the start or after a space: inside a
# word ("free-threaded") it is a hyphen. A star right after a word marks it a prefix, as
# in FTS5's and most search boxes' syntax (``pyth*``); the last word is one anyway.
TOKEN = re.compile(r'((?<!\S)-)?(?:"([^"]*)"?|([^\s"]+))')
WORD = re.compile(r"\w+")
# Something a tokenizer keeps: a letter or digit (FTS5 reads "_" as a space).
SEARCHABLE = re.compile(r"[^\W_]")
HYPHEN = re.compile(r"(?<=\w)-+(?=\w)")
# What a tokenizer drops from inside or around a word ("C++", ".NET", "HTTP/3").
PUNCTUATION = re.compile(r"[^\w\s-]")
QUOTES = re.compile(r"['\\]")


@dataclass
class Query:
    """A reader's query: what must match, what must not, and whether the last word is
    a prefix. Each item is a tuple of words: one word, or a phrase. ``forms`` and
    ``excluded_forms`` hold, item by item, the texts an engine matches, any of which
    will do: the item as typed, and for a hyphenated word its spaced and joined forms
    too."""

    include: list = field(default_factory=list)
    exclude: list = field(default_factory=list)
    prefix: bool = False
    # Where each word of ``include`` is in the text, as (start, end), item by item: a
    # suggestion (search.suggest) puts its words in their places and keeps the rest.
    spans: list = field(default_factory=list, compare=False)
    forms: list = field(default_factory=list, compare=False)
    excluded_forms: list = field(default_factory=list, compare=False)

    def __bool__(self):
        # Exclusions alone would list nearly every article: not a search.
        return bool(self.include)


def forms(text):
    """The texts that stand for ``text``: ``free-threaded`` is also written ``free
    threaded`` and ``freethreaded``."""
    found = [text]
    if HYPHEN.search(text):
        found += [HYPHEN.sub(" ", text), HYPHEN.sub("", text)]
    return tuple(dict.fromkeys(found))


def parse(text):
    """``"a phrase"``, ``-word`` (or ``-"a phrase"``) to exclude, words as typed; the
    last plain word, if the query ends with it (or with it and a ``*``), is also a
    prefix (``postgres`` finds PostgreSQL). Spaces and quotes separate words."""
    query = Query()
    text = (text or "")[:MAX_QUERY_LENGTH]
    last_end, last_was_word = 0, False
    for match in TOKEN.finditer(text):
        if len(query.include) + len(query.exclude) == MAX_TERMS:
            break
        minus, _phrase, word = match.groups()
        group = 2 if word is None else 3
        typed = match[group]
        if word is not None:
            typed = typed.rstrip("*")
        if not SEARCHABLE.search(typed):
            continue
        found = list(WORD.finditer(typed))
        words = tuple(each[0] for each in found)
        start = match.start(group)
        spans = tuple((start + each.start(), start + each.end()) for each in found)
        negative = bool(minus)
        (query.exclude if negative else query.include).append(words)
        (query.excluded_forms if negative else query.forms).append(forms(typed))
        if not negative:
            query.spans.append(spans)
        plain = word is not None and WORD.fullmatch(typed) is not None
        last_was_word = plain and not negative
        last_end = match.end()
    query.prefix = (
        last_was_word and last_end == len(text.rstrip()) and len(query.include[-1][0]) >= MIN_PREFIX
    )
    return query


def terms(query):
    """The words a reader's query looks for (for highlighting and tests)."""
    return [word for words in parse(query).include for word in words]


def search(query):
    """Published articles matching ``query``, best first, each with ``rank`` and
    ``headline`` (the best passage, highlighted with START/STOP markers). ``count()``
    is exact up to EXACT_COUNT, then an estimate (``approximate`` says so)."""
    parsed = parse(query)
    articles = Article.objects.published()
    if not parsed:
        return articles.none()
    engine = PostgresEngine if connection.vendor == "postgresql" else SQLiteEngine
    return Results(engine(parsed), articles)


def as_typed(query, columns, find):
    """SQL for AS_TYPED when one of ``columns`` (the title, the text) has one of the
    query's words with punctuation as typed, else 1, and its parameters; ``find`` is the
    database's strpos()."""
    typed = [texts[0].lower() for texts in query.forms if PUNCTUATION.search(texts[0])]
    if not typed:
        return "1", []
    checks = [(f"{find}(lower({column}), %s) > 0", word) for word in typed for column in columns]
    found = " OR ".join(sql for sql, _ in checks)
    return f"(CASE WHEN {found} THEN {AS_TYPED} ELSE 1 END)", [word for _, word in checks]


def _quote_fts(text):
    # FTS5 strings: a doubled quote stands for itself (a query's texts hold none, but be
    # exact). FTS5 reads the string with the index's tokenizer.
    return '"' + text.replace('"', '""') + '"'


def _any_fts(texts):
    return texts and "(" + " OR ".join(map(_quote_fts, texts)) + ")"


class SQLiteEngine:
    """FTS5: the match expression, bm25 for the rank, snippet() for the passage."""

    def __init__(self, query):
        self.as_typed = as_typed(query, [f"{FTS_TABLE}.title", f"{FTS_TABLE}.body_text"], "instr")
        include = [_any_fts(texts) for texts in query.forms]
        exclude = ""
        if query.exclude:
            excluded = [text for texts in query.excluded_forms for text in texts]
            exclude = f" NOT {_any_fts(excluded)}"
        if not query.prefix:
            self.match = f"({' AND '.join(include)}){exclude}"
            self.expression, self.expression_params = "%s", [self.match]
            return
        # FTS5 answers a prefix query ("word" *) by merging the lists of every word
        # starting so, whole, each time it is asked, even for one article: too slow to
        # ask once per article. So the prefix becomes the words themselves, read from
        # the index's vocabulary (in the count's query, which hands the expression back
        # for the page's): "postgres" OR "postgresql".
        prefix = query.include[-1][0].lower()
        head = "".join(f"{words} AND " for words in include[:-1])
        self.match = None
        self.expression = (
            "%s || coalesce((SELECT group_concat(' OR \"' || term || '\"' "
            # The index holds stems, and a query's words are stemmed again: a stem
            # ending in one s would lose it ("releas"), so it is given as a prefix.
            "|| CASE WHEN term GLOB '*[^s]s' THEN ' *' ELSE '' END, '') FROM "
            f"(SELECT term FROM {FTS_VOCAB} WHERE term >= %s AND term < %s "
            f"LIMIT {MAX_EXPANSION})), '') || %s"
        )
        upper = prefix[:-1] + chr(ord(prefix[-1]) + 1)
        # The word as typed stays too: its stem may be shorter than the word.
        self.expression_params = [f"({head}({include[-1]}", prefix, upper, f")){exclude}"]

    def count_sql(self, public, limit):
        """The newest ``limit`` matching ids, by id: FTS5 hands out its matches by id,
        highest first, and stops there. Also hands back the match expression."""
        public_sql, public_params = public
        return (
            f"""WITH expanded AS MATERIALIZED (SELECT {self.expression} AS expression)
            SELECT count(*), min(id),
                (SELECT max(id) FROM news_article), (SELECT min(id) FROM news_article),
                (SELECT expression FROM expanded)
            FROM (SELECT news_article.id FROM
                (SELECT rowid AS id FROM {FTS_TABLE}
                 WHERE {FTS_TABLE} MATCH (SELECT expression FROM expanded)) AS hit
                CROSS JOIN news_article ON news_article.id = hit.id
                WHERE {public_sql} ORDER BY hit.id DESC LIMIT {int(limit)}) AS first""",
            [*self.expression_params, *public_params],
        )

    def newest(self, public, count, density):
        """Matches, newest first.

        SQLite's own plan (every match, then sorted by date) suits a few hundred matches.
        For more, the articles are walked newest first through the index on (status,
        published_at) until enough match: checked against the list of every match, or,
        when most articles match and building that list is the bigger cost, looked up
        in the full-text index one by one.
        """
        public_sql, public_params = public
        source = "news_article"
        if count > EXACT_COUNT:
            source += " INDEXED BY article_status_published"
        # A prefix left in the expression ("releas" *) is merged whole at each lookup.
        if density >= DENSE and " *" not in self.match:
            condition = (
                f"EXISTS (SELECT 1 FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s "
                f"AND {FTS_TABLE}.rowid = news_article.id)"
            )
        else:
            condition = (
                f"news_article.id IN (SELECT rowid FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH %s)"
            )
        return (
            f"SELECT news_article.id, news_article.published_at FROM {source} "
            f"WHERE {public_sql} AND {condition}",
            [*public_params, self.match],
        )

    def ranked(self, window_sql, window_params):
        """(id, score, published_at) of the window's articles.

        bm25 works out each word's document count again on every MATCH it runs: looking
        the window's articles up one by one would do that once per article, as slow as
        ranking every match. So one MATCH runs over the id range the window spans (one
        seek in the index), and keeps the window's articles.

        It ranks by the words alone: bm25 counts a phrase's documents by finding the
        phrase in every article, and every article in the window has the phrase anyway.
        The exclusions, which no article in the window has, are left out too.
        """
        words = re.sub(
            r'"([^"]*)"',
            lambda quoted: " ".join(f'"{word}"' for word in quoted[1].split()),
            self.match.split(" NOT (")[0],
        )
        return (
            f"""WITH recent AS MATERIALIZED ({window_sql})
            SELECT {FTS_TABLE}.rowid AS id, -bm25({FTS_TABLE}, 10.0, 5.0, 3.0, 1.0)
                * {self.as_typed[0]}
                / (1 + (julianday('now') - julianday(recent.published_at)) / {RECENCY_DAYS})
                AS score, recent.published_at
            FROM {FTS_TABLE} CROSS JOIN recent ON recent.id = {FTS_TABLE}.rowid
            WHERE {FTS_TABLE} MATCH %s AND {FTS_TABLE}.rowid
                BETWEEN (SELECT min(id) FROM recent) AND (SELECT max(id) FROM recent)""",
            [*window_params, *self.as_typed[1], words],
        )

    def articles(self, page_sql, page_params):
        """The page's articles with their passage, in the page's order."""
        return (
            f"""SELECT news_article.*, page.score AS rank,
                snippet({FTS_TABLE}, 3, char(2), char(3), '…', 30) AS headline
            FROM ({page_sql}) AS page
            CROSS JOIN news_article ON news_article.id = page.id
            CROSS JOIN {FTS_TABLE} ON {FTS_TABLE}.rowid = page.id
            WHERE {FTS_TABLE} MATCH %s
            ORDER BY page.position""",
            [*page_params, self.match],
        )

    @staticmethod
    def unescape(headline):
        return headline


class PostgresEngine:
    """tsvector and tsquery: ts_rank for the rank, ts_headline for the passage."""

    def __init__(self, query):
        def any_of(texts):
            # to_tsquery reads a quoted text with the parser that made the vectors
            # ('Node.js' is node.js, 'JSON_TABLE' json <-> tabl); a quote or backslash
            # would end or escape it, and the parser reads both as a space anyway.
            return "(" + " | ".join(f"'{QUOTES.sub(' ', text)}'" for text in texts) + ")"

        self.as_typed = as_typed(query, ["news_article.title", "news_article.body_text"], "strpos")
        include = [any_of(texts) for texts in query.forms]
        if query.prefix:
            include[-1] = f"('{query.include[-1][0]}':*)"
        self.tsquery = " & ".join(include + [f"!{any_of(texts)}" for texts in query.excluded_forms])

    condition = "news_article.search_vector @@ to_tsquery('english', %s)"

    def count_sql(self, public, limit):
        public_sql, public_params = public
        return (
            f"""SELECT count(*), min(id),
                (SELECT max(id) FROM news_article), (SELECT min(id) FROM news_article), NULL
            FROM (SELECT news_article.id FROM news_article
                WHERE {public_sql} AND {self.condition}
                ORDER BY id DESC LIMIT {int(limit)}) AS first""",
            [*public_params, self.tsquery],
        )

    def newest(self, public, count, density):
        # The planner weighs the GIN index against the (status, published_at) index
        # itself, from the word's statistics.
        public_sql, public_params = public
        return (
            "SELECT news_article.id, news_article.published_at FROM news_article "
            f"WHERE {public_sql} AND {self.condition}",
            [*public_params, self.tsquery],
        )

    def ranked(self, window_sql, window_params):
        return (
            f"""SELECT recent.id, ts_rank(news_article.search_vector,
                    to_tsquery('english', %s))::float8 * {self.as_typed[0]}
                / (1 + extract(epoch FROM now() - recent.published_at)::float8 / 86400
                    / {RECENCY_DAYS}) AS score, recent.published_at
            FROM ({window_sql}) AS recent
            JOIN news_article ON news_article.id = recent.id""",
            [self.tsquery, *self.as_typed[1], *window_params],
        )

    def articles(self, page_sql, page_params):
        # ts_headline drops anything shaped like an HTML tag, so it is given escaped
        # text (unescape() undoes it): "<label>" in an article stays visible.
        return (
            f"""SELECT news_article.*, page.score AS rank,
                ts_headline('english', replace(replace(replace(news_article.body_text,
                    '&', '&amp;'), '<', '&lt;'), '>', '&gt;'),
                    to_tsquery('english', %s),
                    'StartSel=' || chr(2) || ', StopSel=' || chr(3)
                    || ', MaxWords=35, MinWords=15') AS headline
            FROM ({page_sql}) AS page
            JOIN news_article ON news_article.id = page.id
            ORDER BY page.position""",
            [self.tsquery, *page_params],
        )

    @staticmethod
    def unescape(headline):
        return html.unescape(headline or "")


class Results:
    """Sliceable for Django's Paginator: the ranked window first, then the older matches
    newest first. Three queries a page: the count, the page, the page's tags."""

    def __init__(self, engine, articles):
        self.engine = engine
        # The database the page reads: a replica for a reader's (skillo.replicas).
        self.database = connections[articles.db]
        # The WHERE clause of published(), compiled: the rule stays written once.
        compiler = articles.query.get_compiler(connection=self.database)
        self.public = compiler.compile(articles.query.where)
        self.approximate = False
        self.density = 0.0
        self._count = None

    def _newest(self, limit, offset=0):
        sql, params = self.engine.newest(self.public, self.count(), self.density)
        return (
            f"""{sql} ORDER BY news_article.published_at DESC, news_article.id DESC
            LIMIT {int(limit)} OFFSET {int(offset)}""",
            params,
        )

    def count(self):
        if self._count is None:
            # The newest EXACT_COUNT + 1 matches by id; if there are more, the share of
            # the id range they cover gives the estimate (and how densely words match).
            with self.database.cursor() as cursor:
                cursor.execute(*self.engine.count_sql(self.public, EXACT_COUNT + 1))
                found, reached, highest, lowest, expression = cursor.fetchone()
            if expression is not None:
                self.engine.match = expression
            if found <= EXACT_COUNT:
                self._count = found
            else:
                self.approximate = True
                span = highest - lowest + 1
                self.density = found / (highest - reached + 1)
                self._count = round_estimate(max(found, self.density * span))
        return self._count

    def __len__(self):
        return self.count()

    def __getitem__(self, page):
        if not isinstance(page, slice):
            return self[page : page + 1][0]
        if not self.count():  # nothing to fetch: a query saved on every empty page
            return []
        start = page.start or 0
        stop = page.stop if page.stop is not None else start + RANK_WINDOW + EXACT_COUNT
        found = []
        if start < RANK_WINDOW:
            found += self._fetch(self._ranked_page(start, min(stop, RANK_WINDOW)))
        if stop > RANK_WINDOW:
            found += self._fetch(self._older_page(max(start, RANK_WINDOW), stop))
        # Their lead images for the thumbnails, in one query for the page (none without).
        prefetch_related_objects([a for a in found if a.lead_image_id], "lead_image")
        return with_topics(found)

    def _ranked_page(self, start, stop):
        window_sql, window_params = self._newest(RANK_WINDOW)
        ranked_sql, ranked_params = self.engine.ranked(window_sql, window_params)
        return (
            f"""SELECT id, score, row_number() OVER (
                    ORDER BY score DESC, published_at DESC, id DESC) AS position
                FROM ({ranked_sql}) AS ranked
                ORDER BY position LIMIT {stop - start} OFFSET {start}""",
            ranked_params,
        )

    def _older_page(self, start, stop):
        newest_sql, newest_params = self._newest(stop - start, start)
        return (
            f"""SELECT id, NULL AS score, row_number() OVER (
                    ORDER BY published_at DESC, id DESC) AS position
                FROM ({newest_sql}) AS older""",
            newest_params,
        )

    def _fetch(self, page):
        sql, params = self.engine.articles(*page)
        articles = list(Article.objects.raw(sql, params))
        for article in articles:
            article.headline = self.engine.unescape(article.headline)
        return articles

    def __iter__(self):
        return iter(self[:])


def round_estimate(n):
    """Two significant figures: 12,345 becomes 12,000."""
    n = int(n)
    scale = 10 ** max(len(str(n)) - 2, 0)
    return round(n / scale) * scale


# Where a passage crosses from one block of the text to the next (a heading to its
# paragraph): the line breaks a page would collapse into a space.
BLOCKS = re.compile(r"(?<=([.!?:;…]))?[ \t]*\n\s*")


def highlight(headline):
    """Escape a headline and turn its markers into <mark> elements. A heading is kept
    apart from the text after it ("C ABI · Breaking changes · The Python API", not
    "C ABI Breaking changes The Python API")."""
    text = BLOCKS.sub(lambda end: " " if end[1] else " · ", (headline or "").strip())
    return mark_safe(escape(text).replace(START, "<mark>").replace(STOP, "</mark>"))
