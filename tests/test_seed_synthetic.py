"""manage.py seed_synthetic: realistic synthetic articles for benchmarks."""

import re
import statistics
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import Count
from django.utils.html import escape

from news.models import Article, RelatedLink, Source, Tag
from newsletters.issues import story_recipients
from newsletters.models import Subscriber
from people.models import Author

from .conftest import rows_for_module
from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


def seed(articles=200, tags=30, **options):
    out = StringIO()
    call_command("seed_synthetic", articles=articles, tags=tags, stdout=out, **options)
    return out.getvalue()


def test_seeds_the_requested_articles_and_tags():
    output = seed(batch_size=64)
    assert Article.objects.count() == 200
    assert Tag.objects.count() == 30
    per_article = Article.objects.annotate(
        n_tags=Count("tagged_items", distinct=True), n_sources=Count("sources", distinct=True)
    )
    assert {a.n_tags for a in per_article} <= set(range(1, 7))
    assert {a.n_sources for a in per_article} <= set(range(1, 5))
    assert "Seeded 200 articles" in output


def test_slugs_are_unique_also_against_existing_articles():
    existing = ArticleFactory(title="Python 3.0 released")
    seed(articles=100, seed=3)
    seed(articles=100, seed=3)  # the same titles again
    slugs = list(Article.objects.values_list("slug", flat=True))
    assert len(slugs) == len(set(slugs)) == 201
    existing.refresh_from_db()
    assert existing.slug == "python-3-0-released"


@pytest.fixture(scope="class")
def seeded(django_db_setup, django_db_blocker, tmp_path_factory):
    """What seed() makes with its defaults (the same articles every time: seed 1), made
    once for the tests of a class that only read it."""
    with rows_for_module(django_db_blocker, tmp_path_factory.mktemp("media"), seed) as out:
        yield out


class TestTheDefaultSeed:
    """seed() with its defaults, as each test would make it."""

    def test_tag_use_follows_a_power_law(self, seeded):
        uses = sorted(Tag.objects.annotate(n=Count("tagged_articles")).values_list("n", flat=True))
        assert uses[-1] >= 5 * statistics.median(uses)

    def test_related_links_point_at_earlier_existing_articles(self, seeded):
        by_target = RelatedLink.objects.filter(target__isnull=False).select_related("target")
        assert by_target.exists()
        assert RelatedLink.objects.filter(target__isnull=True).exclude(title="").exists()
        for link in by_target:
            assert link.target_id < link.article_id
            assert link.title == link.target.title

    def test_search_finds_every_published_article_by_a_body_word(self, client, seeded):
        published = Article.objects.published().count()
        # Every body says "this week"; no title, summary, tag or source does.
        page = client.get("/search/?q=week").content.decode()
        # Past 100 matches the count is an estimate to two significant figures.
        assert published > 100
        shown = int(re.search(r"About ([\d,]+) results for", page)[1].replace(",", ""))
        assert abs(shown - published) <= published * 0.1, (shown, published)

    def test_search_finds_seeded_articles_by_tag(self, client, seeded):
        tagged = Article.objects.published().filter(tags__name="accessibility").first()
        assert "accessibility" not in f"{tagged.title} {tagged.summary} {tagged.body}".lower()
        page = client.get("/search/?q=accessibility").content.decode()
        assert tagged.get_absolute_url() in page

    def test_seeded_article_and_its_tag_pages_render(self, client, seeded):
        article = Article.objects.published().annotate(n=Count("related_links")).latest("n")
        page = client.get(article.get_absolute_url())
        assert page.status_code == 200
        assert escape(article.sources.first().title) in page.content.decode()
        for tag in article.tags.all():
            assert client.get(f"/tags/{tag.slug}/").status_code == 200
        assert client.get("/").status_code == 200

    def test_sources_are_searchable_text_and_some_have_no_url(self, seeded):
        source = Source.objects.select_related("article").first()
        assert source.title in source.article.search_extra
        assert Source.objects.filter(url="").exists()
        assert Source.objects.exclude(url="").exists()


def test_mix_has_drafts_scheduled_and_backdated_articles():
    seed(articles=600)
    published = list(Article.objects.published())
    backdated = sum(article.is_backdated for article in published)
    assert Article.objects.drafts().exists()
    assert Article.objects.scheduled().exists()
    assert 0.2 < backdated / 600 < 0.4
    assert len({article.event_date.year for article in published}) >= 5


def test_same_seed_gives_the_same_articles():
    seed(articles=50, seed=7)
    first = list(Article.objects.order_by("pk").values_list("title", "event_date"))
    Article.objects.all().delete()
    seed(articles=50, seed=7)
    assert list(Article.objects.order_by("pk").values_list("title", "event_date")) == first


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"articles": -1}, "--articles must be 0 or more"),
        ({"tags": -5}, "--tags must be 0 or more"),
        ({"articles": 5, "tags": 0}, "--tags must be at least 1"),
        ({"batch_size": 0}, "--batch-size must be at least 1"),
        ({"subscribers": -1}, "--subscribers must be 0 or more"),
        ({"articles": 0, "tags": 0}, "Say what to add"),
    ],
)
def test_refuses_bad_arguments_and_writes_nothing(options, message):
    with pytest.raises(CommandError, match=message):
        seed(**{"articles": 10, "tags": 5, **options})
    assert not Article.objects.exists()
    assert not Tag.objects.exists()
    assert not Subscriber.objects.exists()


def test_subscribers_are_topped_up_to_the_total_and_all_get_the_next_story():
    seed(articles=0, tags=0, subscribers=25, batch_size=10)
    output = seed(articles=0, tags=0, subscribers=30, batch_size=10)
    assert "5 subscribers" in output
    assert Subscriber.objects.filter(state=Subscriber.State.ACTIVE).count() == 30
    story = ArticleFactory()
    assert story_recipients(story).count() == 30


def test_articles_get_bylines_from_a_few_busy_authors():
    output = seed(articles=600)
    per_article = list(Article.objects.annotate(n=Count("authorships")).values_list("n", flat=True))
    assert set(per_article) == {0, 1, 2}  # agency copy, one writer, a pair
    assert 0.6 < per_article.count(1) / 600 < 0.9
    busiest = Author.objects.annotate(n=Count("authorships")).order_by("-n")
    assert busiest[0].n >= 3 * busiest.last().n
    assert f"by {Author.objects.count()} authors" in output
