"""Search: words as readers type them (issue 44). A hyphen inside a word joins it; only a
minus at the start of the query or after a space excludes. Names with punctuation (C++,
.NET, Node.js, HTTP/3) find their article on SQLite's FTS5 and PostgreSQL's text search
alike (run this module under tests/with-postgres.sh for the second)."""

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from news.models import Article
from search.query import highlight, parse
from search.query import search as run_search
from tests.factories import ArticleFactory


def titles(query):
    return [article.title for article in run_search(query)[:50]]


def story(title, text):
    return ArticleFactory(title=title, summary="News.", body=text)


def test_parse_a_hyphen_inside_a_word_joins_it_and_a_minus_after_a_space_excludes():
    query = parse("free-threaded -gil")
    assert query.include == [("free", "threaded")]
    assert query.exclude == [("gil",)]
    assert query.forms == [("free-threaded", "free threaded", "freethreaded")]


@pytest.mark.django_db
def test_a_hyphenated_word_finds_the_article_that_has_it():
    story("Python 3.13", "CPython can now be built free-threaded, without the GIL.")
    story("Java 22", "The JVM has had threads for a long time.")
    assert titles("free-threaded") == ["Python 3.13"]


@pytest.mark.django_db
def test_a_hyphenated_word_is_not_read_as_an_exclusion():
    story("Go 1.22: Per-Iteration loop variables", "Each iteration of a loop gets its own.")
    story("Java 21: virtual threads", "One thread per request is cheap again.")
    assert titles("per-iteration") == ["Go 1.22: Per-Iteration loop variables"]


@pytest.mark.django_db
def test_a_hyphenated_word_finds_its_spaced_and_joined_forms():
    story("Hyphenated", "Linux 6.1 merged the multi-gen LRU.")
    story("Spaced", "Linux 6.1 merged the multi gen LRU.")
    story("Joined", "Linux 6.1 merged the multigen LRU.")
    story("Elsewhere", "A multi-core gen of chips, and an LRU cache.")
    assert sorted(titles("multi-gen LRU")) == ["Hyphenated", "Joined", "Spaced"]


TECH_NAMES = [
    ("C++", "C++26 adds contracts and reflection"),
    ("C#", "C# 13 ships params collections"),
    (".NET", ".NET 9 released with a faster garbage collector"),
    ("Node.js", "Node.js 22 runs TypeScript files"),
    ("torch.compile", "torch.compile learns dynamic shapes"),
    ("JSON_TABLE", "JSON_TABLE arrives in PostgreSQL 17"),
    ("HTTP/3", "HTTP/3 is on by default in curl"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("name,title", TECH_NAMES, ids=[name for name, _ in TECH_NAMES])
def test_a_tech_name_with_punctuation_finds_its_article(name, title):
    for _, each in TECH_NAMES:
        story(each, "Release notes.")
    story("Unrelated", "A table of compile times for a node over HTTP, in C and JSON.")
    assert titles(name)[0] == title


@pytest.mark.django_db
def test_a_name_with_symbols_ranks_its_exact_form_first_and_the_plain_letter_after():
    from datetime import timedelta

    from django.utils import timezone

    older = timezone.now() - timedelta(days=300)
    exact = ArticleFactory(
        title="Compilers ship contracts", summary="News.", published_at=older,
        body="## What changed\n\nC++26 contracts arrive in GCC.",
    )  # fmt: skip
    for title in ("C ABI is stable", "A C API for plugins", "C compilers compared"):
        story(title, "## Breaking changes\n\nThe C interface changed.")
    assert titles("C++")[0] == exact.title
    assert len(titles("C++")) == 4  # the others still found, as weaker matches


@pytest.mark.django_db
def test_a_passage_keeps_a_heading_apart_from_the_text_after_it():
    story("Breaking", "## Breaking changes\n\nThe Python API changed its defaults.")
    [found] = run_search("defaults")
    passage = str(highlight(found.headline))
    assert "Breaking changes · The Python API" in passage


# PostgreSQL's English stop words: no search finds them, as no search engine does.
STOP_WORDS = frozenset(
    """i me my myself we our ours ourselves you your yours yourself yourselves he him his
    himself she her hers herself it its itself they them their theirs themselves what which
    who whom this that these those am is are was were be been being have has had having do
    does did doing a an the and but if or because as until while of at by for with about
    against between into through during before after above below to from up down in out on
    off over under again further then once here there when where why how all any both each
    few more most other some such no nor not only own same so than too very s t can will
    just don should now""".split()  # noqa: SIM905 (a paragraph reads better than 127 strings)
)
plain = st.from_regex(r"[A-Za-z][a-z]{1,8}", fullmatch=True).filter(
    lambda word: word.lower() not in STOP_WORDS
)
number = st.from_regex(r"[0-9]{1,3}(\.[0-9]{1,2}){0,2}", fullmatch=True)
joined = st.builds(
    "{}{}{}".format, plain, st.sampled_from(["-", ".", "/", "_", "::", "-", "'s "]), plain | number
)
dressed = st.builds(
    "{}{}{}".format,
    st.sampled_from(["", "(", "“"]),
    plain | number | joined,
    st.sampled_from(["", ",", ":", "!", "?", ")", "”", "'s"]),
)
named = st.sampled_from(
    [name for name, _ in TECH_NAMES]
    + ["F#", "ASP.NET", "x86-64", "GPT-4o", "Wi-Fi", "std::vector", "IPv6", "v8.2.1", "O(n)"]
)
title_words = st.lists(st.one_of(plain, number, joined, dressed, named), min_size=1, max_size=8)


@pytest.mark.django_db
@given(words=title_words)
@settings(deadline=None, max_examples=60)
@example(words=["free-threaded", "Python"])
@example(words=["Go", "1.22:", "Per-Iteration", "loop", "variables"])
@example(words=["x86-64", "Node.js's", "HTTP/3"])
def test_every_word_of_a_title_typed_as_written_finds_its_article(words):
    Article.objects.all().delete()
    story("Elsewhere", "Nothing here.")
    title = " ".join(words)
    story(title, "Nothing here.")
    for word in title.split():
        if parse(word):
            assert title in titles(word), word
