"""The reader's layout: on a phone the header leaves the screen to the content; at
1280 px an article uses the width; the editors' choices show on the public site."""

import pytest
from playwright.sync_api import expect

from news.models import Article, Tag

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


def test_the_editors_choices_show_on_the_public_site(page, site):
    # The demo content pins a lead story; an editor orders the header's topics.
    page.goto(site + "/")
    expect(page.locator(".lead-story .lead-story__label")).to_have_text("Lead story")
    for position, name in enumerate(["rust", "python"], start=1):
        tag = Tag.objects.get(name=name)
        tag.header_position = position
        tag.save()
    page.goto(site + "/")
    topics = page.locator(".site-nav li a").all_inner_texts()
    assert topics[1:3] == ["rust", "python"], topics
