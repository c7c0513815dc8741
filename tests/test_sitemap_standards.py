"""Sitemaps and robots.txt by the rules of sitemaps.org and the Robots Exclusion
Protocol: every sitemap that robots.txt or the index lists is valid, never empty and
never an error; lastmod is a W3C date-time; robots.txt and the pages agree."""

import re
import xml.etree.ElementTree as ET
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.utils import timezone

from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# W3C Datetime (the form sitemaps.org asks for), to the second, with a time zone.
W3C_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$")


def path(url):
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def listed_sitemaps(client):
    robots = client.get("/robots.txt").content.decode()
    return [
        path(line.split(": ", 1)[1]) for line in robots.splitlines() if line.startswith("Sitemap:")
    ]


def sitemap(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return ET.fromstring(response.content)


@pytest.fixture
def old_article():
    """Published a week ago: nothing in the news sitemap's two days."""
    week_ago = timezone.now() - timedelta(days=7)
    return ArticleFactory(
        title="Last week's story", tags=["go"], published_at=week_ago,
        event_date=week_ago.date(),
    )  # fmt: skip


def test_every_listed_sitemap_is_valid_and_never_empty(client, old_article):
    urls = listed_sitemaps(client)
    index = sitemap(client, urls[0])
    sections = [path(loc.text) for loc in index.iter(SM + "loc")]
    for url in [*urls, *sections]:
        root = sitemap(client, url)
        entries = root.findall(SM + "url") or root.findall(SM + "sitemap")
        assert entries, f"{url} lists nothing"
        for entry in entries:
            assert entry.find(SM + "loc").text.startswith("http")


def test_the_news_sitemap_lists_the_newest_article_when_none_is_recent(client, old_article):
    root = sitemap(client, "/sitemap-news.xml")
    (url,) = root.findall(SM + "url")
    assert url.find(SM + "loc").text.endswith(old_article.get_absolute_url())


def test_with_nothing_published_robots_lists_no_news_sitemap_and_it_is_not_served(client):
    ArticleFactory(draft=True)
    assert "/sitemap-news.xml" not in listed_sitemaps(client)
    assert client.get("/sitemap-news.xml").status_code == 404


def test_lastmod_is_a_w3c_datetime_in_the_index_and_on_every_entry(client, old_article):
    index = sitemap(client, "/sitemap.xml")
    for entry in index.findall(SM + "sitemap"):
        assert W3C_DATETIME.match(entry.find(SM + "lastmod").text)
    for section in ("home", "articles", "tags"):
        for entry in sitemap(client, f"/sitemaps/{section}.xml").findall(SM + "url"):
            lastmod = entry.find(SM + "lastmod")
            assert lastmod is not None, (section, entry.find(SM + "loc").text)
            assert W3C_DATETIME.match(lastmod.text), lastmod.text


def test_a_topic_lastmod_is_its_latest_article_change(client, old_article):
    newer = ArticleFactory(title="Newer go story", tags=["go"])
    (entry,) = sitemap(client, "/sitemaps/tags.xml").findall(SM + "url")
    expected = timezone.localtime(newer.updated_at).replace(microsecond=0).isoformat()
    assert entry.find(SM + "lastmod").text == expected


def test_an_edit_moves_its_topics_lastmod(client, old_article, time_machine):
    sitemap(client, "/sitemaps/tags.xml")
    time_machine.move_to(timezone.now() + timedelta(hours=1))
    old_article.body += "\n\nA late paragraph."
    old_article.save()
    (entry,) = sitemap(client, "/sitemaps/tags.xml").findall(SM + "url")
    expected = timezone.localtime(old_article.updated_at).replace(microsecond=0).isoformat()
    assert entry.find(SM + "lastmod").text == expected


def test_a_page_robots_txt_disallows_does_not_also_hide_a_noindex(client, old_article):
    robots = client.get("/robots.txt").content.decode()
    disallowed = [
        line.split(": ", 1)[1] for line in robots.splitlines() if line.startswith("Disallow")
    ]
    assert "/search/" in disallowed
    page = client.get("/search/?q=go").content.decode()
    assert 'name="robots"' not in page


def test_the_index_counts_the_articles_again_when_one_is_published_or_unpublished(
    client, monkeypatch
):
    from news.sitemaps import ArticleSitemap

    monkeypatch.setattr(ArticleSitemap, "limit", 2)

    def article_pages():
        index = sitemap(client, "/sitemap.xml")
        return [
            path(loc.text) for loc in index.iter(f"{SM}loc") if "/sitemaps/articles" in loc.text
        ]

    first, _ = ArticleFactory(), ArticleFactory()
    assert article_pages() == ["/sitemaps/articles.xml"]
    third = ArticleFactory()
    assert article_pages() == ["/sitemaps/articles.xml", "/sitemaps/articles.xml?p=2"]
    assert [
        path(loc.text) for loc in sitemap(client, "/sitemaps/articles.xml?p=2").iter(f"{SM}loc")
    ] == [first.get_absolute_url()]
    third.status = third.Status.DRAFT
    third.save()
    assert article_pages() == ["/sitemaps/articles.xml"]


def test_the_pages_of_articles_list_each_public_one_once_newest_first(client, monkeypatch):
    from news.sitemaps import ArticleSitemap

    monkeypatch.setattr(ArticleSitemap, "limit", 2)
    now = timezone.now().replace(microsecond=0)
    # Three published at one moment, so that a page ends between two of them.
    articles = [ArticleFactory(published_at=now - timedelta(days=days)) for days in (5, 1, 1, 1, 3)]
    ArticleFactory(status="draft")
    index = sitemap(client, "/sitemap.xml")
    pages = [path(loc.text) for loc in index.iter(f"{SM}loc") if "/sitemaps/articles" in loc.text]
    assert len(pages) == 3
    listed = [path(loc.text) for page in pages for loc in sitemap(client, page).iter(f"{SM}loc")]
    newest_first = sorted(articles, key=lambda a: (a.published_at, a.pk), reverse=True)
    assert listed == [article.get_absolute_url() for article in newest_first]


def test_a_later_page_of_articles_is_read_as_a_range_not_after_skipping_the_others(
    client, monkeypatch
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from news.sitemaps import ArticleSitemap

    monkeypatch.setattr(ArticleSitemap, "limit", 2)
    ArticleFactory.create_batch(5)
    sitemap(client, "/sitemap.xml")  # the pages' starts, worked out once
    with CaptureQueriesContext(connection) as queries:
        assert len(sitemap(client, "/sitemaps/articles.xml?p=3").findall(f"{SM}url")) == 1
    articles = [q["sql"] for q in queries if '"news_article"' in q["sql"]]
    assert articles and not any("OFFSET" in sql for sql in articles)
