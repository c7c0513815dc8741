"""The front page and lists as a reader scans them (issue 33): at 1280 px the lead beside
its picture, the top stories side by side, the topics' sections side by side; at 390 px
one column; a thumbnail with its size on every list, portraits in bylines; one grid for
header, content and footer; nothing moves as pictures arrive; axe finds nothing."""

import io
import os
from itertools import pairwise

import pytest
from PIL import Image
from playwright.sync_api import expect

from images.renditions import page_renditions
from news.models import Article, Tag
from people.models import Author
from tests.factories import ImageFactory

from .checks import axe_violations, overflow

pytestmark = pytest.mark.django_db(transaction=True)

WIDTHS = [390, 1280]
SCHEMES = ["light", "dark"]

# Every layout shift the page makes, summed as cumulative layout shift counts them
# (shifts right after an input excluded), and what moved: read by layout_shift() and
# what_shifted().
MEASURE_SHIFTS = """
window.__shift = 0;
window.__shifted = [];
const named = (node) =>
  node && node.nodeType === 1
    ? [node.tagName.toLowerCase(), ...String(node.className || "").split(" ")]
        .filter(Boolean).join(".")
    : String(node && node.nodeName);
const rect = (r) => `${r.x},${r.y} ${r.width}x${r.height}`;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (entry.hadRecentInput) continue;
    window.__shift += entry.value;
    for (const source of entry.sources || []) {
      window.__shifted.push(
        `${named(source.node)} at ${Math.round(scrollY)}: ` +
        `${rect(source.previousRect)} -> ${rect(source.currentRect)}`
      );
    }
  }
}).observe({type: "layout-shift", buffered: true});
"""


def lists(site):
    """A path of every kind of list: home, a topic, an author, an archive, a search."""
    author = Author.objects.order_by("slug").first()
    article = Article.objects.published().order_by("-event_date").first()
    return {
        "home": "/",
        "topic": "/tags/python/",
        "author": f"/authors/{author.slug}/",
        "archive": f"/archive/{article.event_date.year}/",
        "search": "/search/?q=release",
    }


def open_page(new_page, site, path, width, scheme="light"):
    page = new_page()
    page.set_viewport_size({"width": width, "height": 900})
    page.emulate_media(color_scheme=scheme)
    page.add_init_script(MEASURE_SHIFTS)
    response = page.goto(site + path)
    assert response.status == 200, path
    return page


def settle(page):
    """Read on to the end a screen at a time, as a reader scrolls, until every picture
    on the way has arrived (polled by Playwright until its deadline)."""
    page.wait_for_function(
        """() => {
          if (scrollY + innerHeight < document.documentElement.scrollHeight - 1) {
            scrollBy(0, innerHeight);
            return false;
          }
          return [...document.images].every((img) => img.complete && img.naturalWidth > 0);
        }"""
    )


def layout_shift(page):
    return page.evaluate("window.__shift")


def what_shifted(page):
    """Each moved element with its box before and after, to say in a failure."""
    return page.evaluate("window.__shifted")


def box(locator):
    return locator.bounding_box()


# Layout and sizes are the same in both schemes (colours alone change, which the axe
# test checks in each): these run in the light one.
def test_at_1280_px_the_lead_the_top_stories_and_the_sections_sit_side_by_side(new_page, site):
    page = open_page(new_page, site, "/", 1280)
    picture = box(page.locator(".front-lead .lead-story__picture"))
    headline = box(page.locator(".front-lead .lead-story__title"))
    # The lead's headline beside its picture, the picture large.
    assert headline["x"] >= picture["x"] + picture["width"], (picture, headline)
    assert picture["width"] >= 600, picture
    # The top stories: three in a row under the lead, each with its picture on top.
    top = page.locator(".front-grid > .card")
    expect(top).to_have_count(6)
    first_row = [box(top.nth(n)) for n in range(3)]
    assert all(abs(card["y"] - first_row[0]["y"]) <= 1 for card in first_row), first_row
    assert first_row[0]["x"] < first_row[1]["x"] < first_row[2]["x"], first_row
    assert first_row[0]["y"] >= picture["y"] + picture["height"]
    pictured = top.filter(has=page.locator(".card__picture")).first
    thumb = box(pictured.locator(".card__picture"))
    title = box(pictured.locator(".card-title"))
    assert title["y"] >= thumb["y"] + thumb["height"], (thumb, title)
    # The header topics' sections, in the header's order, three side by side.
    header_topics = page.locator(".site-nav li a").all_text_contents()[1:-2]
    sections = page.locator(".front-section")
    names = sections.locator(".section-heading").all_text_contents()
    assert len(names) >= 3, names
    places = [header_topics.index(name) for name in names]
    assert places == sorted(places), (header_topics, names)
    row = [box(sections.nth(n)) for n in range(min(3, sections.count()))]
    assert all(abs(s["y"] - row[0]["y"]) <= 1 for s in row), row
    assert all(a["x"] + a["width"] <= b["x"] for a, b in pairwise(row)), row
    assert row[0]["y"] > first_row[0]["y"] + first_row[0]["height"]
    # Then the newsletter.
    newsletter = box(page.locator(".front-newsletter"))
    assert newsletter["y"] >= max(s["y"] + s["height"] for s in row)
    expect(page.locator(".front-newsletter a", has_text="sign up")).to_be_visible()
    assert overflow(page) == 0


def test_at_390_px_the_home_page_is_one_column(new_page, site):
    page = open_page(new_page, site, "/", 390)
    cards = page.locator("main .card, main .lead-story")
    lefts = {round(box(cards.nth(n))["x"]) for n in range(cards.count())}
    assert lefts == {16}, lefts  # all on the gutter, none beside another
    assert overflow(page) == 0


@pytest.mark.parametrize("width", WIDTHS)
def test_every_list_shows_thumbnails_with_their_size_and_no_box_without_one(new_page, site, width):
    for name, path in lists(site).items():
        page = open_page(new_page, site, path, width)
        cards = page.locator("main .card")
        assert cards.count() >= 1, name
        expect(cards.locator("img")).not_to_have_count(0)
        for n in range(cards.count()):
            card = cards.nth(n)
            frame = card.locator(".card__picture")
            if not frame.count():
                # No picture, no stand-in: the title takes the card's width.
                title = box(card.locator(".card-title"))
                assert title["width"] >= box(card)["width"] - 1, (name, n)
                continue
            shape = box(frame)
            assert abs(shape["width"] * 9 / 16 - shape["height"]) <= 1.5, (name, n, shape)
            img = frame.locator("img")
            assert img.get_attribute("width") and img.get_attribute("height"), (name, n)
            assert img.get_attribute("alt") == ""
        settle(page)
        broken = page.evaluate(
            "[...document.querySelectorAll('main img')].filter(i => !i.naturalWidth).length"
        )
        assert broken == 0, name
        assert overflow(page) == 0, name
        assert layout_shift(page) == 0, (name, what_shifted(page))
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_bylines_show_the_authors_portrait_beside_their_name(new_page, site, width):
    author = Author.objects.get(slug="skillo-demo-writer")
    author.photo = ImageFactory(width=600, height=800, alt_text="The demo writer")
    author.save()
    article = Article.objects.published().filter(authorships__author=author).first()
    smallest = page_renditions(author.photo, "jpg")[0]
    for path in [article.get_absolute_url(), f"/authors/{author.slug}/", "/"]:
        page = open_page(new_page, site, path, width)
        portrait = page.locator(".byline .portrait").first
        expect(portrait).to_be_visible()
        assert portrait.get_attribute("alt") == ""
        assert portrait.get_attribute("src").endswith(smallest.url)
        size = box(portrait)
        assert 20 <= size["width"] == size["height"] <= 48, size  # small, and round
        # On the byline's line (an inline byline's box is its text's height), before the name.
        byline = page.locator(".byline", has=page.locator(".portrait")).first
        line = box(byline)
        middle = size["y"] + size["height"] / 2
        assert line["y"] - 4 <= middle <= line["y"] + line["height"] + 4, (line, size)
        name = box(byline.locator("a[rel=author]", has_text=author.name))
        assert (size["x"] + size["width"] <= name["x"]) or (size["y"] < name["y"]), (size, name)
        settle(page)
        assert layout_shift(page) == 0, (path, what_shifted(page))
        page.context.close()


def pages_to_check():
    article = Article.objects.published().filter(lead_image__isnull=False).first()
    return [*lists("").values(), "/newsletter/", article.get_absolute_url()]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("width", WIDTHS)
def test_the_front_page_lists_and_an_article_pass_axe(new_page, site, axe_source, width, scheme):
    for path in pages_to_check():
        page = open_page(new_page, site, path, width, scheme)
        assert axe_violations(page, axe_source) == [], path
        page.context.close()


# Colours change nothing of the layout: the light scheme's pages stand for both.
@pytest.mark.parametrize("width", WIDTHS)
def test_nothing_moves_while_the_pages_arrive_in_pieces(new_page, dribbled_site, width):
    # Read as they arrive over a slow connection, in pieces: nothing on the way may
    # depend on what has not arrived yet (a neighbour, the rest of the header).
    for path in pages_to_check():
        page = open_page(new_page, dribbled_site, path, width)
        settle(page)
        assert layout_shift(page) == 0, (path, what_shifted(page))
        page.context.close()


@pytest.mark.parametrize("width", WIDTHS)
def test_header_content_and_footer_line_up_on_one_grid(new_page, site, width):
    article = next(a for a in Article.objects.published().order_by("slug") if a.tags.exists())
    for path, first in [
        ("/", ".front-lead .lead-story__picture"),
        ("/tags/python/", "main h1"),
        (article.get_absolute_url(), "article.article"),
    ]:
        page = open_page(new_page, site, path, width)
        name = box(page.locator(".site-name"))
        content = box(page.locator(first).first)
        footer = box(page.locator(".site-footer p").first)
        assert abs(name["x"] - content["x"]) <= 1, (path, name, content)
        assert abs(footer["x"] - content["x"]) <= 1, (path, footer, content)
        if width == 1280:
            # The container's edges, 1184 px wide, centred.
            assert abs(name["x"] - 64) <= 1, (path, name)
            search = box(page.locator(".search-form"))
            assert abs(search["x"] + search["width"] - 1216) <= 1, (path, search)
        page.context.close()


def test_a_topic_section_follows_the_editors_order(new_page, site):
    from django.core.cache import cache

    for position, name in enumerate(["Linux", "Python"], start=1):
        Tag.objects.filter(name=name).update(header_position=position)
    cache.clear()
    page = open_page(new_page, site, "/", 1280)
    expect(page.locator(".front-section .section-heading")).to_have_text(["Linux", "Python"])


@pytest.mark.skipif(
    not os.environ.get("UPDATE_DOCS_SCREENSHOTS"),
    reason="takes the docs' screenshots again when UPDATE_DOCS_SCREENSHOTS=1 (README)",
)
def test_screenshots_for_the_docs(new_page, site, docs_screenshots):
    article = Article.objects.published().filter(lead_image__isnull=False).first()
    for width in WIDTHS:
        for name, path in [
            ("home", "/"),
            ("topic", "/tags/python/"),
            ("article", article.get_absolute_url()),
        ]:
            page = open_page(new_page, site, path, width)
            settle(page)
            page.evaluate("window.scrollTo(0, 0)")
            shot = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
            # 128 colours: a quarter of the bytes, for a repository that keeps every version.
            shot = shot.quantize(128, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
            shot.save(docs_screenshots / f"{name}-{width}.png", optimize=True)
            page.context.close()


def test_at_1280_px_a_lead_without_a_picture_is_its_words_with_no_empty_box(new_page, site):
    from news.models import FrontPin

    article = Article.objects.published().filter(lead_image=None).first()
    FrontPin.objects.filter(lead=True).delete()
    FrontPin.objects.create(article=article, lead=True)
    page = open_page(new_page, site, "/", 1280)
    lead = page.locator(".front-lead")
    expect(lead.locator(".lead-story__title")).to_have_text(article.title)
    expect(lead.locator(".lead-story__picture")).to_have_count(0)
    # Its headline across the page, not in the column beside a picture's place (a box of
    # 670 x 380 px holding a topic's name; the lead was 440 px tall then, 324 px now
    # with the demo's Django 5.1 story).
    assert box(lead.locator(".lead-story__title"))["width"] > 600
    assert overflow(page) == 0
