"""The editorial calendar: a month or a week of scheduled and published stories by the
newsroom's day, and editors moving a scheduled story to another day at the same time,
recorded in its history. Drafts are not on it; a public story and the past cannot be
moved to."""

import re
from datetime import UTC, datetime

import pytest
import time_machine
from django.contrib.auth.models import Group
from django.test import Client
from reversion.models import Version

from news.models import Article

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db

URL = "/admin/news/article/calendar/"
NOW = datetime(2026, 12, 2, 10, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def wednesday_morning():
    with time_machine.travel(NOW, tick=False):
        yield


def member(django_user_model, group):
    user = django_user_model.objects.create_user(group.lower(), is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def editor(django_user_model):
    return member(django_user_model, "Editors")


@pytest.fixture
def writer(django_user_model):
    return member(django_user_model, "Writers")


def day_cell(html, day):
    start = html.index(f'data-day="{day}"')
    return html[start : html.index("</td>", start)]


def at(day, hour, minute=0):
    return datetime(2026, 12, day, hour, minute, tzinfo=UTC)


def test_the_month_shows_scheduled_and_published_stories_on_their_days(editor):
    ArticleFactory(title="Out on Monday", published_at=at(1, 9))
    ArticleFactory(title="Due on Friday", published_at=at(4, 8, 30))
    ArticleFactory(title="Still a draft", published_at=at(3, 9), status=Article.Status.DRAFT)
    html = editor.get(URL, {"month": "2026-12"}).content.decode()
    assert "<caption>December 2026</caption>" in html
    monday, friday = day_cell(html, "2026-12-01"), day_cell(html, "2026-12-04")
    assert "Out on Monday" in monday and "Published" in monday
    assert "Due on Friday" in friday and "Scheduled" in friday and ">08:30<" in friday
    assert "Still a draft" not in html
    # Whole weeks: the grid starts on Monday 30 November.
    assert re.findall(r'data-day="([\d-]+)"', html)[0] == "2026-11-30"
    assert 'aria-current="date"' in day_cell(html, "2026-12-02")


def test_days_follow_the_newsroom_time_zone(editor, settings):
    settings.TIME_ZONE = "Europe/Berlin"
    ArticleFactory(title="Late in UTC", published_at=at(4, 23, 30))
    html = editor.get(URL, {"month": "2026-12"}).content.decode()
    assert "Late in UTC" in day_cell(html, "2026-12-05")
    assert ">00:30<" in day_cell(html, "2026-12-05")


def test_the_week_view_shows_seven_days_and_links_around(editor):
    ArticleFactory(title="Story of Thursday", published_at=at(3, 9))
    ArticleFactory(title="Story of the 8th", published_at=at(8, 9))
    html = editor.get(URL, {"week": "2026-W49"}).content.decode()
    assert "<caption>30 November\N{EN DASH}6 December 2026</caption>" in html
    assert len(re.findall(r'data-day="', html)) == 7
    assert "Story of Thursday" in html and "Story of the 8th" not in html
    assert f'href="{URL}?month=2026-12"' in html  # the month of most of its days
    assert f'href="{URL}?week=2026-W50"' in html
    assert f'href="{URL}?week=2026-W48"' in html


def test_a_full_day_shows_its_first_stories_and_links_to_the_rest(editor):
    for n in range(14):
        ArticleFactory(title=f"Story {n:02d}", published_at=at(1, 8, n))
    cell = day_cell(editor.get(URL).content.decode(), "2026-12-01")
    assert cell.count("calendar__story ") == 12
    assert "2 more" in cell


def test_the_calendar_costs_the_same_queries_for_many_stories(
    editor, django_assert_max_num_queries
):
    for n in range(3):
        ArticleFactory(published_at=at(1 + n, 9))
    with django_assert_max_num_queries(9) as few:
        editor.get(URL)
    for n in range(30):
        ArticleFactory(published_at=at(1 + n % 28, 10))
    with django_assert_max_num_queries(len(few)):
        editor.get(URL)


def test_an_editor_moves_a_scheduled_story_to_another_day_at_the_same_time(editor):
    story = ArticleFactory(title="Zig 0.15", published_at=at(4, 8, 30))
    response = editor.post(
        f"/admin/news/article/{story.pk}/reschedule/",
        {"day": "2026-12-07", "next": f"{URL}?month=2026-12"},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == f"{URL}?month=2026-12"
    story.refresh_from_db()
    assert story.published_at == at(7, 8, 30)
    assert "Moved “Zig 0.15” to Monday 7 December 2026, 08:30 UTC." in response.content.decode()
    assert "Zig 0.15" in day_cell(response.content.decode(), "2026-12-07")
    comment = Version.objects.get_for_object(story).first().revision.comment
    assert comment == "Rescheduled from 4 December 2026, 08:30 to 7 December 2026, 08:30 UTC"


def test_a_story_cannot_move_into_the_past(editor):
    story = ArticleFactory(title="Zig 0.15", published_at=at(4, 8, 30))
    response = editor.post(
        f"/admin/news/article/{story.pk}/reschedule/", {"day": "2026-12-01"}, follow=True
    )
    assert "1 December 2026, 08:30 has passed" in response.content.decode()
    story.refresh_from_db()
    assert story.published_at == at(4, 8, 30)


def test_a_public_story_does_not_move(editor):
    story = ArticleFactory(title="Out already", published_at=at(1, 9))
    response = editor.post(
        f"/admin/news/article/{story.pk}/reschedule/", {"day": "2026-12-09"}, follow=True
    )
    assert "“Out already” is already public" in response.content.decode()
    story.refresh_from_db()
    assert story.published_at == at(1, 9)


@pytest.mark.parametrize("day", ["next friday", "2026-02-30"])
def test_a_bad_day_is_named(editor, day):
    story = ArticleFactory(published_at=at(4, 9))
    response = editor.post(f"/admin/news/article/{story.pk}/reschedule/", {"day": day}, follow=True)
    assert "Choose the day as YYYY-MM-DD" in response.content.decode()


@pytest.mark.parametrize(
    "query",
    [
        {"month": "2026-13"}, {"week": "2026-W99"}, {"month": "x"}, {"month": "9999-12"},
        {"month": "0001-01"}, {"week": "9999-W52"},
    ],
)  # fmt: skip
def test_a_bad_period_shows_the_current_one(editor, query):
    response = editor.get(URL, query)
    assert response.status_code == 200
    assert 'aria-current="date"' in response.content.decode()


def test_writers_see_the_calendar_but_cannot_move_stories(writer):
    story = ArticleFactory(title="Zig 0.15", published_at=at(4, 9))
    html = writer.get(URL).content.decode()
    assert "Zig 0.15" in html
    assert "Move…" not in html and 'draggable="true"' not in html
    response = writer.post(f"/admin/news/article/{story.pk}/reschedule/", {"day": "2026-12-09"})
    assert response.status_code == 403
    story.refresh_from_db()
    assert story.published_at == at(4, 9)


def test_the_dashboard_links_into_the_calendar(editor):
    html = editor.get("/admin/").content.decode()
    assert f'href="{URL}?week=2026-W49"' in html
