"""Feeds checked against their standards: RFC 4287 (Atom), RSS 2.0, RFC 4151 (tag: ids)."""

import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from tests.factories import ArticleFactory, SourceFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def hosts(settings):
    settings.ALLOWED_HOSTS = ["testserver", "news.example"]


ATOM = "{http://www.w3.org/2005/Atom}"
TAG_URI = re.compile(r"^tag:[a-z0-9.-]+,\d{4}-\d{2}-\d{2}:\S+$")
TRICKY_TITLE = "AT&T ships <impl Trait> & friends"


@pytest.fixture
def article():
    article = ArticleFactory(
        title=TRICKY_TITLE, summary="Short & sweet <summary>.", tags=["rust"],
        body="## What happened\n\nThe **whole** text.",
    )  # fmt: skip
    SourceFactory(article=article)
    return article


def feed(url, host="testserver", secure=False):
    response = Client(HTTP_HOST=host).get(url, secure=secure)
    assert response.status_code == 200
    return ET.fromstring(response.content)


def test_atom_feed_has_every_element_rfc_4287_requires(article):
    root = feed("/feed/atom/")
    for name in ("id", "title", "updated"):
        assert root.find(ATOM + name).text, name
    # An author for the feed covers every entry that has none of its own (4.1.1).
    assert root.find(f"{ATOM}author/{ATOM}name").text
    (entry,) = root.findall(ATOM + "entry")
    for name in ("id", "title", "updated"):
        assert entry.find(ATOM + name).text, name
    assert entry.find(f"{ATOM}link[@rel='alternate']") is not None


def test_atom_entry_has_the_full_text_as_content_and_a_short_summary(article):
    (entry,) = feed("/feed/atom/").findall(ATOM + "entry")
    content, summary = entry.find(ATOM + "content"), entry.find(ATOM + "summary")
    assert content.get("type") == "html"
    assert "<strong>whole</strong>" in content.text
    assert summary.get("type") == "html"
    # Decoded once by the reader as HTML, the summary reads as typed.
    assert summary.text == "Short &amp; sweet &lt;summary&gt;."


@pytest.mark.parametrize("url", ["/feed/", "/feed/atom/", "/tags/rust/feed/"])
def test_titles_with_ampersands_and_angle_brackets_are_encoded_once(article, url):
    root = feed(url)
    titles = [element.text for element in root.iter() if element.tag in {"title", ATOM + "title"}]
    assert TRICKY_TITLE in titles


def test_rss_feed_has_the_required_channel_and_item_elements(article):
    channel = feed("/feed/").find("channel")
    for name in ("title", "link", "description"):
        assert channel.find(name).text, name
    (item,) = channel.findall("item")
    assert item.find("title").text and item.find("description").text


def ids(url, host="testserver", secure=False):
    root = feed(url, host, secure)
    atom = [entry.find(ATOM + "id").text for entry in root.findall(ATOM + "entry")]
    rss = [guid.text for guid in root.iter("guid")]
    return atom + rss


@pytest.mark.parametrize("url", ["/feed/", "/feed/atom/"])
def test_feed_ids_are_tag_uris_that_survive_a_new_slug_host_or_scheme(article, url):
    before = ids(url)
    assert before and all(TAG_URI.match(value) for value in before)
    article.slug = "renamed-slug"
    article.save()
    assert ids(url, host="news.example", secure=True) == before


def test_rss_guid_says_it_is_not_a_permalink(article):
    (guid,) = feed("/feed/").iter("guid")
    assert guid.get("isPermaLink") == "false"


def test_the_feeds_own_ids_are_permanent_too(article):
    here, there = feed("/feed/atom/"), feed("/feed/atom/", host="news.example", secure=True)
    assert TAG_URI.match(here.find(ATOM + "id").text)
    assert here.find(ATOM + "id").text == there.find(ATOM + "id").text


def test_every_feed_and_page_name_the_same_language(article, client):
    """One language code (the HTML's ``lang``) in RSS, Atom and JSON Feed alike."""
    page = client.get(article.get_absolute_url()).content.decode()
    (html_lang,) = re.findall(r'<html lang="([^"]+)"', page)
    assert feed("/feed/").find("channel/language").text == html_lang
    assert feed("/feed/atom/").get("{http://www.w3.org/XML/1998/namespace}lang") == html_lang
    assert client.get("/feed.json").json()["language"] == html_lang


@pytest.mark.parametrize("url", ["/", "/tags/rust/", "ARTICLE", "/authors/"])
def test_every_page_links_its_json_feed_beside_rss_and_atom(article, client, url):
    url = article.get_absolute_url() if url == "ARTICLE" else url
    page = client.get(url).content.decode()
    links = re.findall(r'<link rel="alternate" type="([^"]+)"[^>]*href="([^"]+)"', page)
    assert ("application/feed+json", "/feed.json") in links
    assert {"application/rss+xml", "application/atom+xml"} <= {kind for kind, _ in links}
