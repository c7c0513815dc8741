import re
from datetime import date, timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone
from django.utils.html import strip_tags

from news.models import Article, Correction, RelatedLink
from sources.models import SourceURL

from .conftest import count_queries
from .factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    CorrectionFactory,
    RelatedLinkFactory,
    SourceFactory,
)

pytestmark = pytest.mark.django_db


def h1_count(response):
    return response.content.decode().count("<h1")


# Home


def test_home_lists_newest_published_first(client):
    older = ArticleFactory(published_at=timezone.now() - timedelta(days=3))
    newer = ArticleFactory(published_at=timezone.now() - timedelta(hours=1))
    page = client.get("/").content.decode()
    assert page.index(newer.title) < page.index(older.title)


def test_home_is_paginated(client):
    for days in range(25):
        ArticleFactory(
            title=f"Story {days:02d}", published_at=timezone.now() - timedelta(days=days)
        )
    first = client.get("/").content.decode()
    second = client.get("/?page=2").content.decode()
    assert "Story 00" in first and "Story 19" in first and "Story 20" not in first
    assert "Story 20" in second and "Story 24" in second
    assert 'rel="next"' in first and 'rel="prev"' in second
    assert client.get("/?page=9").status_code == 404


def test_every_page_has_one_h1_and_landmarks(client):
    article = ArticleFactory(tags=["python"])
    for url in ["/", "/tags/", "/tags/python/", article.get_absolute_url()]:
        response = client.get(url)
        page = response.content.decode()
        assert h1_count(response) == 1, url
        assert '<html lang="en">' in page
        for landmark in ("<header", "<nav", "<main", "<footer"):
            assert landmark in page, (url, landmark)
        # JSON-LD data, and the site's own deferred scripts: none inline (the CSP).
        scripts = re.findall(r"<script[^>]*>", page)
        assert all(
            tag == '<script type="application/ld+json">'
            or re.fullmatch(
                r'<script src="/static/js/[\w-]+\.js"( data-[\w-]+="[^"]*")* defer>', tag
            )
            for tag in scripts
        ), url
        assert "/static/css/skillo.css" in page


# Article page


def test_article_page_shows_its_parts(client):
    article = ArticleFactory(summary="The short of it.", tags=["pytorch"])
    SourceFactory(article=article, title="Notes", publisher="GitHub", url="https://x.org/n")
    SourceFactory(article=article, title="Blog post", publisher="PyTorch", url="")
    page = client.get(article.get_absolute_url()).content.decode()
    assert f"<h1>{article.title}</h1>" in page
    assert "The short of it." in page
    assert (
        '<h2 id="what-happened">What happened</h2><a class="heading-anchor" '
        'href="#what-happened" aria-label="Link to the section “What happened”">#</a>'
    ) in page
    assert '<a href="https://x.org/n" rel="noopener noreferrer nofollow">Notes</a> (GitHub)' in page
    assert "<li>Blog post (PyTorch)</li>" in page
    assert 'href="/tags/pytorch/"' in page


def editorial_note(client, article):
    page = client.get(article.get_absolute_url()).content.decode()
    note = re.search(r'<p class="editorial-note">(.*?)</p>', page, re.S).group(1)
    return note, " ".join(strip_tags(note).split())


def test_footer_sentence_for_a_backdated_article(client):
    article = ArticleFactory(
        event_date=timezone.datetime(2024, 7, 24).date(),
        published_at=timezone.make_aware(timezone.datetime(2024, 7, 24)),
        facts_verified=timezone.datetime(2026, 9, 1).date(),
    )
    html, text = editorial_note(client, article)
    assert text.startswith(
        "Published date reflects the original event date (2024-07-24). This article is "
        "original Skillo editorial written from the sources above; facts were verified in "
        "September 2026."
    )
    assert '<time datetime="2024-07-24">2024-07-24</time>' in html
    assert '<time datetime="2026-09">September 2026</time>' in html


def test_footer_sentence_for_an_article_published_after_the_event(client):
    article = ArticleFactory(
        event_date=timezone.datetime(2024, 7, 24).date(),
        published_at=timezone.make_aware(timezone.datetime(2024, 7, 26, 9, 30)),
    )
    html, text = editorial_note(client, article)
    assert text.startswith(
        "Published on 2024-07-26; the event took place on 2024-07-24. This article is "
        "original Skillo editorial"
    )
    assert '<time datetime="2024-07-26">2024-07-26</time>' in html


def test_unknown_article_is_404(client):
    assert client.get("/articles/nope/").status_code == 404


def test_related_link_to_an_article_is_a_link(client):
    link = RelatedLinkFactory()
    page = client.get(link.article.get_absolute_url()).content.decode()
    assert f'<a href="{link.target.get_absolute_url()}">{link.target.title}</a>' in page


def test_related_title_becomes_a_link_when_that_article_is_published(client):
    article = ArticleFactory()
    RelatedLink.objects.create(article=article, title="Rust 2.0 ships")
    page = client.get(article.get_absolute_url()).content.decode()
    assert '<span class="unwritten">Rust 2.0 ships</span>' in page

    later = ArticleFactory(title="Rust 2.0 Ships", draft=True)
    page = client.get(article.get_absolute_url()).content.decode()
    assert later.get_absolute_url() not in page

    later.status = later.Status.PUBLISHED
    later.save()
    page = client.get(article.get_absolute_url()).content.decode()
    assert f'<a href="{later.get_absolute_url()}">Rust 2.0 ships</a>' in page


def test_referenced_by_lists_published_articles_linking_here(client):
    target = ArticleFactory(title="Python 3.12 released")
    by_link = RelatedLinkFactory(target=target).article
    by_title = ArticleFactory()
    RelatedLink.objects.create(article=by_title, title="python 3.12 RELEASED")
    hidden = RelatedLinkFactory(target=target, article=ArticleFactory(draft=True)).article
    page = client.get(target.get_absolute_url()).content.decode()
    section = page[page.index("Referenced by") :]
    assert by_link.title in section and by_title.title in section
    assert hidden.title not in page


# Tags


def test_tag_index_counts_only_published_articles(client):
    ArticleFactory(tags=["python", "release"])
    ArticleFactory(tags=["python"])
    ArticleFactory(tags=["python", "secret"], draft=True)
    ArticleFactory(tags=["python"], scheduled=True)
    page = client.get("/tags/").content.decode()
    assert 'href="/tags/python/">python</a> <span class="count">2 articles</span>' in page
    assert 'href="/tags/release/">release</a> <span class="count">1 article</span>' in page
    assert "secret" not in page


def test_tag_index_shows_new_topics_and_counts_after_it_was_read(client):
    ArticleFactory(tags=["python"])
    assert '<span class="count">1 article</span>' in client.get("/tags/").content.decode()
    ArticleFactory(tags=["python", "release"])
    page = client.get("/tags/").content.decode()
    assert 'href="/tags/python/">python</a> <span class="count">2 articles</span>' in page
    assert 'href="/tags/release/">release</a> <span class="count">1 article</span>' in page


def test_tag_index_pages_list_two_hundred_topics_each_by_name(client):
    ArticleFactory(tags=[f"topic {n:03}" for n in range(201)])
    first = client.get("/tags/").content.decode()
    second = client.get("/tags/?page=2").content.decode()
    assert first.count('<span class="count">') == 200 and "topic 199" in first
    assert second.count('<span class="count">') == 1 and "topic 200" in second


def test_tag_page_lists_its_published_articles(client):
    tagged = ArticleFactory(tags=["go"])
    other = ArticleFactory(tags=["rust"])
    page = client.get("/tags/go/").content.decode()
    assert tagged.title in page and other.title not in page


def test_unknown_tag_is_404(client):
    assert client.get("/tags/nope/").status_code == 404


def test_tag_used_only_by_drafts_is_404(client):
    ArticleFactory(tags=["embargoed"], draft=True)
    assert client.get("/tags/embargoed/").status_code == 404


# Drafts and scheduled articles on every public path


@pytest.fixture
def hidden_articles():
    public = ArticleFactory(title="Public story", tags=["python"])
    draft = ArticleFactory(title="Draft story", tags=["python"], draft=True)
    scheduled = ArticleFactory(title="Scheduled story", tags=["python"], scheduled=True)
    for hidden in (draft, scheduled):
        RelatedLink.objects.create(article=public, target=hidden)
        RelatedLink.objects.create(article=hidden, target=public)
    return public, draft, scheduled


@pytest.mark.parametrize("name", ["draft", "scheduled"])
def test_unpublished_article_is_404(client, hidden_articles, name):
    article = {"draft": hidden_articles[1], "scheduled": hidden_articles[2]}[name]
    assert client.get(article.get_absolute_url()).status_code == 404


@pytest.mark.parametrize("url", ["/", "/tags/python/", "public"])
def test_unpublished_articles_are_absent_from_public_pages(client, hidden_articles, url):
    public = hidden_articles[0]
    page = client.get(public.get_absolute_url() if url == "public" else url).content.decode()
    if url != "public":
        assert "Public story" in page
    for hidden in hidden_articles[1:]:
        assert hidden.title not in page
        assert hidden.get_absolute_url() not in page


def test_tags_only_on_unpublished_articles_are_absent(client):
    ArticleFactory(tags=["python"])
    ArticleFactory(tags=["embargoed"], draft=True)
    ArticleFactory(tags=["upcoming"], scheduled=True)
    for url in ["/", "/tags/"]:
        page = client.get(url).content.decode()
        assert "embargoed" not in page and "upcoming" not in page
        assert "/tags/python/" in page


def test_tag_count_ignores_unpublished(client, hidden_articles):
    assert '<span class="count">1 article</span>' in client.get("/tags/").content.decode()


def test_topic_counts_leave_out_drafts_reviews_and_scheduled_articles_until_due(client):
    ArticleFactory(tags=["python", "rust"])
    ArticleFactory(tags=["python"], draft=True)
    ArticleFactory(tags=["python", "go"], status=Article.Status.REVIEW)
    scheduled = ArticleFactory(tags=["python", "go"], scheduled=True)
    page = client.get("/tags/").content.decode()
    assert 'href="/tags/python/">python</a> <span class="count">1 article</span>' in page
    assert 'href="/tags/rust/">rust</a> <span class="count">1 article</span>' in page
    assert "/tags/go/" not in page
    with time_machine.travel(scheduled.published_at + timedelta(minutes=1)):
        page = client.get("/tags/").content.decode()
    assert 'href="/tags/python/">python</a> <span class="count">2 articles</span>' in page
    assert 'href="/tags/go/">go</a> <span class="count">1 article</span>' in page


def test_scheduled_article_appears_when_its_time_comes(client):
    article = ArticleFactory(scheduled=True, tags=["python"])
    assert article.title not in client.get("/").content.decode()
    with time_machine.travel(article.published_at + timedelta(minutes=1)):
        assert client.get(article.get_absolute_url()).status_code == 200
        assert article.title in client.get("/").content.decode()
        assert article.title in client.get("/tags/python/").content.decode()


# Query counts stay flat


def make_rich_article(n, title):
    authors = AuthorFactory.create_batch(n)
    for author in authors:
        AuthorLinkFactory.create_batch(2, author=author)
    article = ArticleFactory(title=title, tags=[f"tag{i}" for i in range(n)], authors=authors)
    for source in SourceFactory.create_batch(n, article=article):
        SourceURL.objects.create(url=source.url, archive_url="https://archive.example/copy")
    CorrectionFactory.create_batch(n, article=article)
    CorrectionFactory.create_batch(n, article=article, kind=Correction.Kind.UPDATE)
    for i in range(n):
        RelatedLinkFactory(article=article)
        RelatedLink.objects.create(article=article, title=f"Unwritten {title} {i}")
        RelatedLinkFactory(target=article)
    return article


# The article; its own parts and what surrounds it are kept (news.fragments), and when
# rendered again cost as many queries however many parts it has (test_query_counts.py).
ARTICLE_QUERIES = 1


@pytest.mark.parametrize("n", [1, 50])
def test_article_page_queries_do_not_grow(client, n):
    article = make_rich_article(n, "Rich")
    assert count_queries(client, article.get_absolute_url()) == ARTICLE_QUERIES


@pytest.mark.parametrize("n", [1, 20])
def test_home_queries_do_not_grow(client, n):
    for i in range(n):
        ArticleFactory(tags=[f"t{i}", "common"], authors=[f"Writer {i}", "Common Writer"])
    # The newest ids are remembered until a publication, the cards kept (never a count).
    assert count_queries(client, "/") == 0


@pytest.mark.parametrize("n", [1, 20])
def test_tag_page_queries_do_not_grow(client, n):
    for i in range(n):
        ArticleFactory(tags=[f"t{i}", "common"], authors=[f"Writer {i}", "Common Writer"])
    # The articles' kept cards; the topic and its count come from the cache (topics.py).
    assert count_queries(client, "/tags/common/") == 1


@pytest.mark.parametrize("n", [1, 50])
def test_tag_index_queries_do_not_grow(client, n):
    for i in range(n):
        ArticleFactory(tags=[f"t{i}"])
    assert count_queries(client, "/tags/") == 0  # counted once per change (topics.py)


def test_named_urls_reverse_and_resolve(client):
    from django.urls import resolve

    for name, kwargs in [
        ("news:index", {}),
        ("news:article", {"slug": "a-slug"}),
        ("news:tags", {}),
        ("news:tag", {"slug": "python"}),
        ("news:authors", {}),
        ("news:author", {"slug": "ada-lovelace"}),
        ("news:author-feed", {"slug": "ada-lovelace"}),
        ("news:author-feed-atom", {"slug": "ada-lovelace"}),
    ]:
        url = reverse(name, kwargs=kwargs)
        assert resolve(url).view_name == name


def test_archive_months_and_years_end_where_they_should(client):
    ArticleFactory(title="Last of November", event_date=date(2024, 11, 30))
    ArticleFactory(title="New Year's Eve", event_date=date(2024, 12, 31))
    ArticleFactory(title="New Year's Day", event_date=date(2025, 1, 1))
    december = client.get("/archive/2024/12/").content.decode()
    assert "New Year&#x27;s Eve" in december
    assert "Last of November" not in december and "New Year&#x27;s Day" not in december
    year = client.get("/archive/2024/").content.decode()
    assert "Last of November" in year and "New Year&#x27;s Eve" in year
    assert "New Year&#x27;s Day" not in year


def test_the_archive_index_lists_years_and_months_with_counts_newest_first(client):
    ArticleFactory(event_date=date(2024, 7, 24))
    ArticleFactory(event_date=date(2024, 7, 2))
    ArticleFactory(event_date=date(2025, 1, 1))
    ArticleFactory(event_date=date(2023, 3, 1), status=Article.Status.DRAFT)
    page = client.get("/archive/").content.decode()
    text = " ".join(strip_tags(page).split())
    assert "2025 January 1 article 2024 July 2 articles" in text
    assert "2023" not in text  # a draft is no archive
    assert 'href="/archive/2024/7/"' in page and 'href="/archive/2024/"' in page


def test_every_page_links_the_archive_and_the_readers_account_from_its_footer(client):
    ArticleFactory()
    footer = client.get("/").content.decode().split('class="site-footer"')[1]
    assert 'href="/archive/"' in footer
    assert 'href="/account/"' in footer
