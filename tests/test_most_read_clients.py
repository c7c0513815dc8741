"""'Most read' against one client (issue 44): 800 beacons from one address and one
browser over two minutes, inside the beacons' limit of 600 a minute, put its three
stories on top of every page, as the list ranked raw views. It ranks readers now; a view
counts at most once per visitor, article and hour; and a client far faster than a person
counts nowhere. The admin's figures are the same figures, ranked the same way. (With
Redis: tests/test_readership_redis.py.)"""

from datetime import timedelta

import pytest
from django.utils import timezone

from readership import most_read
from readership.folding import PERSON_PER_MINUTE, fold
from readership.models import ArticleHour
from tests.factories import ArticleFactory
from tests.test_most_read import listed
from tests.test_readership import BROWSER, figures, fresh_process, send  # noqa: F401
from tests.test_readership_admin import HOME, editor, period  # noqa: F401

pytestmark = pytest.mark.django_db


@pytest.fixture
def on_the_hour(time_machine):
    """The clock at the start of an hour, running: the limits count clock minutes, and
    views count once an hour."""
    start = timezone.now().replace(minute=0, second=0, microsecond=0) + timedelta(hours=1)
    time_machine.move_to(start, tick=True)
    return lambda minutes: time_machine.move_to(start + timedelta(minutes=minutes), tick=True)


def read_by(client, article, readers, first=0):
    """``readers`` people, each at an address of their own, read ``article``."""
    for n in range(first, first + readers):
        send(client, article.get_absolute_url(), address=f"198.51.{n // 250}.{n % 250 + 1}")


def test_one_clients_800_beacons_in_two_minutes_do_not_top_the_list(client, on_the_hour):
    read = [ArticleFactory(title=f"Read {n}") for n in range(1, 4)]
    pushed = [ArticleFactory(title=f"Pushed {n}") for n in range(1, 4)]
    for article, readers in zip(read, [30, 25, 21], strict=True):
        read_by(client, article, readers)
    for minute in range(2):
        on_the_hour(minute + 1)
        for n in range(400):
            assert send(client, pushed[n % 3].get_absolute_url()).status_code == 204
        fold()  # the periodic fold, every minute
    most_read.refresh()
    assert listed(client.get("/")) == ["Read 1", "Read 2", "Read 3"]


def test_a_readers_views_of_an_article_count_once_an_hour(client, on_the_hour):
    article = ArticleFactory()
    for minute in (5, 20, 50):
        on_the_hour(minute)
        send(client, article.get_absolute_url())
        send(client, article.get_absolute_url())
        fold()  # each a fold of its own: what was counted is remembered between them
    on_the_hour(70)
    send(client, article.get_absolute_url())
    assert figures(article) == (2, 1)


def test_a_client_faster_than_a_person_counts_nowhere_that_day(client, on_the_hour):
    article, other = ArticleFactory(), ArticleFactory()
    for _ in range(PERSON_PER_MINUTE + 1):
        send(client, article.get_absolute_url())
    assert figures(article) == (0, 0)
    on_the_hour(90)  # slower later, the same day: still not counted on that article
    send(client, article.get_absolute_url())
    assert figures(article) == (0, 0)
    send(client, other.get_absolute_url())  # nor its views counted elsewhere held back
    assert figures(other) == (1, 1)


def test_a_reader_at_a_persons_fastest_is_counted(client, on_the_hour):
    articles = ArticleFactory.create_batch(3)
    for n in range(PERSON_PER_MINUTE):
        send(client, articles[n % 3].get_absolute_url())
    assert [figures(article) for article in articles] == [(1, 1)] * 3


def hours_of(article, views, readers):
    hour = timezone.now().replace(minute=0, second=0, microsecond=0)
    ArticleHour.objects.create(article=article, hour=hour, views=views, visitors=readers)


@pytest.fixture
def counted():
    """Four stories: the most viewed (Kernel) has the fewest readers."""
    titles = ["Kernel", "Compiler", "Browser", "Database"]
    stories = {title: ArticleFactory(title=title) for title in titles}
    for title, views, readers in [
        ("Kernel", 900, 21), ("Compiler", 60, 40), ("Browser", 50, 30), ("Database", 45, 45),
    ]:  # fmt: skip
        hours_of(stories[title], views, readers)
    return stories


def test_most_read_ranks_readers_not_views(client, counted):
    most_read.refresh()
    assert listed(client.get("/")) == ["Database", "Compiler", "Browser", "Kernel"]


def test_too_few_readers_show_no_list_however_many_views(client):
    for title in ["One", "Two", "Three"]:
        hours_of(ArticleFactory(title=title), 5000, 19)
    most_read.refresh()
    assert listed(client.get("/")) == []


def test_the_dashboard_ranks_the_stories_as_the_site_does(client, editor, counted):  # noqa: F811
    most_read.refresh()
    today = period(editor.get(HOME).content.decode(), "Today")
    shown = sorted(counted, key=today.index)
    assert shown == listed(client.get("/")) == ["Database", "Compiler", "Browser", "Kernel"]
