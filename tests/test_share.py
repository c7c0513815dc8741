"""An article's share links: plain links to each site's own form for a new post, which
load nothing from any other site, the same for every reader (the page is cached whole)."""

import re
from html import escape, unescape
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db

TITLE = "AT&T ships <impl Trait> & more"


@pytest.fixture
def article():
    return ArticleFactory(title=TITLE, tags=["Rust"])


def share_section(client, article):
    page = client.get(article.get_absolute_url()).content.decode()
    return page[
        page.index('<section class="share"') : page.index(
            "</section>", page.index('<section class="share"')
        )
    ]


def links(section):
    return {
        name: unescape(href)
        for href, name in re.findall(r'<a href="([^"#]+)"[^>]*>([^<]+)</a>', section)
    }


def url(article):
    return f"http://testserver{article.get_absolute_url()}"


def test_bluesky_opens_a_new_post_with_the_title_and_address(client, article):
    href = links(share_section(client, article))["Bluesky"]
    parts = urlsplit(href)
    assert f"{parts.scheme}://{parts.netloc}{parts.path}" == "https://bsky.app/intent/compose"
    assert parse_qs(parts.query) == {"text": [f"{TITLE} {url(article)}"]}


def test_hacker_news_gets_the_address_and_the_title(client, article):
    parts = urlsplit(links(share_section(client, article))["Hacker News"])
    assert f"{parts.netloc}{parts.path}" == "news.ycombinator.com/submitlink"
    assert parse_qs(parts.query) == {"u": [url(article)], "t": [TITLE]}


def test_linkedin_gets_the_address(client, article):
    parts = urlsplit(links(share_section(client, article))["LinkedIn"])
    assert f"{parts.netloc}{parts.path}" == "www.linkedin.com/sharing/share-offsite/"
    assert parse_qs(parts.query) == {"url": [url(article)]}


def test_e_mail_has_the_title_as_subject_and_the_address_as_body(client, article):
    href = links(share_section(client, article))["E-mail"]
    assert href.startswith("mailto:?subject=AT%26T%20ships%20%3Cimpl%20Trait%3E%20%26%20more&body=")
    assert parse_qs(urlsplit(href).query) == {"subject": [TITLE], "body": [url(article)]}


def test_share_links_send_no_referrer(client, article):
    section = share_section(client, article)
    anchors = re.findall(r'<a href="https?://[^"]+"([^>]*)>', section)
    assert len(anchors) == 3
    assert all('rel="noopener noreferrer nofollow"' in rest for rest in anchors)


def test_script_only_controls_are_hidden_until_the_script_shows_them(client, article):
    section = share_section(client, article)
    for control in ("share-native", "share-mastodon", "copy-button"):
        assert re.search(rf'<li hidden><(button|a) class="{control}"', section), control
    assert '<form class="mastodon-form" id="mastodon-server" hidden>' in section


def test_the_share_section_holds_what_the_script_shares(client, article):
    section = share_section(client, article)
    assert f'data-share-title="{escape(TITLE)}"' in section
    assert f'data-share-url="{url(article)}"' in section
    assert f'data-copy="{url(article)}"' in section


def test_an_article_page_loads_nothing_from_another_site(client, article):
    """Every script, stylesheet, picture, frame and icon the page loads is the site's
    own (tests/browser checks the requests a browser makes, too)."""
    page = client.get(article.get_absolute_url()).content.decode()
    loaded = re.findall(
        r'<(?:script|img|source|iframe|video|audio)\b[^>]*\bsrcs?e?t?="([^"]+)"', page
    )
    loaded += re.findall(
        r'<link\b(?=[^>]*\brel="(?:stylesheet|icon|preload|modulepreload|apple-touch-icon)")[^>]*\bhref="([^"]+)"',
        page,
    )
    assert loaded
    assert [src for src in loaded if not src.startswith("/")] == []
