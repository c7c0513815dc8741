"""What a reader sees and does, in a real browser."""

import pytest
from playwright.sync_api import expect

from ..conftest import SHARED_SLUG

pytestmark = pytest.mark.django_db(transaction=True)

PAGES = {
    "home": "/",
    "article": f"/articles/{SHARED_SLUG}/",
    "tag": "/tags/pytorch/",
    "search": "/search/?q=pytorch",
    "not-found": "/articles/no-such-article/",
}
ALL_PAGES = {
    **PAGES,
    "tags": "/tags/",
    "timeline": "/tags/pytorch/timeline/",
    "archive": "/archive/2024/",
    "archive-month": "/archive/2024/7/",
    "about": "/about/editorial/",
    "about the figures": "/about/figures/",
}
WIDTHS = {"phone": 390, "desktop": 1280}


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("width", WIDTHS)
def test_pages_fit_the_screen_and_show_their_parts(page, site, artifacts, width, scheme):
    page.set_viewport_size({"width": WIDTHS[width], "height": 900})
    page.emulate_media(color_scheme=scheme)
    for name, path in PAGES.items():
        response = page.goto(site + path)
        assert response.status == (404 if name == "not-found" else 200), name
        for selector in ("header.site-header", "main h1", "footer.site-footer", "#site-search"):
            expect(page.locator(selector).first).to_be_visible()
        overflow = page.evaluate(
            "document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        page.screenshot(path=artifacts / f"{name}-{width}-{scheme}.png", full_page=True)
        assert overflow <= 0, f"{name} at {width} ({scheme}) overflows by {overflow}px"
    # The article's own parts, in reading order.
    page.goto(site + PAGES["article"])
    for selector in (".article-body h2", ".related a", ".sources li", ".editorial-note"):
        expect(page.locator(selector).first).to_be_visible()


def test_article_prints_with_sources_and_their_urls_without_navigation(page, site, artifacts):
    page.goto(site + "/articles/pytorch-2-1-and-automatic-dynamic-shapes/")
    page.emulate_media(media="print")
    for hidden in ("header.site-header", "footer.site-footer", ".more-topics"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator(".sources a").first).to_be_visible()
    after = page.evaluate(
        "getComputedStyle(document.querySelector('.sources a'), '::after').content"
    )
    assert "attr(href)" in after or "https://" in after, after
    page.pdf(path=artifacts / "article-print.pdf")


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_every_public_page_passes_axe(page, site, axe_source, scheme):
    page.emulate_media(color_scheme=scheme)
    failures = {}
    for name, path in ALL_PAGES.items():
        page.goto(site + path)
        page.evaluate(axe_source)
        result = page.evaluate("async () => await axe.run(document, {resultTypes: ['violations']})")
        violations = [
            f"{v['id']} ({v['impact']}): {[n['target'] for n in v['nodes']][:3]}"
            for v in result["violations"]
        ]
        if violations:
            failures[name] = violations
    assert failures == {}


def test_keyboard_alone_reaches_an_article_and_a_tag(page, site):
    page.goto(site + "/")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Skip to content"

    def tab_to(selector, limit=150):
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement.matches({selector!r})"):
                return page.evaluate("document.activeElement.getAttribute('href')")
        raise AssertionError(f"Tab never reached {selector}")

    href = tab_to("main .card-title a")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{href}")
    assert "/articles/" in href
    expect(page.locator("main h1")).to_be_visible()

    tag_href = tab_to("main .tags a")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**{tag_href}")
    assert page.locator("main h1").inner_text().startswith("Tagged")
