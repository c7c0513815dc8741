"""Topics by their names, not their slugs: the readable names that topics named by their
slug get (news migration 0024), and files or editors naming a topic by its slug."""

import importlib
import json
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import connection

from news.models import Article, Tag
from news.slugs import slug_from_title, spelled_name
from tests.conftest import DEMO_CONTENT
from tests.factories import ArticleFactory
from tests.test_admin import form_data
from tests.test_limits import post
from textfiles.importer import import_articles

RENAMING = importlib.import_module("news.migrations.0024_readable_topic_names")


class SchemaEditor:
    connection = connection


def name_topics():
    RENAMING.name_topics(apps, SchemaEditor())


def named_by_slug(slug, **article):
    """A topic as an old demo file made it: its name is its slug."""
    ArticleFactory(tags=[slug], **article)
    tag = Tag.objects.get(slug=slug)
    assert tag.name == slug
    return tag


def test_a_name_is_the_spelling_its_articles_use_most():
    texts = ["PostgreSQL 17 ships", "See postgresql.org", "PostgreSQL is a database."]
    assert spelled_name("postgresql", texts) == "PostgreSQL"


def test_a_name_spelled_without_capitals_is_in_sentence_case():
    assert spelled_name("machine-learning", ["Tools for machine\nlearning"]) == "Machine learning"


def test_a_name_no_article_spells_is_the_slugs_words():
    assert spelled_name("programming-languages", ["Nothing about it."]) == "Programming languages"


def test_a_word_inside_a_longer_one_is_not_a_spelling():
    assert spelled_name("go", ["GOLANG", "Gopher", "ago", "go-to", "Go"]) == "Go"


@pytest.mark.django_db
def test_topics_named_by_their_slug_get_a_readable_name_and_keep_their_slug():
    named_by_slug("pytorch", body="PyTorch 2.0 compiles. With PyTorch, or pytorch.")
    named_by_slug("programming-languages")
    name_topics()
    assert dict(Tag.objects.values_list("slug", "name")) == {
        "pytorch": "PyTorch",
        "programming-languages": "Programming languages",
    }


@pytest.mark.django_db
def test_topics_with_a_name_of_their_own_keep_it():
    ArticleFactory(tags=["Web"], body="The web, the web and the web.")
    name_topics()
    assert Tag.objects.get(slug="web").name == "Web"


@pytest.mark.django_db
def test_naming_topics_again_changes_nothing():
    named_by_slug("rust", body="Rust 1.75 ships.")
    name_topics()
    before = list(Tag.objects.values_list("pk", "name", "slug"))
    name_topics()
    assert list(Tag.objects.values_list("pk", "name", "slug")) == before


@pytest.mark.django_db
def test_a_topic_is_not_given_the_name_another_topic_has():
    # As made by hand: taggit would have matched "Release" to "release".
    Tag.objects.create(name="release", slug="release")
    Tag.objects.create(name="Release", slug="release-2")
    name_topics()
    assert Tag.objects.get(slug="release").name == "release"


@pytest.mark.django_db(transaction=True)
def test_migrating_names_the_topics_of_an_existing_site_and_purges_what_showed_them(client):
    named_by_slug("javascript", body="JavaScript runtimes: Node.js runs JavaScript.")
    # The topic index's entries are kept until the topics change.
    assert ">javascript</a>" in client.get("/tags/").content.decode()
    call_command("migrate", "news", "0023", verbosity=0)
    # Every app forward again, not news alone: going back unapplied the apps that depend
    # on news' later migrations too (members, live, releases), and a test after this one
    # would find their tables missing.
    call_command("migrate", verbosity=0)
    assert Tag.objects.get(slug="javascript").name == "JavaScript"
    assert ">JavaScript</a>" in client.get("/tags/").content.decode()


@pytest.mark.django_db
def test_spellings_are_the_names_of_the_topics_they_stand_for():
    ArticleFactory(tags=["Programming languages", "Python"])
    names = Tag.objects.spellings(["programming-languages", "PYTHON", "Rust", "Programming"])
    assert names == ["Programming languages", "Python", "Rust", "Programming"]


OLD_FILE = """\
Go 1.22 Released

Loop variables are per iteration.

Sources

• Go 1.22 release notes (The Go Blog) <https://go.dev/doc/go1.22>

Published date reflects the original event date (2024-02-06). This article is original \
Skillo editorial written from the sources above; facts were verified in July 2025.

Tags: go, programming-languages
"""


@pytest.mark.django_db
def test_a_file_naming_a_topic_by_its_slug_tags_the_article_with_that_topic(tmp_path):
    path = Path(tmp_path) / "go.txt"
    path.write_text(OLD_FILE)
    import_articles([path])
    name_topics()
    topics = list(Tag.objects.values_list("pk", "name").order_by("name"))
    result = import_articles([path])
    # The same two topics, by their new names: no "programming-languages-2".
    assert list(Tag.objects.values_list("pk", "name").order_by("name")) == topics
    assert [name for _, name in topics] == ["Go", "Programming languages"]
    assert len(result.unchanged) == 1


@pytest.mark.django_db
def test_an_editor_typing_a_topics_slug_tags_with_that_topic(admin_client):
    ArticleFactory(tags=["Programming languages"])
    response = post(admin_client, form_data(tags="programming-languages, go"))
    assert response.status_code == 302, response.content.decode()[:2000]
    article = Article.objects.get(slug="go-1-22-released")
    assert sorted(article.tags.values_list("slug", flat=True)) == ["go", "programming-languages"]
    assert Tag.objects.count() == 2


NAMED = "Programming languages"


@pytest.fixture
def topic_article(db):
    for _ in range(2):
        ArticleFactory(tags=[NAMED])
    return ArticleFactory(tags=[NAMED], title="Zig 0.12 ships")


def visible_text(html):
    """What a reader reads: text outside tags and attributes (URLs hold the slug)."""
    return re.sub(r"<[^>]*>", " ", html)


@pytest.mark.parametrize(
    "url", ["/", "/tags/", "/tags/programming-languages/", "ARTICLE", "/search/?q=zig"]
)
def test_pages_show_a_topic_by_its_name_and_link_it_by_its_slug(client, topic_article, url):
    url = topic_article.get_absolute_url() if url == "ARTICLE" else url
    page = client.get(url).content.decode()
    assert NAMED in visible_text(page)
    assert "programming-languages" not in visible_text(page)
    assert 'href="/tags/programming-languages/"' in page


def test_a_topic_link_says_it_is_a_topic_to_screen_readers(client, db):
    # "Go" alone is the verb to a screen reader listing a page's links.
    article = ArticleFactory(tags=["Go"])
    page = client.get(article.get_absolute_url()).content.decode()
    assert (
        '<a href="/tags/go/" rel="tag"><span class="visually-hidden">Topic: </span>Go</a>'
    ) in page


def test_a_topics_feeds_are_titled_by_its_name(client, topic_article):
    rss = client.get("/tags/programming-languages/feed/").content.decode()
    assert f"<title>Skillo: {NAMED}</title>" in rss
    assert client.get("/tags/programming-languages/feed.json").json()["title"] == f"Skillo: {NAMED}"


def test_an_articles_json_ld_keywords_are_its_topics_names(client, topic_article):
    page = client.get(topic_article.get_absolute_url()).content.decode()
    (data,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    assert json.loads(data)["keywords"] == [NAMED]


def test_the_demo_contents_topics_are_names_not_slugs():
    lines = [
        line.removeprefix("Tags: ")
        for path in DEMO_CONTENT.rglob("*.txt")
        for line in path.read_text().splitlines()
        if line.startswith("Tags: ")
    ]
    names = {name for line in lines for name in line.split(", ")}
    assert len(names) > 10
    assert [name for name in names if slug_from_title(name) == name] == []
