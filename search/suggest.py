""" "Did you mean …?": for a query that found nothing, the same query with each word that
no published article has replaced by the nearest word that one has, offered only if
that query finds something.

The nearby words come from the index's own vocabulary: on SQLite the fts5vocab table
beside the index (search 0002), read in a few short ranges of terms; on PostgreSQL the
``search_word`` table of every lexeme of the search vectors (search 0006), searched by
trigram distance (pg_trgm's GiST index). Both hold stems ("releas"), and both hold the
words of drafts and scheduled articles, since the index has every article. So no
vocabulary word is ever shown: each nearby word is looked up among published articles
(``published()``'s rule, compiled as search.query does), and the word offered is the
one a published article has, as it is written there, marked by the index itself
(highlight() or ts_headline()). The choice (nearest first, then the word more published
articles have, then the alphabet) is made among published articles' words only, so the
words of a draft do not show. (They can take some of the MAX_CANDIDATES places of the
nearest stems, so a draft may keep a farther word from being offered, never show one.)

Five queries at most, whatever the number of words: which typed words published
articles have, the vocabulary near the others, the published articles of those nearby
words, and the search page's own count for the suggestion.
"""

import re

from django.db import connection, connections

from news.models import Article

from .query import MAX_QUERY_LENGTH, START, STOP, parse, search

FTS_TABLE = "news_article_fts"
FTS_VOCAB = "news_article_fts_vocab"
# Shorter words have too many neighbours for a guess to be worth offering.
MIN_LENGTH = 3
# Edits allowed: one in a word of up to four letters, two in a longer one.
SHORT_WORD = 4
# The longest ending a stem may have lost, near enough ("ation" of "enumeration").
SUFFIX = 5
# Nearby words looked up per unknown word, the nearest first.
MAX_CANDIDATES = 10
# Words corrected at most in one query; more unknown words are not a typo.
MAX_UNKNOWN = 4
# Published articles counted per nearby word to break a tie: enough to tell a word of
# one article from a common one without counting a common one's thousands.
TIE_COUNT = 20
# Nearby words asked of PostgreSQL's trigram index per unknown word.
NEAREST = 30

MARKED = re.compile(f"{START}(\\w+){STOP}")


def suggest(text):
    """A query like ``text`` that finds published articles, with each of its words that
    none has replaced by the nearest word one has; None when there is nothing to offer."""
    text = (text or "")[:MAX_QUERY_LENGTH]
    query = parse(text)
    if not query:
        return None
    vocabulary = PostgresVocabulary if connection.vendor == "postgresql" else SQLiteVocabulary
    public = _public()
    last = query.include[-1][0].lower() if query.prefix else None
    words = sorted({word.lower() for item in query.include for word in item})
    typed = _lookups(vocabulary.typed(public, words, last))
    unknown = [word for word in words if not typed[word][0]]
    if not unknown or len(unknown) > MAX_UNKNOWN or min(map(len, unknown)) < MIN_LENGTH:
        return None
    with _database().cursor() as cursor:
        cursor.execute(*vocabulary.nearby(unknown))
        terms = [row[0] for row in cursor.fetchall()]
    candidates = {word: nearest(word, terms) for word in unknown}
    if not all(candidates.values()):
        return None
    stems = sorted({stem for found in candidates.values() for stem, _ in found})
    published = _lookups(vocabulary.stems(public, stems))
    replacements = {}
    for word, found in candidates.items():
        ranked = [rank(word, edits, *published[stem]) for stem, edits in found]
        ranked = [each for each in ranked if each is not None]
        if not ranked:
            return None
        replacements[word] = min(ranked)[-1]
    suggestion = _rewrite(text, query.spans, replacements)
    if not search(suggestion).count():
        return None
    return suggestion


def limit(word):
    """Edits allowed from ``word`` to a suggestion."""
    return 1 if len(word) <= SHORT_WORD else 2


def nearest(word, stems):
    """(stem, edits) for the ``stems`` that may stand for a word close to ``word``,
    nearest first, at most MAX_CANDIDATES. A stem is a word without its ending ("secur"
    for "security"), so one at least half as long as the word is also compared with the
    word's beginnings as long as it or up to SUFFIX letters longer: "chang" is near
    "chaning"."""
    most = limit(word)
    close = []
    for stem in set(stems):
        cuts = [len(word)]
        if len(stem) >= max(MIN_LENGTH, len(word) / 2):
            cuts += range(len(stem), min(len(stem) + SUFFIX, len(word)))
        edits = min(distance(word[:cut], stem, most) for cut in cuts)
        if edits <= most:
            close.append((edits, -len(stem), stem))
    return [(stem, edits) for edits, _, stem in sorted(close)[:MAX_CANDIDATES]]


def rank(word, edits, count, passage):
    """A stem's best spelling for ``word`` with what ranks it: the stem's words as one
    published article with it writes them ("security" for "secur"; on SQLite the newest
    such article, on PostgreSQL the first the look-up finds), the nearest to the word
    first; one near enough before one whose stem only was; then the word
    more articles have. None if no published article has it."""
    spelt = sorted(
        (distance(word, each, limit(word) + 1), each)
        for each in {marked.lower() for marked in MARKED.findall(passage or "")}
    )
    if not count or not spelt:
        return None
    spelling_edits, spelling = spelt[0]
    if spelling_edits <= limit(word):
        return (0, spelling_edits, -count, spelling)
    return (1, edits, -count, spelling)


def distance(a, b, most):
    """Edits from ``a`` to ``b`` (a letter added, dropped, changed, or two side by side
    swapped: "pytorh" is one from "pytorch"), or ``most + 1`` once it is past ``most``."""
    previous, current = None, list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        before, previous, current = previous, current, [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                current[j] = min(current[j], before[j - 2] + 1)
        if min(current) > most:
            return most + 1
    return current[-1]


def _public():
    # The WHERE clause of published(), compiled: the rule stays written once.
    articles = Article.objects.published()
    return articles.query.get_compiler(connection=_database()).compile(articles.query.where)


def _database():
    # The database the page reads: a replica for a reader's (skillo.replicas).
    return connections[Article.objects.db]


def _lookups(statement):
    """{key: (published articles up to TIE_COUNT, passage)} from rows of the three."""
    with _database().cursor() as cursor:
        cursor.execute(*statement)
        return {key: (count, passage) for key, count, passage in cursor.fetchall()}


def _rewrite(text, spans, replacements):
    # From the end, so that the places of the words before stay where they were.
    places = sorted((place for item in spans for place in item), reverse=True)
    for start, end in places:
        word = text[start:end].lower()
        if word in replacements:
            text = text[:start] + replacements[word] + text[end:]
    return text.strip()


def _union(selects):
    sql = " UNION ALL ".join(select for select, _ in selects)
    return sql, [param for _, params in selects for param in params]


class SQLiteVocabulary:
    """FTS5: the vocabulary table's terms; MATCH with the published rule for the rest."""

    @staticmethod
    def _published(public, match, limit):
        public_sql, public_params = public
        return (
            f"""SELECT 1 FROM {FTS_TABLE} CROSS JOIN news_article
                ON news_article.id = {FTS_TABLE}.rowid
            WHERE {FTS_TABLE} MATCH %s AND {public_sql}
            ORDER BY {FTS_TABLE}.rowid DESC LIMIT {int(limit)}""",
            [match, *public_params],
        )

    @classmethod
    def typed(cls, public, words, prefix):
        """Which ``words`` published articles have, as the search looks for them (the
        last one as a prefix if it is one)."""
        selects = []
        for word in words:
            match = _string(word) + (" *" if word == prefix else "")
            sql, params = cls._published(public, match, 1)
            selects.append((f"SELECT %s, (SELECT count(*) FROM ({sql})), NULL", [word, *params]))
        return _union(selects)

    @staticmethod
    def nearby(words):
        """Terms beginning as each word does, or as it would with one of its first three
        letters dropped or two of them swapped. Reading the vocabulary reads each term's
        whole list of articles, so it is read in these short ranges only: at 100,000
        articles all the terms of one initial took 40 ms, three letters' 1 to 4 ms.
        Typos in a word's first letters other than these are not corrected."""
        heads = set()
        for word in words:
            heads |= {word[:3], word[1] + word[0] + word[2], word[0] + word[2] + word[1]}
            heads |= {(word[:i] + word[i + 1 :])[:3] for i in range(3)}
        selects = [
            (f"SELECT term FROM {FTS_VOCAB} WHERE term >= %s AND term < %s", [head, _after(head)])
            for head in sorted(head for head in heads if len(head) == 3)
        ]
        return _union(selects)

    @classmethod
    def stems(cls, public, stems):
        """For each stem, its published articles (up to TIE_COUNT) and the text of the
        newest one with the stem's words marked.

        The index holds stems, and a query's words are stemmed again: most stems stay as
        they are, but some lose more ("releas" becomes "relea", "enumer" "enum"). So a
        stem that finds nothing as a word is asked again as a prefix, which is not
        stemmed; only then, since a prefix merges the lists of every term starting so
        (coalesce() stops at its first value that is not NULL)."""
        marked = " || ' ' || ".join(
            f"highlight({FTS_TABLE}, {column}, char(2), char(3))" for column in range(4)
        )
        selects = []
        for stem in stems:
            found = {}
            for match in (_string(stem), _string(stem) + " *"):
                count_sql, count_params = cls._published(public, match, TIE_COUNT)
                text_sql, text_params = cls._published(public, match, 1)
                found[match] = (
                    f"(SELECT count(*) FROM ({count_sql}))",
                    count_params,
                    "(" + text_sql.replace("SELECT 1", f"SELECT {marked}", 1) + ")",
                    text_params,
                )
            (
                (word_count, word_count_params, word_text, word_text_params),
                (prefix_count, prefix_count_params, prefix_text, prefix_text_params),
            ) = found.values()
            selects.append(
                (
                    f"SELECT %s, coalesce(nullif({word_count}, 0), {prefix_count}), "
                    f"coalesce({word_text}, {prefix_text})",
                    [
                        stem, *word_count_params, *prefix_count_params,
                        *word_text_params, *prefix_text_params,
                    ],
                )
            )  # fmt: skip
        return _union(selects)


class PostgresVocabulary:
    """search_word and its trigram index; the search vectors with the published rule."""

    @staticmethod
    def _published(public, tsquery, lexeme):
        """Up to TIE_COUNT published articles matching ``tsquery`` (SQL, with ``lexeme``
        its parameter).

        Never fewer, even to know whether there is one: asked for one, the planner walks
        the table checking each vector, expecting a match soon, and for a word that no
        article has, or only drafts, read all 100,000 vectors (180 ms). For 20 it takes
        the GIN index unless the word is common. Planning for every match instead
        (a MATERIALIZED CTE) cost as much again: ten such plans in one statement pass
        PostgreSQL's jit_above_cost, and compiling them took 110 ms.
        """
        public_sql, public_params = public
        return (
            f"""SELECT title, summary, search_extra, body_text FROM news_article
            WHERE {public_sql} AND news_article.search_vector @@ {tsquery}
            LIMIT {TIE_COUNT}""",
            [*public_params, lexeme],
        )

    @classmethod
    def typed(cls, public, words, prefix):
        # A stop word ("the") is in no vector and the search passes over it: it is known.
        # A word search_word lacks is in no vector either, and finding that out in the
        # vectors is the slow case (see _published), a prefix's above all.
        selects = []
        for word in words:
            is_prefix = word == prefix
            tsquery = _lexeme(word) + (":*" if is_prefix else "")
            sql, params = cls._published(public, "to_tsquery('english', %s)", tsquery)
            vocabulary = (
                r"search_word.word LIKE replace(typed.lexeme, '_', '\_') || '%%'"
                if is_prefix
                else "search_word.word = typed.lexeme"
            )
            selects.append(
                (
                    f"""SELECT %s, CASE WHEN numnode(to_tsquery('english', %s)) = 0 THEN 1
                    WHEN NOT EXISTS (SELECT 1 FROM unnest(to_tsvector('english', %s)) AS typed
                        JOIN search_word ON {vocabulary}) THEN 0
                    ELSE (SELECT count(*) FROM ({sql}) AS hit) END, NULL""",
                    [word, tsquery, word, *params],
                )
            )
        return _union(selects)

    @staticmethod
    def nearby(words):
        selects = [
            (
                "SELECT word FROM (SELECT word FROM search_word "
                f"ORDER BY word <-> %s LIMIT {NEAREST}) AS near",
                [word],
            )
            for word in words
        ]
        return _union(selects)

    @classmethod
    def stems(cls, public, stems):
        # 'simple' leaves a lexeme as it is; 'english' would stem it again. One look-up
        # in the index per stem: the passage is the first of the articles counted.
        selects = []
        tsquery = "to_tsquery('simple', %s)"
        for stem in stems:
            quoted = _lexeme(stem)
            hit_sql, hit_params = cls._published(public, tsquery, quoted)
            selects.append(
                (
                    f"""SELECT %s, * FROM (WITH hit AS MATERIALIZED ({hit_sql})
                    SELECT count(*), (SELECT ts_headline('english', concat_ws(' ', title,
                        summary, search_extra, body_text), {tsquery},
                        'StartSel=' || chr(2) || ', StopSel=' || chr(3)
                        || ', HighlightAll=true') FROM hit LIMIT 1)
                    FROM hit) AS found""",
                    [stem, *hit_params, quoted],
                )
            )
        return _union(selects)


def _after(head):
    # The first string past every string beginning with ``head``.
    return head[:-1] + chr(ord(head[-1]) + 1)


def _string(term):
    # An FTS5 string: a doubled quote stands for itself.
    return '"' + term.replace('"', '""') + '"'


def _lexeme(term):
    # A tsquery lexeme in quotes: quotes and backslashes doubled.
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"
