"""The reader's layout: on a phone the header leaves the screen to the content; at
1280 px an article uses the width; the editors' choices show on the public site."""

import io

import pytest
from PIL import Image
from playwright.sync_api import expect

from news.models import Article, Tag
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db(transaction=True)


def test_on_a_phone_the_header_takes_at_most_100_px(page, site):
    page.set_viewport_size({"width": 390, "height": 844})
    article = Article.objects.published().filter(lead_image__isnull=False).first()
    for path in ["/", article.get_absolute_url(), "/tags/"]:
        page.goto(site + path)
        height = page.locator("header.site-header").bounding_box()["height"]
        assert height <= 100, (path, height)
        # Every topic is still reachable: the row scrolls sideways.
        expect(page.locator(".site-nav a", has_text="All topics")).to_have_count(1)


def test_at_1280_px_related_reading_sits_beside_the_article(page, site):
    page.set_viewport_size({"width": 1280, "height": 900})
    article = next(a for a in Article.objects.published().order_by("slug") if a.tags.exists())
    page.goto(site + article.get_absolute_url())
    text = page.locator("article.article").bounding_box()
    aside = page.locator(".article-aside").bounding_box()
    assert aside["x"] >= text["x"] + text["width"], (text, aside)


def test_at_1280_px_the_header_and_the_article_line_up(page, site):
    page.set_viewport_size({"width": 1280, "height": 900})
    article = next(a for a in Article.objects.published().order_by("slug") if a.tags.exists())
    page.goto(site + article.get_absolute_url())
    header = page.locator(".site-name").bounding_box()
    text = page.locator("article.article").bounding_box()
    footer = page.locator(".site-footer").bounding_box()
    assert abs(header["x"] - text["x"]) <= 1, (header, text)
    assert abs(footer["x"] + 16 - text["x"]) <= 1, (footer, text)  # its padding: 1rem


def test_at_1280_px_an_article_without_related_reading_is_centred(page, site):
    page.set_viewport_size({"width": 1280, "height": 900})
    alone = ArticleFactory(title="A story on its own")
    page.goto(site + alone.get_absolute_url())
    expect(page.locator(".article-aside")).to_have_count(0)
    text = page.locator("article.article").bounding_box()
    header = page.locator(".site-name").bounding_box()
    column = page.locator("main").bounding_box()
    # In the centred column of every other page, level with the header.
    assert abs(column["x"] - (1280 - column["x"] - column["width"])) <= 1, column
    assert abs(header["x"] - text["x"]) <= 1, (header, text)


def test_a_pictures_credit_is_on_a_line_of_its_own_under_the_caption(page, site):
    article = Article.objects.published().filter(lead_image__isnull=False).first()
    picture = article.lead_image
    picture.caption, picture.credit = "The new run queue layout", "Diagram: Skillo"
    picture.save()
    page.goto(site + article.get_absolute_url())
    caption = page.locator(".figure--lead figcaption")
    credit = caption.locator(".credit")
    assert credit.bounding_box()["y"] > caption.bounding_box()["y"] + 5
    assert credit.evaluate("e => getComputedStyle(e).display") == "block"


def test_on_a_phone_the_topic_row_shows_a_shade_where_it_scrolls_on(page, site):
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="light")
    page.goto(site + "/")
    row = page.locator(".site-nav ul")
    assert row.evaluate("e => e.scrollWidth > e.clientWidth")  # there is more to see
    box = row.bounding_box()

    def right_edge_brightness():
        """The brightest pixel of the row's last columns, in its middle third (where the
        shade is deepest): the background's, between the letters of a word cut there."""
        shot = Image.open(io.BytesIO(page.screenshot(clip={
            "x": box["x"] + box["width"] - 3, "y": box["y"] + box["height"] / 3,
            "width": 2, "height": box["height"] / 3,
        }))).convert("L")  # fmt: skip
        return shot.getextrema()[1]

    bare = right_edge_brightness()
    # Scrolled to its end there is nothing more: the shade goes, the background shows.
    row.evaluate("e => { e.scrollLeft = e.scrollWidth; }")
    page.wait_for_function(
        "() => { const e = document.querySelector('.site-nav ul');"
        " return e.scrollLeft + e.clientWidth >= e.scrollWidth - 1; }"
    )
    assert right_edge_brightness() - bare > 20, bare


def test_topics_show_by_their_names(page, site):
    page.goto(site + "/")
    nav = page.locator(".site-nav")
    expect(nav.get_by_role("link", name="Programming languages")).to_have_count(1)
    expect(nav.get_by_role("link", name="programming-languages")).to_have_count(0)


def test_the_editors_choices_show_on_the_public_site(page, site):
    # The demo content pins a lead story; an editor orders the header's topics.
    page.goto(site + "/")
    expect(page.locator(".front-lead .lead-story__label")).to_have_text("Lead story")
    for position, name in enumerate(["Rust", "Python"], start=1):
        tag = Tag.objects.get(name=name)
        tag.header_position = position
        tag.save()
    page.goto(site + "/")
    topics = page.locator(".site-nav li a").all_inner_texts()
    assert topics[1:3] == ["Rust", "Python"], topics
