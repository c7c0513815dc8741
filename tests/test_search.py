"""Search: the reader's query syntax, ranking within the newest matches, "about N"."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

import search.query
from search.query import Query, parse, round_estimate
from search.query import search as run_search
from search.suggest import suggest
from tests.factories import ArticleFactory


def titles(query):
    return [article.title for article in run_search(query)[:50]]


def body(text):
    return {"body": text, "summary": "Nothing to see."}


def test_parse_phrases_exclusions_and_the_last_word_as_a_prefix():
    assert parse('"release notes" zeppelin -draft -"old news" post') == Query(
        include=[("release", "notes"), ("zeppelin",), ("post",)],
        exclude=[("draft",), ("old", "news")],
        prefix=True,
    )


def test_parse_only_a_plain_last_word_is_a_prefix():
    assert not parse('zeppelin "release notes"').prefix
    assert not parse("zeppelin -draft").prefix
    assert not parse("zeppelin ab").prefix  # too short to be worth a prefix
    assert parse("zeppelin ab").include == [("zeppelin",), ("ab",)]


def test_parse_an_unclosed_quote_is_a_phrase_to_the_end():
    assert parse('"release notes').include == [("release", "notes")]


def test_parse_exclusions_alone_are_no_search():
    assert not parse("-zeppelin")
    assert not parse('"" - *')


def test_round_estimate_keeps_two_significant_figures():
    assert [round_estimate(n) for n in (7, 42, 1234, 98_765, 100_499)] == [
        7, 42, 1200, 99_000, 100_000,
    ]  # fmt: skip


@pytest.mark.django_db
def test_a_quoted_phrase_needs_its_words_side_by_side():
    ArticleFactory(title="Together", **body("The zeppelin hangar opened."))
    ArticleFactory(title="Apart", **body("The hangar was built before the zeppelin came."))
    assert titles('"zeppelin hangar"') == ["Together"]
    assert sorted(titles("zeppelin hangar")) == ["Apart", "Together"]


@pytest.mark.django_db
def test_a_minus_excludes_a_word_or_a_phrase():
    ArticleFactory(title="Airship", **body("A zeppelin over the bay."))
    ArticleFactory(title="Airship band", **body("A zeppelin tribute band played."))
    ArticleFactory(title="Airship crash", **body("A zeppelin crash landing."))
    assert sorted(titles("zeppelin -band")) == ["Airship", "Airship crash"]
    assert sorted(titles('zeppelin -"crash landing"')) == ["Airship", "Airship band"]


@pytest.mark.django_db
def test_the_last_word_is_a_prefix_so_postgres_finds_postgresql():
    ArticleFactory(title="PostgreSQL 18 released", **body("Faster vacuum."))
    ArticleFactory(title="SQLite news", **body("Faster vacuum."))
    assert titles("postgres") == ["PostgreSQL 18 released"]
    assert titles("vacuum postgres") == ["PostgreSQL 18 released"]
    # Inside quotes a word is a word: nothing is called "postgres" exactly.
    assert titles('"postgres"') == []


@pytest.mark.django_db
def test_equal_matches_list_the_newest_first_and_relevance_still_counts():
    now = timezone.now()
    ArticleFactory(title="Older", published_at=now - timedelta(days=30), **body("zeppelin"))
    ArticleFactory(title="Newer", published_at=now - timedelta(days=1), **body("zeppelin"))
    # Named in the title (ten times the weight of the text) a month ago: still first.
    ArticleFactory(title="Zeppelin zeppelin", published_at=now - timedelta(days=31))
    assert titles("zeppelin") == ["Zeppelin zeppelin", "Newer", "Older"]


@pytest.mark.django_db
def test_only_the_newest_matches_are_ranked_then_older_ones_follow_newest_first(monkeypatch):
    monkeypatch.setattr(search.query, "RANK_WINDOW", 2)
    now = timezone.now()
    for days, title in enumerate(["New plain", "New strong", "Old plain", "Old strong"]):
        text = "zeppelin zeppelin zeppelin" if "strong" in title else "zeppelin and more words"
        ArticleFactory(title=title, published_at=now - timedelta(days=days * 10), **body(text))
    # The window (the two newest) ranked; past it, by date, however relevant.
    assert titles("zeppelin") == ["New strong", "New plain", "Old plain", "Old strong"]
    results = run_search("zeppelin")
    assert [a.title for a in results[1:3]] == ["New plain", "Old plain"]
    assert results.count() == 4


@pytest.mark.django_db
def test_drafts_and_scheduled_articles_are_never_found():
    ArticleFactory(title="Public", **body("zeppelin"))
    ArticleFactory(title="Draft", draft=True, **body("zeppelin"))
    ArticleFactory(title="Scheduled", scheduled=True, **body("zeppelin"))
    assert titles("zeppelin") == ["Public"]
    assert run_search("zeppelin").count() == 1


@pytest.mark.django_db
def test_many_matches_say_about_n_results(client, monkeypatch):
    monkeypatch.setattr(search.query, "EXACT_COUNT", 3)
    for _ in range(6):
        ArticleFactory(**body("zeppelin"))
    ArticleFactory(title="Elsewhere", **body("airship"))
    results = run_search("zeppelin")
    # Estimated from the share of article ids the first four matches span.
    assert 4 <= results.count() <= 8
    assert results.approximate
    page = client.get("/search/", {"q": "zeppelin"}).content.decode()
    assert f"About {results.count()} results for" in page


@pytest.mark.django_db
def test_few_matches_are_counted_exactly(client):
    ArticleFactory(**body("zeppelin"))
    ArticleFactory(**body("zeppelin"))
    page = client.get("/search/", {"q": "zeppelin"}).content.decode()
    assert "2 results for" in page
    assert not re.search(r"About [\d,]+ result", page)  # an estimate's wording


@pytest.mark.django_db
def test_a_star_after_the_last_word_marks_it_a_prefix():
    ArticleFactory(title="Python 3.14 released", **body("Faster."))
    assert titles("pyth*") == ["Python 3.14 released"]


def test_parse_a_star_after_the_last_word_is_a_prefix_mark():
    assert parse("pyth*") == Query(include=[("pyth",)], prefix=True)
    assert parse("pyth* ") == Query(include=[("pyth",)], prefix=True)


def suggestion(page):
    found = re.search(r"Did you mean (<a [^>]*>[^<]*</a>)\?", page)
    return found and found[1]


@pytest.mark.django_db
def test_a_search_that_finds_nothing_links_the_search_for_the_nearest_published_word(client):
    ArticleFactory(title="PyTorch 2.4 released", **body("Compiled graphs."))
    page = client.get("/search/", {"q": "pytorh"}).content.decode()
    assert "0 results for" in page
    assert suggestion(page) == '<a href="/search/?q=pytorch">pytorch</a>'


@pytest.mark.django_db
def test_a_search_that_finds_something_offers_no_other_words(client):
    ArticleFactory(title="PyTorch 2.4 released", **body("Compiled graphs."))
    ArticleFactory(title="Pytorh, a typo", **body("Compiled graphs."))
    page = client.get("/search/", {"q": "pytorh"}).content.decode()
    assert "1 result for" in page
    assert "Did you mean" not in page


@pytest.mark.django_db
def test_each_unknown_word_of_a_query_is_corrected_and_the_rest_kept():
    ArticleFactory(title="PyTorch release notes", **body("Compiled graphs."))
    assert suggest('"pytorh relese" -zeppelin notes') == '"pytorch release" -zeppelin notes'


@pytest.mark.django_db
def test_a_correction_that_would_find_nothing_is_not_offered():
    ArticleFactory(title="PyTorch 2.4", **body("Compiled graphs."))
    ArticleFactory(title="Zeppelin news", **body("Airships."))
    assert suggest("pytorh zeppelin") is None


@pytest.mark.django_db
def test_the_word_offered_is_spelled_as_an_article_has_it_not_as_the_index_keeps_it():
    # The index holds stems: "releas" for "release" and "releases".
    ArticleFactory(title="Release notes", **body("Nothing else."))
    assert suggest("relese") == "release"


@pytest.mark.django_db
def test_words_that_only_drafts_and_scheduled_articles_have_are_never_offered():
    ArticleFactory(title="Zeppelin", draft=True, **body("Zeppelin hangar."))
    ArticleFactory(title="Zeppelin", scheduled=True, **body("Zeppelin hangar."))
    ArticleFactory(title="Airships", **body("Nothing about them."))
    assert suggest("zepelin") is None


@pytest.mark.django_db
def test_the_word_offered_is_spelled_as_a_published_article_has_it_not_a_draft():
    # "Zeppelins" in the draft and "zeppelin" published are one word to the index.
    ArticleFactory(title="The zeppelin", **body("Nothing else."))
    ArticleFactory(title="Zeppelins", draft=True, **body("Zeppelins zeppelins."))
    assert suggest("zepelins") == "zeppelin"


@pytest.mark.django_db
def test_a_word_added_by_an_edit_can_be_offered():
    article = ArticleFactory(title="Airships", **body("Nothing about them."))
    article.body = "PyTorch, compiled."
    article.save()
    assert suggest("pytorh") == "pytorch"


@pytest.mark.django_db
def test_a_last_word_that_is_a_known_prefix_is_kept_as_typed():
    ArticleFactory(title="Python and the zeppelin", **body("Nothing else."))
    assert suggest("zepelin pyth*") == "zeppelin pyth*"
