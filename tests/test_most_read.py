"""'Most read' on the home page and beside articles (issue 32): ranked from the folded
figures by a periodic task, never a draft, left out when too few views were counted."""

from datetime import timedelta

import pytest
from django.utils import timezone

from news.models import Article
from readership import most_read
from readership.models import ArticleHour, MostRead
from readership.tasks import refresh_figures
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def read(article, views, hours_ago=1):
    hour = (timezone.now() - timedelta(hours=hours_ago)).replace(minute=0, second=0, microsecond=0)
    ArticleHour.objects.create(article=article, hour=hour, views=views, visitors=views)


def listed(page):
    """The titles of the 'Most read' list on a page, in order."""
    html = page.content.decode()
    if "most-read__list" not in html:
        return []
    items = html.split('class="most-read__list">', 1)[1].split("</ol>", 1)[0]
    return [part.split("</a>", 1)[0].rsplit(">", 1)[1] for part in items.split("<li>")[1:]]


@pytest.fixture
def stories():
    return [ArticleFactory(title=f"Story {n}") for n in range(1, 6)]


def test_the_most_read_are_listed_on_the_home_page_most_viewed_first(client, stories):
    for story, views in zip(stories, [30, 90, 20, 60, 5], strict=True):
        read(story, views)
    most_read.refresh()
    assert listed(client.get("/")) == ["Story 2", "Story 4", "Story 1", "Story 3"]


def test_too_few_views_to_mean_anything_show_no_list(client, stories):
    read(stories[0], 500)
    read(stories[1], 400)
    read(stories[2], 19)  # under READERSHIP_MOST_READ_MIN_READERS: two stories is no ranking
    most_read.refresh()
    home = client.get("/").content.decode()
    assert "Most read" not in home and not MostRead.objects.exists()


def test_a_young_site_ranks_the_last_seven_days(client, stories):
    for story in stories[:3]:
        read(story, 25, hours_ago=72)
    most_read.refresh()
    home = client.get("/").content.decode()
    assert "In the last 7 days" in home
    assert listed(client.get("/")) == ["Story 1", "Story 2", "Story 3"]


def test_the_last_day_is_ranked_once_it_has_views_enough(client, stories):
    for story in stories[:3]:
        read(story, 25, hours_ago=72)
    for story in stories[2:]:
        read(story, 40)
    most_read.refresh()
    assert "In the last 24 hours" in client.get("/").content.decode()
    assert listed(client.get("/")) == ["Story 3", "Story 4", "Story 5"]


def test_beside_an_article_the_list_leaves_the_article_out(client, stories):
    for story, views in zip(stories, [50, 40, 30, 20, 10], strict=True):
        read(story, views)
    most_read.refresh()
    page = client.get(stories[1].get_absolute_url())
    assert listed(page) == ["Story 1", "Story 3", "Story 4"]


def test_an_article_unpublished_after_the_ranking_leaves_the_list_at_once(client, stories):
    for story, views in zip(stories, [50, 40, 30, 20, 10], strict=True):
        read(story, views)
    most_read.refresh()
    stories[0].status = Article.Status.DRAFT
    stories[0].save()
    assert listed(client.get("/")) == ["Story 2", "Story 3", "Story 4"]
    # and the next ranking leaves it out, as it counts published articles only
    most_read.refresh()
    assert list(MostRead.objects.values_list("article__title", flat=True)) == [
        "Story 2", "Story 3", "Story 4",
    ]  # fmt: skip


def test_a_draft_with_figures_is_never_ranked(client, stories):
    draft = ArticleFactory(title="Secret draft", draft=True)
    read(draft, 1000)
    for story in stories[:3]:
        read(story, 30)
    most_read.refresh()
    assert "Secret draft" not in client.get("/").content.decode()
    assert not MostRead.objects.filter(article=draft).exists()


def test_refreshing_an_unchanged_ranking_changes_nothing(stories):
    for story in stories[:3]:
        read(story, 30)
    assert most_read.refresh() is True
    assert most_read.refresh() is False


def test_the_periodic_task_ranks_again(client, stories):
    for story in stories[:3]:
        read(story, 30)
    refresh_figures.call()
    assert listed(client.get("/")) == ["Story 1", "Story 2", "Story 3"]


def test_beside_an_unranked_article_the_list_needs_as_many_stories_as_on_the_home_page(
    client, stories, settings
):
    settings.READERSHIP_MOST_READ_MIN_ARTICLES = 3
    for story in stories[:3]:
        read(story, 30)
    most_read.refresh()
    Article.objects.filter(pk=stories[2].pk).update(status=Article.Status.DRAFT)
    # Two of the three still public: not enough for the home page, nor beside another.
    assert listed(client.get("/")) == []
    assert listed(client.get(stories[4].get_absolute_url())) == []
    # Beside one of them, the other is not enough either (3 - itself = 2 needed).
    assert listed(client.get(stories[0].get_absolute_url())) == []
