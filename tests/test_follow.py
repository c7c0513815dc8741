"""/follow/ and each feed as a web page: every feed's addresses, the feeds naming their
page for people who open them in a browser, and the feeds of topics and authors in
every format."""

import re
import xml.etree.ElementTree as ET

import pytest
from django.test import Client

from news import views
from tests.factories import ArticleFactory, AuthorFactory, CorrectionFactory

pytestmark = pytest.mark.django_db

ATOM = "{http://www.w3.org/2005/Atom}"
ORIGIN = "http://testserver"


@pytest.fixture
def site():
    author = AuthorFactory(name="Ada Writer")
    linux = ArticleFactory(title="Linux 6.1 ships", tags=["Linux"], authors=[author])
    ArticleFactory(title="Rust 1.75 ships", tags=["Rust"])
    ArticleFactory(title="A draft on Go", tags=["Go"], draft=True)
    return linux


def addresses(page):
    """{(format, address)} of the feeds a page lists, as their code elements show them."""
    return re.findall(r'type="[^"]+">([^<]+)</a> <code class="feed-url">([^<]+)</code>', page)


def page(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def test_follow_lists_the_sites_feeds_in_every_format_as_full_addresses(client, site):
    found = addresses(page(client, "/follow/"))
    assert ("RSS", f"{ORIGIN}/feed/") in found
    assert ("Atom", f"{ORIGIN}/feed/atom/") in found
    assert ("JSON Feed", f"{ORIGIN}/feed.json") in found


def test_follow_lists_each_public_topics_feeds_by_its_name(client, site):
    html = page(client, "/follow/")
    found = addresses(html)
    for path in ["/tags/linux/feed/", "/tags/linux/feed/atom/", "/tags/linux/feed.json"]:
        assert ORIGIN + path in {url for _, url in found}
    assert '<a href="/tags/linux/">Linux</a>' in html
    # A topic of drafts only is nobody's to follow yet.
    assert "/tags/go/" not in html


def test_follow_lists_each_authors_feeds(client, site):
    urls = {url for _, url in addresses(page(client, "/follow/"))}
    slug = "ada-writer"
    for path in [
        f"/authors/{slug}/feed/",
        f"/authors/{slug}/feed/atom/",
        f"/authors/{slug}/feed.json",
    ]:
        assert ORIGIN + path in urls


def test_follow_lists_the_corrections_feed(client, site):
    assert ("RSS", f"{ORIGIN}/corrections/feed/") in addresses(page(client, "/follow/"))


def test_every_address_on_follow_serves_its_feed_in_its_format(client, site):
    types = {"RSS": "application/rss+xml", "Atom": "application/atom+xml"}
    types["JSON Feed"] = "application/feed+json"
    found = addresses(page(client, "/follow/"))
    assert len(found) == 3 * 4 + 1  # the site, two topics, an author; the corrections
    for kind, url in found:
        response = client.get(url.removeprefix(ORIGIN))
        assert response.status_code == 200, url
        assert response["Content-Type"] == f"{types[kind]}; charset=utf-8", url


def test_each_address_has_a_copy_button_for_it_shown_only_by_the_script(client, site):
    html = page(client, "/follow/")
    rows = re.findall(
        r'<code class="feed-url">([^<]+)</code> <button class="copy-button" type="button" '
        r'data-copy="([^"]+)" hidden>',
        html,
    )
    assert len(rows) == len(addresses(html))
    assert all(shown == copied for shown, copied in rows)
    assert re.search(r'<script src="/static/js/reader\.js" defer></script>', html)


def test_copy_buttons_say_which_address_they_copy(client, site):
    html = page(client, "/follow/")
    assert 'Copy</span><span class="visually-hidden"> the Atom address of Skillo: Linux' in html


def test_follow_is_linked_from_the_header_and_the_footer(client, site):
    html = page(client, "/")
    header = html[html.index('<header class="site-header">') : html.index("</header>")]
    footer = html[html.index('<footer class="site-footer">') :]
    assert '<a href="/follow/">Follow</a>' in header
    assert '<a href="/follow/">Follow Skillo</a>' in footer


def test_follow_lists_the_biggest_topics_when_there_are_too_many(client, monkeypatch):
    monkeypatch.setattr(views, "FOLLOW_LIMIT", 2)
    for tags in (["Small"], ["Big", "Bigger"], ["Big", "Bigger"], ["Bigger"]):
        ArticleFactory(tags=tags)
    html = page(client, "/follow/")
    assert "/tags/big/feed/" in html and "/tags/bigger/feed/" in html
    assert "/tags/small/feed/" not in html  # (the header links the topic itself)
    assert "And 1 more:" in html


# Each feed, as it names its page for people.
XML_FEEDS = {
    "/feed/": "/feed/about/",
    "/feed/atom/": "/feed/about/",
    "/tags/linux/feed/": "/tags/linux/feed/about/",
    "/tags/linux/feed/atom/": "/tags/linux/feed/about/",
    "/authors/ada-writer/feed/": "/authors/ada-writer/feed/about/",
    "/authors/ada-writer/feed/atom/": "/authors/ada-writer/feed/about/",
    "/corrections/feed/": "/corrections/feed/about/",
}
JSON_FEEDS = {
    "/feed.json": "/feed/about/",
    "/tags/linux/feed.json": "/tags/linux/feed/about/",
    "/authors/ada-writer/feed.json": "/authors/ada-writer/feed/about/",
}


@pytest.mark.parametrize("url", XML_FEEDS)
def test_an_xml_feed_names_its_web_page_first_in_a_comment(client, site, url):
    body = client.get(url).content.decode()
    declaration, comment, root = body.split("\n", 2)
    assert declaration == '<?xml version="1.0" encoding="utf-8"?>'
    assert comment.startswith("<!-- This is a feed, for feed readers")
    assert comment.endswith(f"open {ORIGIN}{XML_FEEDS[url]} -->")
    assert root.startswith(("<rss ", "<feed "))
    ET.fromstring(body)  # still well-formed


@pytest.mark.parametrize("url", JSON_FEEDS)
def test_a_json_feed_names_its_web_page_in_its_comment_for_people(client, site, url):
    data = client.get(url).json()
    assert data["user_comment"].endswith(f"open {ORIGIN}{JSON_FEEDS[url]}")
    # Right after the version, where a person reading the raw JSON starts.
    assert list(data)[:2] == ["version", "user_comment"]


@pytest.mark.parametrize("url", [*XML_FEEDS, *JSON_FEEDS])
def test_a_feed_is_the_same_for_a_browser_and_a_feed_reader(client, site, url):
    browser = client.get(url, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    reader = client.get(url, headers={"Accept": "application/rss+xml, application/atom+xml"})
    assert browser["Content-Type"] == reader["Content-Type"]
    assert browser.content == reader.content


def test_a_comment_cannot_be_broken_by_an_address_with_two_hyphens(settings, site):
    settings.ALLOWED_HOSTS = ["xn--bcher-kva.example"]
    settings.SKILLO_SITE_URL = "http://xn--bcher-kva.example"
    AuthorFactory(name="Odd Slug", slug="odd--slug")
    body = Client(HTTP_HOST="xn--bcher-kva.example").get("/authors/odd--slug/feed/").content
    ET.fromstring(body)
    comment = body.decode().split("\n")[1]
    assert comment.endswith("open /authors/odd-%2Dslug/feed/about/ -->")


def test_a_topic_has_an_atom_feed_of_its_own_articles_with_ids_of_its_own(client, site):
    root = ET.fromstring(client.get("/tags/linux/feed/atom/").content)
    assert [entry.find(ATOM + "title").text for entry in root.iter(ATOM + "entry")] == [
        "Linux 6.1 ships"
    ]
    site_id = ET.fromstring(client.get("/feed/atom/").content).find(ATOM + "id").text
    topic_id = root.find(ATOM + "id").text
    assert topic_id == "tag:skillo.example,2024-01-01:topic:linux:atom" != site_id


def test_an_author_has_a_json_feed_of_their_articles(client, site):
    data = client.get("/authors/ada-writer/feed.json").json()
    assert data["title"] == "Skillo: Ada Writer"
    assert [item["title"] for item in data["items"]] == ["Linux 6.1 ships"]
    assert data["items"][0]["authors"][0]["name"] == "Ada Writer"


# Each feed's page, as people see the feed.
FEED_PAGES = {
    "/feed/about/": "/feed/",
    "/tags/linux/feed/about/": "/tags/linux/feed/",
    "/authors/ada-writer/feed/about/": "/authors/ada-writer/feed/",
}


@pytest.mark.parametrize("url", FEED_PAGES)
def test_a_feeds_page_shows_the_articles_the_feed_carries_in_its_order(client, site, url):
    ArticleFactory(title="Linux 6.2 ships", tags=["Linux"], authors=["Ada Writer"])
    feed = ET.fromstring(client.get(FEED_PAGES[url]).content)
    carried = [item.find("title").text for item in feed.iter("item")]
    shown = re.findall(r'<h2 class="card-title"><a href="[^"]+">([^<]+)</a>', page(client, url))
    assert shown == carried and len(shown) >= 2


@pytest.mark.parametrize("url", FEED_PAGES)
def test_a_feeds_page_lists_its_addresses_in_every_format(client, site, url):
    found = addresses(page(client, url))
    assert [kind for kind, _ in found] == ["RSS", "Atom", "JSON Feed"]
    assert found[0][1] == ORIGIN + FEED_PAGES[url]


def test_a_feeds_page_shows_at_most_what_the_feed_carries(client, monkeypatch):
    monkeypatch.setattr(views, "FEED_SIZE", 2)
    for n in range(3):
        ArticleFactory(title=f"Story {n}")
    shown = re.findall(r'<h2 class="card-title">', page(client, "/feed/about/"))
    assert len(shown) == 2


def test_the_corrections_feeds_page_lists_its_corrections(client, site):
    CorrectionFactory(article=site, note="The version was 6.1, not 6.0.")
    html = page(client, "/corrections/feed/about/")
    assert "The version was 6.1, not 6.0." in html
    assert addresses(html) == [("RSS", f"{ORIGIN}/corrections/feed/")]


@pytest.mark.parametrize("url", ["/tags/go/feed/about/", "/authors/nobody/feed/about/"])
def test_no_feed_page_for_a_topic_or_author_without_a_feed(client, site, url):
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    ("url", "about"),
    [
        ("/tags/linux/", "/tags/linux/feed/about/"),
        ("/authors/ada-writer/", "/authors/ada-writer/feed/about/"),
        ("/corrections/", "/corrections/feed/about/"),
    ],
)
def test_topic_author_and_corrections_pages_link_their_feeds_page(client, site, url, about):
    assert f'href="{about}"' in page(client, url)


@pytest.mark.parametrize("url", ["/tags/linux/", "/authors/ada-writer/"])
def test_topic_and_author_pages_announce_each_of_their_feeds(client, site, url):
    html = page(client, url)
    kinds = re.findall(r'<link rel="alternate" type="([^"]+)" title="Skillo: [^"(]+\(', html)
    assert {"application/rss+xml", "application/atom+xml", "application/feed+json"} <= set(kinds)


def test_follow_shows_each_topic_on_a_line_with_its_addresses_behind_it(client, site):
    html = page(client, "/follow/")
    topics = html[html.index('id="follow-topics"') : html.index('id="follow-authors"')]
    linux = re.search(
        r'<details class="follow-item"><summary>Linux</summary>(.*?)</details>', topics
    )
    assert linux, topics
    assert {url for _, url in addresses(linux[1])} == {
        f"{ORIGIN}/tags/linux/feed/",
        f"{ORIGIN}/tags/linux/feed/atom/",
        f"{ORIGIN}/tags/linux/feed.json",
    }
    # No address outside a topic's own disclosure.
    outside = re.sub(r"<details.*?</details>", "", topics, flags=re.S)
    assert addresses(outside) == []


def test_follow_puts_the_site_wide_ways_before_the_topics_and_authors(client, site):
    html = page(client, "/follow/")
    site_wide = ["follow-everything", "follow-fediverse", "follow-corrections"]
    last = max(html.index(f'id="{name}"') for name in site_wide)
    assert last < html.index('id="follow-topics"') < html.index('id="follow-authors"')
