"""An article page's parts read by hand-written SQL (news.detail) are the objects
for_detail()'s prefetches give, field for field, on SQLite and PostgreSQL alike."""

from datetime import timedelta

import pytest
from django.utils import timezone

from news.detail import load_article, load_parts
from news.models import Article, Correction
from sources.models import SourceURL
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    CorrectionFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)

pytestmark = pytest.mark.django_db


def fields(obj):
    deferred = obj.get_deferred_fields()
    return {
        f.attname: getattr(obj, f.attname)
        for f in obj._meta.concrete_fields
        if f.attname not in deferred
    }


def parts(article):
    return {
        "tags": [fields(tag) for tag in article.tags.all()],
        "sources": [(fields(s), s.archive_url) for s in article.sources.all()],
        "corrections": [fields(c) for c in article.corrections.all()],
        "links": [
            (
                fields(link),
                link.is_public,
                link.title_match_slug,
                link.display_title,
                link.public_url,
            )
            for link in article.related_links.all()
        ],
        "byline": [
            (
                fields(authorship),
                fields(authorship.author),
                fields(authorship.author.photo) if authorship.author.photo_id else None,
                [fields(link) for link in authorship.author.links.all()],
            )
            for authorship in article.authorships.all()
        ],
    }


@pytest.fixture
def article(media_root):
    portrait = ImageFactory(width=800, height=800, caption="Ada & <co>", decorative=False)
    ada = AuthorFactory(name="Ada Lovelace", slug="ada-lovelace")
    ada.photo = portrait
    ada.save()
    AuthorLinkFactory(author=ada, label="Mastodon", position=1)
    AuthorLinkFactory(author=ada, label="Website", position=0)
    article = ArticleFactory(
        title="Python 4 ships",
        tags=["python", "c++", "Zig"],
        authors=[ada, "Grace Hopper"],
        lead_image=ImageFactory(width=1600, height=900),
    )
    archived = SourceFactory(article=article, url="https://example.com/gone", position=1)
    SourceURL.objects.create(url=archived.url, archive_url="https://archive.example/gone")
    SourceFactory(article=article, url="", position=0)
    CorrectionFactory(article=article, kind=Correction.Kind.UPDATE)
    CorrectionFactory(article=article, published_at=timezone.now() - timedelta(hours=1))
    RelatedLinkFactory(article=article, target=ArticleFactory(title="Published target"))
    RelatedLinkFactory(article=article, target=ArticleFactory(title="A draft", draft=True))
    RelatedLinkFactory(
        article=article,
        target=ArticleFactory(title="Scheduled", published_at=timezone.now() + timedelta(days=1)),
    )
    ArticleFactory(title="Written later")
    RelatedLinkFactory(article=article, target=None, title="written LATER")
    RelatedLinkFactory(article=article, target=None, title="Never written")
    return article


def test_hand_written_parts_are_the_prefetched_ones(article):
    prefetched = parts(Article.objects.for_detail().get(pk=article.pk))
    loaded = load_parts(Article.objects.select_related("lead_image").get(pk=article.pk))
    assert parts(loaded) == prefetched
    # Everything the page reads came with them.
    assert [len(prefetched[part]) for part in prefetched] == [3, 2, 2, 5, 2]
    assert [link[4] for link in prefetched["links"]] == [
        "/articles/published-target/",
        None,
        None,
        "/articles/written-later/",
        None,
    ]


def test_reading_the_parts_costs_no_query_afterwards(article, django_assert_num_queries):
    loaded = load_parts(Article.objects.select_related("lead_image").get(pk=article.pk))
    with django_assert_num_queries(0):
        parts(loaded)
        loaded.structured_data("https://x.example/a/", {}, [], lambda path: path)


def test_an_article_without_parts(media_root):
    bare = ArticleFactory(tags=[])
    assert parts(load_parts(Article.objects.get(pk=bare.pk))) == parts(
        Article.objects.for_detail().get(pk=bare.pk)
    )


def test_the_article_row_is_the_orm_s_with_its_lead_image(article):
    read = load_article(article.slug)
    expected = Article.objects.select_related("lead_image").get(pk=article.pk)
    assert fields(read) == fields(expected)
    assert fields(read.lead_image) == fields(expected.lead_image)
    assert load_article("no-such-slug") is None


@pytest.mark.parametrize(
    "state",
    [{"draft": True}, {"published_at": timezone.now() + timedelta(hours=1)}],
    ids=["draft", "scheduled"],
)
def test_only_editors_previews_read_articles_readers_may_not_see(state):
    hidden = ArticleFactory(**state)
    assert load_article(hidden.slug) is None
    assert load_article(hidden.slug, public=False).pk == hidden.pk


def test_the_sql_rule_for_public_articles_is_published_s():
    from django.db import connection

    from news.models import public_condition

    ArticleFactory(title="Out")
    ArticleFactory(title="Draft", draft=True)
    ArticleFactory(title="Later", published_at=timezone.now() + timedelta(minutes=5))
    ArticleFactory(title="Draft once due", draft=True, published_at=timezone.now())
    condition, params = public_condition("x", connection)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT x.id FROM news_article x WHERE {condition}", params)
        found = {pk for (pk,) in cursor.fetchall()}
    assert found == set(Article.objects.published().values_list("pk", flat=True))
    assert len(found) == 1
