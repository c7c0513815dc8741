"""Sharing an article in a real browser, at a phone's width and a desktop's: share links
that make the page load nothing from another site, copy link, the browser's share sheet,
and Mastodon with the reader's own server remembered in their browser only."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import expect

from ..conftest import SHARED_SLUG
from .test_following import WIDTHS, axe_violations, elsewhere, overflow, reader, watch_requests

pytestmark = pytest.mark.django_db(transaction=True)

ARTICLE = f"/articles/{SHARED_SLUG}/"


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_share_links_load_nothing_from_other_sites_fit_and_pass_axe(
    new_page, site, axe_source, artifacts, width, scheme
):
    page = reader(new_page, width)
    page.emulate_media(color_scheme=scheme)
    seen = watch_requests(page)
    page.goto(site + ARTICLE)
    share = page.locator(".share")
    for name in ["Mastodon", "Bluesky", "LinkedIn", "Hacker News", "E-mail"]:
        expect(share.get_by_role("link", name=name, exact=True)).to_be_visible()
    share.get_by_role("button", name="Copy link").click()
    # Asking for a Mastodon server loads nothing either.
    share.get_by_role("link", name="Mastodon").click()
    expect(share.get_by_label("Your Mastodon server")).to_be_focused()
    share.scroll_into_view_if_needed()
    page.screenshot(path=artifacts / f"share-{width}-{scheme}.png")
    assert overflow(page) <= 0, f"the article at {width} overflows by {overflow(page)}px"
    assert axe_violations(page, axe_source) == []
    assert elsewhere(seen, site) == []


def test_copy_link_copies_the_articles_address(new_page, site):
    page = reader(new_page, "phone")
    page.goto(site + ARTICLE)
    page.locator(".share").get_by_role("button", name="Copy link").click()
    assert page.evaluate("navigator.clipboard.readText()") == site + ARTICLE


def test_the_browsers_share_sheet_gets_the_title_and_address(new_page, site):
    page = reader(new_page, "phone")
    # Chromium on Linux has no share sheet: one that records what it is given.
    page.add_init_script(
        "navigator.share = (data) => { window.shared = data; return Promise.resolve(); };"
    )
    page.goto(site + ARTICLE)
    page.get_by_role("button", name="Share…").click()
    shared = page.evaluate("window.shared")
    assert shared["url"] == site + ARTICLE
    assert shared["title"] == page.locator("h1").inner_text()


def test_no_share_sheet_button_where_the_browser_has_none(new_page, site):
    page = reader(new_page, "desktop")
    page.goto(site + ARTICLE)
    expect(page.get_by_role("link", name="Bluesky")).to_be_visible()
    expect(page.get_by_role("button", name="Share…")).to_be_hidden()


def test_mastodon_asks_for_the_readers_server_once_and_remembers_it_in_the_browser(new_page, site):
    page = reader(new_page, "desktop")
    page.context.route(
        "https://mastodon.example/**", lambda route: route.fulfill(body="Mastodon", status=200)
    )
    page.goto(site + ARTICLE)
    title = page.locator("h1").inner_text()
    mastodon = page.locator(".share").get_by_role("link", name="Mastodon")
    mastodon.click()
    page.get_by_label("Your Mastodon server").fill("https://Mastodon.Example/@me")
    page.get_by_role("button", name="Share on Mastodon").click()
    page.wait_for_url("https://mastodon.example/share?**")
    query = parse_qs(urlsplit(page.url).query)
    assert query == {"text": [f"{title} {site}{ARTICLE}"]}

    page.goto(site + ARTICLE)
    assert page.evaluate("localStorage.getItem('skillo.mastodon-server')") == "mastodon.example"
    # Asked once: now a plain link to the reader's server, the form never shown.
    expect(mastodon).to_have_attribute(
        "href", re.compile(r"^https://mastodon\.example/share\?text=")
    )
    expect(page.locator(".mastodon-form")).to_be_hidden()
    mastodon.click()
    page.wait_for_url("https://mastodon.example/share?**")


def test_the_reader_can_forget_their_mastodon_server(new_page, site):
    page = reader(new_page, "phone")
    page.goto(site + ARTICLE)
    page.evaluate("localStorage.setItem('skillo.mastodon-server', 'mastodon.example')")
    page.reload()
    page.get_by_role("button", name="change server").click()
    expect(page.get_by_label("Your Mastodon server")).to_have_value("mastodon.example")
    page.get_by_role("button", name="Forget it").click()
    assert page.evaluate("localStorage.getItem('skillo.mastodon-server')") is None
    expect(page.locator(".share").get_by_role("link", name="Mastodon")).to_have_attribute(
        "href", "#mastodon-server"
    )


def test_mastodon_says_so_when_the_server_is_not_an_address(new_page, site):
    page = reader(new_page, "phone")
    page.goto(site + ARTICLE)
    page.locator(".share").get_by_role("link", name="Mastodon").click()
    page.get_by_label("Your Mastodon server").fill("not a server")
    page.get_by_role("button", name="Share on Mastodon").click()
    expect(page.get_by_role("alert")).to_contain_text("not a server's address")
    assert page.url.startswith(site + ARTICLE)
    assert page.evaluate("localStorage.getItem('skillo.mastodon-server')") is None
