"""One test per kind of page dependency (news.dependencies): each fails if the purge of
that kind is removed from news.purge (checked by removing each in turn; see docs/caching.md,
"Speed and caching").

The pages are set up so that the change touches only the kind under test: the header's
topics stay the same (six topics with three articles each lead it), and the changed
article shares no topic with the page being checked.
"""

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from news.models import Article, ArticleAuthor, Tag
from news.templatetags.news import author_url
from sources.models import SourceURL
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    CorrectionFactory,
    RelatedLinkFactory,
    SourceFactory,
)
from tests.pagecache.test_pagecache import text, warm

pytestmark = [
    pytest.mark.page_cache,
    pytest.mark.django_db,
    # The purge rules do not depend on the backend (test_pagecache runs both).
    pytest.mark.parametrize("cache_backend", ["locmem"], indirect=True),
]

HEADER_TOPICS = ["t1", "t2", "t3", "t4", "t5", "t6"]


@pytest.fixture
def site(committed, later):
    """Six header topics of three articles each, and an article in a topic of its own."""
    with committed():
        for n in range(3):
            ArticleFactory(title=f"Filler {n}", tags=HEADER_TOPICS)
        story = ArticleFactory(title="Old story", tags=["alpha"])
    later()
    return story


def publish(committed, **fields):
    with committed():
        return ArticleFactory(**{"tags": ["beta"], **fields})


def test_article_an_edit_purges_its_page_and_the_lists_showing_it(reader, site, committed):
    pages = [site.get_absolute_url(), "/"]
    warm(reader, *pages)
    with committed():
        site.summary = "Corrected summary."
        site.save()
    for url in pages:
        assert "Corrected summary." in text(reader.get(url)), url


def test_tag_a_new_article_in_a_topic_purges_the_topic_page(reader, site, committed):
    url = reverse("news:tag", args=["alpha"])
    warm(reader, url)
    publish(committed, title="Second alpha story", tags=["alpha"])
    assert "Second alpha story" in text(reader.get(url))


def test_referenced_by_a_new_article_linking_here_purges_this_page(reader, site, committed):
    warm(reader, site.get_absolute_url())
    with committed():
        newer = ArticleFactory(title="Newer story", tags=["beta"], draft=True)
        RelatedLinkFactory(article=newer, target=site)
        newer.status = Article.Status.PUBLISHED
        newer.save()
    assert "Newer story" in text(reader.get(site.get_absolute_url()))


def test_related_title_publishing_a_wanted_title_turns_it_into_a_link(reader, site, committed):
    with committed():
        RelatedLinkFactory(article=site, target=None, title="Wanted story")
    reader.later()
    warm(reader, site.get_absolute_url())
    wanted = publish(committed, title="Wanted story")
    assert f'href="{wanted.get_absolute_url()}"' in text(reader.get(site.get_absolute_url()))


def test_lists_a_new_article_purges_the_home_page_and_archives(reader, site, committed):
    pages = ["/", reverse("news:archive-year", args=[site.event_date.year])]
    warm(reader, *pages)
    publish(committed, title="Fresh story", event_date=site.event_date)
    for url in pages:
        assert "Fresh story" in text(reader.get(url)), url


def test_topics_a_new_article_purges_the_topic_index_counts(reader, site, committed):
    url = reverse("news:tags")
    warm(reader, url)
    publish(committed, title="Second alpha story", tags=["alpha"])
    assert 'alpha</a> <span class="count">2 articles</span>' in text(reader.get(url))


def test_retag_moving_a_public_article_to_other_topics_purges_the_topic_index_counts(
    reader, site, committed
):
    url = reverse("news:tags")
    warm(reader, url)
    with committed():
        site.tags.set(["gamma"])
    page = text(reader.get(url))
    assert 'gamma</a> <span class="count">1 article</span>' in page
    assert ">alpha</a>" not in page


def test_retag_an_article_tagged_into_a_header_topic_brings_back_its_home_section(
    reader, committed, later
):
    def rust_section(html):
        found = re.search(r'<section class="front-section"[^>]*topic-rust.*?</section>', html, re.S)
        return found[0] if found else ""

    with committed():
        old = ArticleFactory(title="Old one", tags=["misc"], published_at="2020-01-01T00:00Z")
        # Enough newer stories that the old one is on no part of the first page.
        for n in range(25):
            ArticleFactory(title=f"Filler {n}", tags=["misc"])
        # Rust's one story leads the page: its section has nothing left to show.
        ArticleFactory(title="Rust lead", tags=["rust"])
        rust = Tag.objects.get(name="rust")
        rust.header_position = 1
        rust.save()
    later()
    warm(reader, "/")
    assert rust_section(text(reader.get("/"))) == ""
    with committed():
        old.tags.add(Tag.objects.get(name="rust"))
    assert "Old one" in rust_section(text(reader.get("/")))


def test_feeds_a_new_article_purges_the_feed_and_sitemap(reader, site, committed):
    pages = [reverse("news:feed"), reverse("news:sitemap-news")]
    warm(reader, *pages)
    fresh = publish(committed, title="Fresh story")
    assert "Fresh story" in text(reader.get(pages[0]))
    assert fresh.get_absolute_url() in text(reader.get(pages[1]))


def test_feeds_a_new_or_edited_article_purges_the_search_results(reader, site, committed):
    url = reverse("search:results") + "?q=zeppelin"
    other = reverse("search:results") + "?q=story"
    warm(reader, url, other)
    assert "Nothing matches" in text(reader.get(url))
    publish(committed, title="Zeppelin story")
    assert "Zeppelin story" in text(reader.get(url))
    assert "Zeppelin story" in text(reader.get(other))
    reader.later()
    warm(reader, url)
    with committed():
        site.body = "Now about a zeppelin."
        site.save()
    assert "Old story" in text(reader.get(url))


def test_feeds_a_new_article_purges_the_no_results_page_which_then_offers_its_word(
    reader, site, committed
):
    url = reverse("search:results") + "?q=zepelin"
    warm(reader, url)
    assert "Did you mean" not in text(reader.get(url))
    publish(committed, title="Zeppelin story")
    assert '<a href="/search/?q=zeppelin">zeppelin</a>' in text(reader.get(url))


def test_navigation_a_topic_that_joins_the_header_purges_every_page(reader, site, committed):
    url = reverse("news:about-editorial")
    warm(reader, url)
    assert 'href="/tags/gamma/"' not in text(reader.get(url))
    with committed():
        for n in range(4):
            ArticleFactory(title=f"Gamma {n}", tags=["gamma"])
    assert 'href="/tags/gamma/"' in text(reader.get(url))


def test_schedule_a_scheduled_article_appears_at_its_time(reader, site, committed, later):
    with committed():
        ArticleFactory(
            title="Embargoed story",
            tags=["beta"],
            published_at=timezone.now() + timedelta(minutes=5),
        )
    later()
    warm(reader, "/")
    assert "Embargoed story" not in text(reader.get("/"))
    later(6 * 60)
    # The first request after the time purges what came due; any later one, of any
    # page, must not find the home page from before it.
    reader.get(reverse("news:about-editorial"))
    assert "Embargoed story" in text(reader.get("/"))


def test_image_new_alt_text_purges_the_pages_showing_it(reader, site, committed, media_root):
    from tests.factories import ImageFactory

    with committed():
        image = ImageFactory(width=1200, height=675, alt_text="Old words")
        site.lead_image = image
        site.save()
    reader.later()
    warm(reader, site.get_absolute_url())
    with committed():
        image.alt_text = "A terminal with the new release's banner"
        image.save()
    assert (
        "A terminal with the new release&#x27;s banner"
        in reader.get(site.get_absolute_url()).content.decode()
    )


def test_image_new_caption_purges_the_pages_placing_it_in_the_text(
    reader, site, committed, media_root
):
    from tests.factories import ImageFactory

    with committed():
        image = ImageFactory(width=800, height=450, caption="Old caption")
        site.body = f"Text.\n\n![](image:{image.key})"
        site.save()
    reader.later()
    warm(reader, site.get_absolute_url())
    with committed():
        image.caption = "The new caption"
        image.save()
    assert "The new caption" in reader.get(site.get_absolute_url()).content.decode()


@pytest.fixture
def signed(reader, site, committed):
    """An article by one author, in a topic of its own."""
    with committed():
        story = ArticleFactory(title="Signed story", tags=["beta"], authors=["Ada Writer"])
    reader.later()
    return story


def test_author_a_renamed_author_purges_their_page_and_every_byline(reader, signed, committed):
    author = signed.byline[0]
    pages = [signed.get_absolute_url(), "/", author_url(author)]
    warm(reader, *pages)
    with committed():
        author.name = "Ada Renamed"
        author.save()
    for url in pages:
        assert "Ada Renamed" in text(reader.get(url)), url


def test_authors_a_new_author_purges_the_author_index(reader, signed, committed):
    url = reverse("news:authors")
    warm(reader, url)
    with committed():
        AuthorFactory(name="Grace Newcomer")
    assert "Grace Newcomer" in text(reader.get(url))


def test_author_feeds_a_renamed_author_purges_the_feeds(reader, signed, committed):
    author = signed.byline[0]
    pages = [reverse("news:feed"), reverse("news:author-feed", args=[author.slug])]
    warm(reader, *pages)
    with committed():
        author.name = "Ada Renamed"
        author.save()
    for url in pages:
        assert "Ada Renamed" in text(reader.get(url)), url


def test_author_articles_adding_an_author_to_an_article_purges_their_page(
    reader, signed, site, committed
):
    author = signed.byline[0]
    url = author_url(author)
    warm(reader, url)
    assert "Old story" not in text(reader.get(url))
    with committed():
        ArticleAuthor.objects.create(article=site, author=author)
    assert "Old story" in text(reader.get(url))


def test_image_new_alt_text_purges_the_page_of_the_author_it_portrays(
    reader, signed, committed, media_root
):
    from tests.factories import ImageFactory

    author = signed.byline[0]
    with committed():
        author.photo = ImageFactory(width=600, height=800, alt_text="Old portrait words")
        author.save()
    reader.later()
    warm(reader, author_url(author))
    with committed():
        author.photo.alt_text = "Ada at the release party"
        author.photo.save()
    assert "Ada at the release party" in text(reader.get(author_url(author)))


def test_correction_article_a_new_correction_purges_the_article_page(reader, site, committed):
    warm(reader, site.get_absolute_url())
    with committed():
        CorrectionFactory(article=site, note="The version number was wrong.")
    assert "The version number was wrong." in text(reader.get(site.get_absolute_url()))


def test_corrections_a_new_correction_purges_the_corrections_page(reader, site, committed):
    url = reverse("news:corrections")
    warm(reader, url)
    with committed():
        CorrectionFactory(article=site, note="The version number was wrong.")
    assert "The version number was wrong." in text(reader.get(url))


def test_correction_feeds_a_first_correction_purges_the_sitemap_index(reader, site, committed):
    warm(reader, "/sitemap.xml")
    with committed():
        CorrectionFactory(article=site)
    assert "sitemaps/corrections.xml" in text(reader.get("/sitemap.xml"))


def test_source_an_archived_copy_purges_the_pages_citing_the_url(reader, site, committed):
    with committed():
        source = SourceFactory(article=site, url="https://example.org/dead")
        checked = SourceURL.objects.create(url=source.url, state="gone")
    reader.later()
    warm(reader, site.get_absolute_url())
    with committed():
        checked.archive_url = "https://archive.example/dead"
        checked.save()
    assert 'href="https://archive.example/dead"' in text(reader.get(site.get_absolute_url()))


def test_front_a_new_lead_story_purges_the_home_page(reader, site, committed):
    from news.models import FrontPin

    warm(reader, "/")
    with committed():
        FrontPin.objects.create(article=site, lead=True)
    assert "Lead story" in text(reader.get("/"))


# /follow/ and each feed's page (news.views.FollowView, FeedPageView).


def test_tag_a_new_article_in_a_topic_purges_the_topics_feed_page(reader, site, committed):
    url = reverse("news:tag-feed-page", args=["alpha"])
    warm(reader, url)
    publish(committed, title="Second alpha story", tags=["alpha"])
    assert "Second alpha story" in text(reader.get(url))


def test_lists_a_new_article_purges_the_sites_feed_page(reader, site, committed):
    url = reverse("news:feed-page")
    warm(reader, url)
    publish(committed, title="Fresh story")
    assert "Fresh story" in text(reader.get(url))


def test_article_an_edit_purges_the_feed_pages_showing_it(reader, site, committed):
    pages = [reverse("news:feed-page"), reverse("news:tag-feed-page", args=["alpha"])]
    warm(reader, *pages)
    with committed():
        site.title = "Old story, retitled"
        site.save()
    for url in pages:
        assert "Old story, retitled" in text(reader.get(url)), url


def test_topics_a_new_topic_purges_the_follow_page(reader, site, committed):
    url = reverse("news:follow")
    warm(reader, url)
    publish(committed, title="Gamma story", tags=["gamma"])
    assert "/tags/gamma/feed/atom/" in text(reader.get(url))


def test_a_renamed_topic_purges_the_follow_page_and_its_feed_page(reader, site, committed):
    pages = [reverse("news:follow"), reverse("news:tag-feed-page", args=["alpha"])]
    warm(reader, *pages)
    with committed():
        tag = Tag.objects.get(slug="alpha")
        tag.name = "Alpha and omega"
        tag.save()
    for url in pages:
        assert "Alpha and omega" in text(reader.get(url)), url


def test_authors_a_new_author_purges_the_follow_page(reader, signed, committed):
    url = reverse("news:follow")
    warm(reader, url)
    with committed():
        AuthorFactory(name="Grace Newcomer")
    assert "/authors/grace-newcomer/feed.json" in text(reader.get(url))


def test_author_a_renamed_author_purges_their_feed_page(reader, signed, committed):
    author = signed.byline[0]
    url = reverse("news:author-feed-page", args=[author.slug])
    warm(reader, url)
    with committed():
        author.name = "Ada Renamed"
        author.save()
    assert "Skillo: Ada Renamed" in text(reader.get(url))


def test_author_articles_adding_an_author_to_an_article_purges_their_feed_page(
    reader, signed, site, committed
):
    author = signed.byline[0]
    url = reverse("news:author-feed-page", args=[author.slug])
    warm(reader, url)
    with committed():
        ArticleAuthor.objects.create(article=site, author=author)
    assert "Old story" in text(reader.get(url))


def test_corrections_a_new_correction_purges_the_corrections_feed_page(reader, site, committed):
    url = reverse("news:corrections-feed-page")
    warm(reader, url)
    with committed():
        CorrectionFactory(article=site, note="The version number was wrong.")
    assert "The version number was wrong." in text(reader.get(url))
