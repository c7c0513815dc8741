"""Following Skillo in a real browser, at a phone's width and a desktop's: the copy
buttons of /follow/ and of a feed's page, which load nothing from another site, and a
feed opened in the browser."""

from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from .checks import axe_violations, overflow

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = {"phone": 390, "desktop": 1280}


def origin(url):
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def watch_requests(page):
    """Every URL the page requests from now on, itself and what it loads."""
    seen = []
    page.on("request", lambda request: seen.append(request.url))
    return seen


def elsewhere(seen, site):
    return [url for url in seen if not url.startswith(("data:", "blob:")) and origin(url) != site]


def reader(new_page, width):
    page = new_page()
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    return page


@pytest.mark.parametrize("width", WIDTHS)
def test_follow_copy_buttons_copy_each_address(new_page, site, width):
    page = reader(new_page, width)
    page.goto(site + "/follow/")
    page.locator("#follow-topics ~ .follow-list summary", has_text="Linux").click()
    row = page.locator(".feed-addresses li", has_text=f"{site}/tags/linux/feed/atom/")
    expect(row.get_by_role("button", name="Copy the Atom address of Skillo: Linux")).to_be_visible()
    button = row.locator("button")
    button.click()
    assert page.evaluate("navigator.clipboard.readText()") == f"{site}/tags/linux/feed/atom/"
    expect(page.locator(".copy-status")).to_have_text(f"Copied {site}/tags/linux/feed/atom/")
    expect(button).to_contain_text("Copied")


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_follow_and_a_feeds_page_fit_load_nothing_elsewhere_and_pass_axe(
    new_page, site, axe_source, artifacts, width, scheme
):
    page = reader(new_page, width)
    page.emulate_media(color_scheme=scheme)
    seen = watch_requests(page)
    for name, path in {"follow": "/follow/", "feed-page": "/tags/linux/feed/about/"}.items():
        page.goto(site + path)
        expect(page.locator(".copy-button").first).to_be_visible()
        page.screenshot(path=artifacts / f"{name}-{width}-{scheme}.png", full_page=True)
        assert overflow(page) <= 0, f"{path} at {width} overflows by {overflow(page)}px"
        assert axe_violations(page, axe_source) == [], path
    assert elsewhere(seen, site) == []


def test_without_javascript_a_topics_line_opens_on_its_addresses_and_one_click_selects_one(
    browser, site
):
    context = browser.new_context(java_script_enabled=False, viewport={"width": 390, "height": 900})
    try:
        page = context.new_page()
        page.goto(site + "/follow/")
        expect(page.locator(".copy-button").first).to_be_hidden()
        page.locator(".follow-list summary", has_text="Rust").click()
        address = page.locator("code.feed-url", has_text=f"{site}/tags/rust/feed.json")
        expect(address).to_be_visible()
        address.click()
        assert page.evaluate("getSelection().toString()") == f"{site}/tags/rust/feed.json"
    finally:
        context.close()


@pytest.mark.parametrize("path", ["/feed/", "/tags/linux/feed/atom/"])
def test_a_feed_opened_in_the_browser_says_where_to_read_it(new_page, site, path):
    page = new_page()
    response = page.goto(site + path)
    assert response.headers["content-type"].startswith(
        ("application/rss+xml", "application/atom+xml")
    )
    about = "/tags/linux/feed/about/" if "linux" in path else "/feed/about/"
    expect(page.locator("body")).to_contain_text("To read it as a web page")
    expect(page.locator("body")).to_contain_text(site + about)
    page.goto(site + about)
    expect(page.locator("h1")).to_contain_text("the feed")


def test_follow_is_one_line_a_topic_with_its_addresses_behind_it(new_page, site):
    page = reader(new_page, "desktop")
    page.goto(site + "/follow/")
    # At 1280 px with the demo content: 4,587 px when every topic's and author's three
    # addresses and copy buttons were shown, 2,252 px with a line each.
    assert page.evaluate("document.documentElement.scrollHeight") < 2500
    linux = page.locator(".follow-item", has=page.locator("summary", has_text="Linux"))
    address = linux.locator("code.feed-url", has_text=f"{site}/tags/linux/feed/")
    expect(address.first).to_be_hidden()
    # By keyboard, as by mouse: the line opens on its addresses and closes again.
    linux.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(address.first).to_be_visible()
    page.keyboard.press("Enter")
    expect(address.first).to_be_hidden()
