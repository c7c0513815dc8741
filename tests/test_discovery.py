import json
import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta

import pytest
from django.contrib.staticfiles import finders
from django.utils import timezone

from news import asides
from news.models import RelatedLink

from .conftest import count_queries
from .factories import ArticleFactory, SourceFactory

pytestmark = pytest.mark.django_db

NS = {
    "atom": "http://www.w3.org/2005/Atom",
    "sm": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "news": "http://www.google.com/schemas/sitemap-news/0.9",
}


def xml(client, url):
    response = client.get(url)
    assert response.status_code == 200, url
    return ET.fromstring(response.content)


@pytest.fixture
def world():
    """A public article with a source and tags, plus a draft and a scheduled one."""
    public = ArticleFactory(title="PyTorch 2.4 ships", tags=["pytorch", "python"])
    SourceFactory(article=public, title="Release notes", publisher="GitHub")
    draft = ArticleFactory(title="Secret draft", tags=["pytorch"], draft=True)
    scheduled = ArticleFactory(title="Embargoed story", tags=["pytorch"], scheduled=True)
    return public, draft, scheduled


def assert_hidden(text, world):
    for article in world[1:]:
        assert article.title not in text
        assert article.slug not in text


# Feeds


def test_rss_feed_items_carry_body_sources_tags_and_dates(client, world):
    public = world[0]
    channel = xml(client, "/feed/").find("channel")
    assert channel.findtext("title") == "Skillo"
    assert channel.findtext("link").endswith("/")
    (item,) = channel.findall("item")
    assert item.findtext("title") == public.title
    assert item.findtext("link").endswith(public.get_absolute_url())
    description = item.findtext("description")
    assert '<h2 id="what-happened">What happened</h2>' in description
    assert "Release notes</a> (GitHub)" in description
    assert sorted(c.text for c in item.findall("category")) == ["python", "pytorch"]
    assert item.findtext("pubDate")


def test_atom_feed_has_published_and_updated(client, world):
    feed = xml(client, "/feed/atom/")
    (entry,) = feed.findall("atom:entry", NS)
    assert entry.findtext("atom:title", namespaces=NS) == world[0].title
    assert entry.findtext("atom:published", namespaces=NS).startswith(
        world[0].published_at.strftime("%Y-%m-%d")
    )
    assert entry.findtext("atom:updated", namespaces=NS)
    assert {c.get("term") for c in entry.findall("atom:category", NS)} == {"python", "pytorch"}


def test_feeds_leave_out_unpublished_articles(client, world):
    for url in ["/feed/", "/feed/atom/", "/tags/pytorch/feed/"]:
        assert_hidden(client.get(url).content.decode(), world)


def test_tag_feed_lists_only_that_tag(client, world):
    ArticleFactory(title="Go story", tags=["go"])
    items = xml(client, "/tags/go/feed/").find("channel").findall("item")
    assert [i.findtext("title") for i in items] == ["Go story"]


def test_tag_feed_for_unknown_or_draft_only_tag_is_404(client, world):
    ArticleFactory(tags=["embargo"], draft=True)
    assert client.get("/tags/nope/feed/").status_code == 404
    assert client.get("/tags/embargo/feed/").status_code == 404


def test_pages_link_their_feeds(client, world):
    home = client.get("/").content.decode()
    assert (
        '<link rel="alternate" type="application/rss+xml" title="Skillo (RSS)" href="/feed/">'
        in home
    )
    assert 'type="application/atom+xml"' in home and 'href="/feed/atom/"' in home
    tag_page = client.get("/tags/pytorch/").content.decode()
    assert 'rel="alternate" type="application/rss+xml"' in tag_page
    assert 'href="/tags/pytorch/feed/"' in tag_page


@pytest.mark.parametrize("url", ["/feed/", "/tags/pytorch/feed/"])
def test_feed_queries_do_not_grow(client, url):
    counts = []
    for n in (1, 15):
        for _ in range(n):
            article = ArticleFactory(tags=["pytorch", f"t{_}"])
            SourceFactory(article=article)
        counts.append(count_queries(client, url))
    assert counts[0] == counts[1]


# Sitemaps and robots.txt


def sitemap_entries(client):
    """Every <url> of every sitemap the index at /sitemap.xml lists: {loc: lastmod}."""
    entries = {}
    for location in xml(client, "/sitemap.xml").iterfind("sm:sitemap/sm:loc", NS):
        page = xml(client, location.text.removeprefix("http://testserver"))
        for url in page.findall("sm:url", NS):
            entries[url.findtext("sm:loc", namespaces=NS)] = url.findtext(
                "sm:lastmod", namespaces=NS
            )
    return entries


def test_sitemap_lists_articles_tags_and_home(client, world):
    entries = sitemap_entries(client)
    article_url = f"http://testserver{world[0].get_absolute_url()}"
    expected = timezone.localtime(world[0].updated_at).replace(microsecond=0).isoformat()
    assert entries[article_url] == expected
    assert "http://testserver/tags/pytorch/" in entries
    assert "http://testserver/" in entries
    for section in ("home", "articles", "tags"):
        page = client.get(f"/sitemaps/{section}.xml").content.decode()
        assert_hidden(page, world)


def test_each_sections_lastmod_in_the_index_is_its_latest_entrys(client, world, time_machine):
    ArticleFactory(title="With a byline", tags=["rust"], authors=["Ada Lovelace"])
    time_machine.move_to(timezone.now() + timedelta(hours=1))
    # Changed last, but in neither section: no topic, no byline.
    ArticleFactory(title="Plain")
    index = {
        entry.findtext("sm:loc", namespaces=NS).rsplit("/", 1)[-1]: entry.findtext(
            "sm:lastmod", namespaces=NS
        )
        for entry in xml(client, "/sitemap.xml").iterfind("sm:sitemap", NS)
    }
    for section in ("tags", "authors", "articles"):
        page = xml(client, f"/sitemaps/{section}.xml")
        latest = max(
            url.findtext("sm:lastmod", namespaces=NS) for url in page.iterfind("sm:url", NS)
        )
        assert index[f"{section}.xml"] == latest, section
    assert index["tags.xml"] < index["articles.xml"]


def test_sitemap_index_pages_a_big_archive(client, settings):
    from news.sitemaps import ArticleSitemap

    ArticleSitemap.limit = 2
    try:
        articles = ArticleFactory.create_batch(5)
        entries = sitemap_entries(client)
    finally:
        from news.sitemaps import PAGE_SIZE

        ArticleSitemap.limit = PAGE_SIZE
    for article in articles:
        assert f"http://testserver{article.get_absolute_url()}" in entries


def test_news_sitemap_has_only_the_last_two_days(client, world):
    old = ArticleFactory(title="Old news", published_at=timezone.now() - timedelta(days=3))
    root = xml(client, "/sitemap-news.xml")
    (url,) = root.findall("sm:url", NS)
    assert url.findtext("sm:loc", namespaces=NS).endswith(world[0].get_absolute_url())
    news = url.find("news:news", NS)
    publication = news.find("news:publication", NS)
    assert publication.findtext("news:name", namespaces=NS) == "Skillo"
    assert publication.findtext("news:language", namespaces=NS) == "en"
    assert news.findtext("news:title", namespaces=NS) == world[0].title
    assert news.findtext("news:publication_date", namespaces=NS).startswith(
        world[0].published_at.strftime("%Y-%m-%d")
    )
    text = client.get("/sitemap-news.xml").content.decode()
    assert old.title not in text
    assert_hidden(text, world)


def test_robots_txt_names_sitemaps_and_keeps_crawlers_out_of_admin(client, world):
    response = client.get("/robots.txt")
    assert response["Content-Type"].startswith("text/plain")
    lines = response.content.decode().splitlines()
    assert "Disallow: /admin/" in lines
    assert "Sitemap: http://testserver/sitemap.xml" in lines
    assert "Sitemap: http://testserver/sitemap-news.xml" in lines


def security_fields(response):
    """security.txt's fields (RFC 9116 section 2.4) as (name, value) pairs."""
    lines = response.content.decode().splitlines()
    return [tuple(part.strip() for part in line.split(":", 1)) for line in lines if line]


def test_security_txt_names_the_contacts_from_the_settings_and_expires_within_a_year(
    client, settings
):
    settings.SKILLO_SECURITY_CONTACTS = [
        "mailto:security@skillo.example",
        "https://skillo.example/report",
    ]
    settings.SKILLO_SECURITY_POLICY = "https://skillo.example/disclosure"
    response = client.get("/.well-known/security.txt")
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    fields = security_fields(response)
    assert [
        value for name, value in fields if name == "Contact"
    ] == settings.SKILLO_SECURITY_CONTACTS
    assert ("Policy", "https://skillo.example/disclosure") in fields
    assert ("Canonical", "http://testserver/.well-known/security.txt") in fields
    (expires,) = [value for name, value in fields if name == "Expires"]
    expires = datetime.fromisoformat(expires)
    assert timezone.now() < expires < timezone.now() + timedelta(days=365)


def test_security_txt_is_not_there_without_a_contact(client, settings):
    settings.SKILLO_SECURITY_CONTACTS = []
    assert client.get("/.well-known/security.txt").status_code == 404


@pytest.mark.parametrize(
    "url", ["/sitemap.xml", "/sitemaps/articles.xml", "/sitemaps/tags.xml", "/sitemap-news.xml"]
)
def test_sitemap_queries_do_not_grow(client, url):
    counts = []
    for n in (1, 20):
        for i in range(n):
            ArticleFactory(tags=[f"s{n}-{i}"])
        counts.append(count_queries(client, url))
    assert counts[0] == counts[1]


# Structured data and sharing


def json_ld(page):
    blocks = re.findall(r'<script type="application/ld\+json">(.*?)</script>', page, re.S)
    assert len(blocks) == 1
    return json.loads(blocks[0])


def test_article_page_metadata_matches_the_article(client, world):
    article = world[0]
    page = client.get(article.get_absolute_url()).content.decode()
    url = f"http://testserver{article.get_absolute_url()}"
    assert f"<title>{article.title} · Skillo</title>" in page
    assert f'<meta name="description" content="{article.summary}">' in page
    assert f'<link rel="canonical" href="{url}">' in page
    assert f'<meta property="og:title" content="{article.title}">' in page
    assert f'<meta property="og:url" content="{url}">' in page
    assert '<meta name="twitter:card" content="summary_large_image">' in page
    data = json_ld(page)
    assert data["@type"] == "NewsArticle"
    assert data["headline"] == article.title
    assert data["description"] == article.summary
    assert data["inLanguage"] == "en"
    assert data["datePublished"] == article.published_at.replace(microsecond=0).isoformat()
    assert data["dateModified"] == article.updated_at.replace(microsecond=0).isoformat()
    # A date-time (schema.org), from midnight of the event's day in the newsroom.
    assert data["contentReferenceTime"] == f"{article.event_date.isoformat()}T00:00:00+00:00"
    assert data["publisher"] == {
        "@type": "Organization",
        "name": "Skillo",
        "url": "http://testserver/",
        "logo": {
            "@type": "ImageObject",
            "url": "http://testserver/static/icons/skillo-512.png",
            "width": 512,
            "height": 512,
        },
    }
    assert sorted(data["keywords"]) == ["python", "pytorch"]
    assert data["citation"] == [
        {
            "@type": "CreativeWork",
            "name": "Release notes",
            "publisher": {"@type": "Organization", "name": "GitHub"},
            "url": article.sources.get().url,
        }
    ]


def test_home_and_list_pages_describe_the_site_with_its_search(client, world):
    for url in ["/", "/tags/", "/tags/python/"]:
        page = client.get(url).content.decode()
        assert '<meta property="og:type" content="website">' in page
        assert f'<meta property="og:url" content="http://testserver{url}">' in page
        graph = {node["@type"]: node for node in json_ld(page)["@graph"]}
        action = graph["WebSite"]["potentialAction"]
        assert action["target"]["urlTemplate"] == (
            "http://testserver/search/?q={search_term_string}"
        )
        assert graph["Organization"]["logo"]["url"].endswith("/icons/skillo-512.png")


def test_the_site_description_names_the_site_address_whatever_host_was_asked(client, world):
    """SITE_URL, not the Host header: a page asked on another name the server allows
    (an internal health check's) must not give that name to search engines."""
    for host in ["testserver", "localhost"]:
        page = client.get("/", HTTP_HOST=host).content.decode()
        graph = {node["@type"]: node for node in json_ld(page)["@graph"]}
        assert graph["WebSite"]["url"] == "http://testserver/"
        assert graph["Organization"]["logo"]["url"].startswith("http://testserver/")
        assert '<link rel="canonical" href="http://testserver/">' in page


def test_every_page_names_its_icons_and_they_are_served(client, world):
    page = client.get("/").content.decode()
    assert '<link rel="icon" href="/favicon.ico" sizes="48x48">' in page
    assert 'type="image/svg+xml"' in page
    for url in ["/favicon.ico", "/apple-touch-icon.png"]:
        response = client.get(url)
        response.close()  # a file WhiteNoise opened
        assert response.status_code == 200, url
        assert response["Content-Type"] in {"image/x-icon", "image/png"}
    assert finders.find("icons/skillo.svg")


def test_an_article_without_a_lead_image_gives_json_ld_its_share_card(client):
    """The picture link previews show (og:image: the card drawn from the title) is the
    JSON-LD's image too, so search engines have one for every article."""
    article = ArticleFactory(tags=["python"])
    page = client.get(article.get_absolute_url()).content.decode()
    (og_image,) = re.findall(r'<meta property="og:image" content="([^"]+)"', page)
    assert json_ld(page)["image"] == [og_image]
    card = client.get(og_image)
    card.close()
    assert (card.status_code, card["Content-Type"]) == (200, "image/png")


@pytest.mark.parametrize("kind", ["topic", "author"])
def test_topic_and_author_pages_name_themselves_to_link_previews(client, kind):
    ArticleFactory(tags=["Rust lang"], authors=["Ada Writer"])
    url = "/tags/rust-lang/" if kind == "topic" else "/authors/ada-writer/"
    page = client.get(url).content.decode()
    name = "Rust lang" if kind == "topic" else "Ada Writer"
    assert f'<meta property="og:title" content="{name} · Skillo">' in page


def test_hostile_title_cannot_break_out_of_json_ld(client):
    title = "</script><script>alert(1)</script><!-- & \u2028"
    article = ArticleFactory(title=title, summary="<b>bold</b> & </script>")
    page = client.get(article.get_absolute_url()).content.decode()
    assert "<script>alert(1)" not in page
    # Each script element of the page's own (JSON-LD, static/js's reader and beacon,
    # the members' script) ends where it should.
    assert page.count("</script>") == page.count("<script ") == 4
    data = json_ld(page)
    assert data["headline"] == title
    assert data["description"] == "<b>bold</b> & </script>"


@pytest.mark.parametrize(
    ("url", "title"),
    [("/", "Skillo: tech news with sources"), ("/tags/pytorch/", "pytorch · Skillo")],
)
def test_list_pages_have_title_description_and_canonical(client, world, url, title):
    page = client.get(url).content.decode()
    assert f"<title>{title}</title>" in page
    assert re.search(r'<meta name="description" content="[^"]{20,}">', page)
    assert f'<link rel="canonical" href="http://testserver{url}">' in page


# Search


def search(client, q, **params):
    response = client.get("/search/", {"q": q, **params})
    assert response.status_code == 200
    return response


def result_titles(response):
    return [article.title for article in response.context["results"]]


@pytest.mark.parametrize(
    ("field", "query"),
    [
        ("title", "quantum"),
        ("summary", "quantum"),
        ("body", "quantum"),
        ("tag", "quantum"),
        ("source title", "quantum"),
        ("publisher", "quantum"),
    ],
)
def test_search_covers_every_field(client, field, query):
    kwargs = {"title": "Plain story", "summary": "Nothing.", "body": "Nothing here."}
    if field in ("title", "summary", "body"):
        kwargs[field] = "The Quantum release."
    article = ArticleFactory(**kwargs, tags=["quantum"] if field == "tag" else ["misc"])
    if field == "source title":
        SourceFactory(article=article, title="Quantum notes", publisher="ACME")
    if field == "publisher":
        SourceFactory(article=article, title="Notes", publisher="Quantum Press")
    ArticleFactory(title="Unrelated", body="Other words.")
    assert result_titles(search(client, query)) == [article.title]


def test_search_ranks_title_matches_first_and_highlights(client):
    body_only = ArticleFactory(title="Release roundup", body="Later we mention kubernetes once.")
    in_title = ArticleFactory(title="Kubernetes 1.30 released", body="A release.")
    response = search(client, "Kubernetes")
    assert result_titles(response) == [in_title.title, body_only.title]
    assert "<mark>kubernetes</mark>" in response.content.decode().lower()


def test_search_leaves_out_unpublished_articles(client, world):
    text = search(client, "pytorch").content.decode()
    assert world[0].title in text
    assert_hidden(text, world)


def test_search_is_paginated(client):
    for i in range(12):
        ArticleFactory(title=f"Zeppelin {i}")
    first, second = search(client, "zeppelin"), search(client, "zeppelin", page=2)
    assert len(first.context["results"]) == 10 and len(second.context["results"]) == 2
    assert "?q=zeppelin&amp;page=2" in first.content.decode()


def test_search_follows_edits_and_deletions(client):
    article = ArticleFactory(body="Nothing yet.")
    assert result_titles(search(client, "zanzibar")) == []
    article.body = "Now about Zanzibar."
    article.save()
    assert result_titles(search(client, "zanzibar")) == [article.title]
    article.tags.add("okapi")
    assert result_titles(search(client, "okapi")) == [article.title]
    article.delete()
    assert result_titles(search(client, "zanzibar")) == []


@pytest.mark.parametrize(
    "query",
    ["", "   ", "x" * 5000, '"', '"unbalanced', "C++", "-linux", "*", "a AND OR NOT",
     "NEAR(a b)", "title:foo", "ünïcödé 東京 🚀", "'; DROP TABLE news_article; --", "\x00"],
)  # fmt: skip
def test_odd_queries_give_a_normal_page(client, world, query):
    response = search(client, query)
    assert "<h1>Search</h1>" in response.content.decode()


def test_header_has_a_labelled_search_box(client):
    page = client.get("/").content.decode()
    assert re.search(
        r'<form class="search-form" role="search" aria-label="Site search" action="/search/"', page
    )
    assert '<label for="site-search">Search</label>' in page


@pytest.mark.parametrize("n", [1, 20])
def test_search_queries_do_not_grow(client, n):
    for i in range(n):
        ArticleFactory(title=f"Walrus {i}", tags=[f"w{i}", "walrus"])
    assert count_queries(client, "/search/?q=walrus") == 3  # count, page, tags


# Archives and timelines


def dated(title, event, tags=("pytorch",), **kwargs):
    return ArticleFactory(title=title, event_date=event, tags=list(tags), **kwargs)


def test_year_archive_lists_the_year_by_event_date_with_navigation(client):
    dated("July story", date(2024, 7, 24))
    dated("March story", date(2024, 3, 1))
    dated("Older story", date(2023, 10, 4))
    dated("Draft story", date(2024, 5, 5), draft=True)
    page = client.get("/archive/2024/").content.decode()
    assert page.index("March story") < page.index("July story")
    assert "Older story" not in page and "Draft story" not in page
    assert 'href="/archive/2023/"' in page
    assert 'href="/archive/2024/3/"' in page and 'href="/archive/2024/7/"' in page
    assert 'href="/archive/2024/5/"' not in page


def test_archive_lists_each_month_with_a_published_article_across_years(client):
    dated("Eve", date(2023, 12, 31))
    dated("New year", date(2024, 1, 1))
    dated("Mid January", date(2024, 1, 15))
    dated("End of March", date(2024, 3, 31))
    dated("Far future", date(9999, 12, 31))
    dated("Draft", date(2024, 2, 10), draft=True)
    dated("Scheduled", date(2024, 4, 2), scheduled=True)
    months = re.findall(
        r'href="/archive/(\d+/\d+)/"', client.get("/archive/2024/1/").content.decode()
    )
    assert months == ["2024/3"]  # January is the page itself
    page = client.get("/archive/2024/").content.decode()
    assert re.findall(r'href="/archive/(\d+/\d+)/"', page) == ["2024/1", "2024/3"]
    assert 'href="/archive/2023/"' in page and 'href="/archive/9999/"' in page
    assert "Far future" in client.get("/archive/9999/12/").content.decode()


def test_month_archive_lists_only_that_month(client):
    dated("July story", date(2024, 7, 24))
    dated("March story", date(2024, 3, 1))
    page = client.get("/archive/2024/7/").content.decode()
    assert "July story" in page and "March story" not in page
    assert "<h1>July 2024</h1>" in page
    # The month shown is marked, the others and the year link.
    assert '<li><span aria-current="page">July</span></li>' in page
    assert '<li><a href="/archive/2024/3/">March</a></li>' in page
    assert '<li><a href="/archive/2024/">2024</a></li>' in page


@pytest.mark.parametrize(
    "url",
    ["/archive/1999/", "/archive/2024/13/", "/archive/2024/2/", "/archive/2024/0/",
     "/archive/0/", "/archive/10000/", "/archive/99999999999999999999/"],
)  # fmt: skip
def test_empty_or_impossible_archive_is_404(client, url):
    dated("July story", date(2024, 7, 24))
    assert client.get(url).status_code == 404


def test_tag_timeline_orders_by_event_date(client):
    dated("PyTorch 2.4", date(2024, 7, 24))
    dated("PyTorch 2.0", date(2023, 3, 15))
    dated("PyTorch 2.1", date(2023, 10, 4))
    dated("PyTorch 3.0 draft", date(2025, 1, 1), draft=True)
    page = client.get("/tags/pytorch/timeline/").content.decode()
    positions = [page.index(t) for t in ("PyTorch 2.0", "PyTorch 2.1", "PyTorch 2.4")]
    assert positions == sorted(positions)
    assert "PyTorch 3.0 draft" not in page
    assert (
        '<li><time datetime="2023-03-15">15 March 2023</time> '
        '<a href="/articles/pytorch-2-0/">PyTorch 2.0</a></li>'
    ) in page


# Small topics list their articles; bigger ones are walked by event date (news.asides).
walked_or_listed = pytest.mark.parametrize("walked", [False, True], ids=["listed", "walked"])


@pytest.fixture
def neighbours(monkeypatch, walked):
    if walked:
        monkeypatch.setattr(asides, "NEIGHBOURS_LISTED", 0)


@walked_or_listed
@pytest.mark.usefixtures("neighbours")
def test_article_shows_previous_and_next_by_event_date_on_its_first_tag(client):
    first = dated("PyTorch 2.0", date(2023, 3, 15), tags=["ai", "pytorch"])
    middle = dated("PyTorch 2.1", date(2023, 10, 4), tags=["ai", "pytorch"])
    dated("PyTorch 2.2 draft", date(2024, 1, 30), tags=["ai"], draft=True)
    dated("PyTorch 2.3 scheduled", date(2024, 4, 24), tags=["ai"], scheduled=True)
    last = dated("PyTorch 2.4", date(2024, 7, 24), tags=["ai"])
    dated("Other topic", date(2023, 12, 1), tags=["go"])
    page = client.get(middle.get_absolute_url()).content.decode()
    assert f'Previous: <a href="{first.get_absolute_url()}" rel="prev">' in page
    assert f'Next: <a href="{last.get_absolute_url()}" rel="next">' in page
    assert "draft" not in page and "scheduled" not in page and "Other topic" not in page


@walked_or_listed
@pytest.mark.usefixtures("neighbours")
def test_neighbours_on_the_same_event_date_go_by_publication_time(client):
    now = timezone.now()
    earlier, middle, later = (
        ArticleFactory(
            title=title, tags=["ai"], event_date=date(2024, 5, 1),
            published_at=now - timedelta(hours=hours),
        )
        for title, hours in (("Earlier", 3), ("Middle", 2), ("Later", 1))
    )  # fmt: skip
    ArticleFactory(title="Day before", tags=["ai"], event_date=date(2024, 4, 30))
    page = client.get(middle.get_absolute_url()).content.decode()
    assert f'Previous: <a href="{earlier.get_absolute_url()}" rel="prev">' in page
    assert f'Next: <a href="{later.get_absolute_url()}" rel="next">' in page


@pytest.mark.parametrize("url", ["/archive/2024/", "/tags/pytorch/timeline/"])
def test_archive_and_timeline_queries_do_not_grow(client, url):
    counts = []
    for n in (1, 20):
        for i in range(n):
            dated(f"Story {n}-{i}", date(2024, 1 + i % 12, 1), tags=["pytorch", f"x{i}"])
        counts.append(count_queries(client, url))
    assert counts[0] == counts[1]


# Automatic related articles and reading time


def test_more_on_these_topics_ranks_by_shared_tags_then_recency(client):
    now = timezone.now()
    article = ArticleFactory(tags=["a", "b", "c"])
    one_old = ArticleFactory(title="One tag, older", tags=["a"], published_at=now - timedelta(3))
    one_new = ArticleFactory(title="One tag, newer", tags=["b"], published_at=now - timedelta(2))
    three = ArticleFactory(
        title="Three tags", tags=["a", "b", "c"], published_at=now - timedelta(9)
    )
    picked = ArticleFactory(title="Editor pick", tags=["a", "b", "c"])
    ArticleFactory(title="Hidden draft", tags=["a", "b", "c"], draft=True)
    ArticleFactory(title="No shared tag", tags=["z"])
    RelatedLink.objects.create(article=article, target=picked)
    page = client.get(article.get_absolute_url()).content.decode()
    section = page[page.index("More on these topics") :]
    section = section[: section.index("</aside>")]
    titles = re.findall(r'<a href="[^"]+">([^<]+)</a>', section)
    assert titles == [three.title, one_new.title, one_old.title]


def test_more_on_these_topics_leaves_out_the_articles_linked_by_title(client):
    """An editor's pick by title (a "See also" that names the article) is shown once,
    as the pick, not again among the automatic suggestions."""
    article = ArticleFactory(tags=["a"])
    ArticleFactory(title="Picked by title", tags=["a"])
    ArticleFactory(title="Suggested", tags=["a"])
    RelatedLink.objects.create(article=article, title="picked BY title")
    page = client.get(article.get_absolute_url()).content.decode()
    section = page[page.index("More on these topics") :]
    section = section[: section.index("</aside>")]
    assert re.findall(r'<a href="[^"]+">([^<]+)</a>', section) == ["Suggested"]
    assert page.count(">Picked by title</a>") == 1


def test_reading_time_counts_a_minute_begun(client):
    article = ArticleFactory(body="word " * 272)  # 1.2 minutes at 230 words a minute
    assert "2 min read" in client.get(article.get_absolute_url()).content.decode()


def test_search_passage_is_escaped_but_highlighted(client):
    ArticleFactory(
        title="Escapes", body="Typing &lt;script&gt;alert(1)&lt;/script&gt; near the marmot."
    )
    page = search(client, "marmot").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; near the <mark>marmot</mark>" in page


def test_search_query_is_shown_escaped(client):
    page = search(client, '<img src=x onerror=alert(1)> "quoted"').content.decode()
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_topic_sizes_are_each_topic_s_published_articles():
    from news.topics import all_topics, topic_sizes

    for i in range(3):
        dated(f"Story {i}", date(2024, 1, 1 + i), tags=["python", f"only{i}"])
    dated("A draft", date(2024, 2, 1), tags=["python", "drafts"], draft=True)
    sizes = topic_sizes()
    assert dict(sizes) == {tag.pk: tag.article_count for tag in all_topics()}
    assert sorted(sizes.values()) == [1, 1, 1, 3]
    assert sizes.get(-1, 0) == 0 and -1 not in sizes
