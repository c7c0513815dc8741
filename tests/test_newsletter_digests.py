"""Daily and weekly digests (issue 29): the stories that went public in the period, in
the newsroom's time zone, each subscriber's own share of them, the lead story first;
planned once however long the machine was off."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from news.models import FrontPin
from newsletters.models import Issue, Subscriber
from newsletters.tasks import plan_digests

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .test_newsletter_sending import subscriber

pytestmark = pytest.mark.django_db

# 07:00 in Berlin on a Tuesday in December is 06:00 UTC.
DUE = datetime(2026, 12, 1, 6, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def newsroom(settings):
    settings.NEWSLETTER_TIME_ZONE = "Europe/Berlin"
    settings.NEWSLETTER_DIGEST_HOUR = 7
    settings.NEWSLETTER_WEEKLY_DAY = 0  # Monday


def published(title, at, **fields):
    with time_machine.travel(at, tick=False):
        return ArticleFactory(title=title, **fields)


def texts(server, address):
    return [
        next(p for p in m.walk() if p.get_content_type() == "text/plain")
        .get_payload(decode=True)
        .decode()
        for m in server.to(address)
    ]


def test_a_daily_digest_sends_each_subscriber_the_stories_of_their_choice(mail_server):  # noqa: F811
    rust = published("Rust 1.90 ships", DUE - timedelta(hours=20), tags=["rust"])
    # Backdated to its event, but published on Skillo within the day: in the digest.
    old = published(
        "Go 1.0, ten years on",
        DUE - timedelta(hours=2),
        tags=["go"],
        published_at=DUE - timedelta(days=3650),
    )
    published("Yesterday's news", DUE - timedelta(hours=30))
    FrontPin.objects.create(article=old, lead=True)
    subscriber("all@example.org", frequency=Subscriber.Frequency.DAILY)
    subscriber("rust@example.org", frequency="daily", topics=[rust.tags.get()])
    subscriber("java@example.org", frequency="daily", topics=[published(
        "Java", DUE - timedelta(days=3), tags=["java"]).tags.get()])  # fmt: skip
    subscriber("weekly@example.org", frequency=Subscriber.Frequency.WEEKLY)
    with time_machine.travel(DUE - timedelta(minutes=30), tick=False):
        plan_digests.call()
        run_queued()  # the story issues; the digest waits for its time
    assert Issue.objects.get(kind="daily").subject == "Skillo daily, 1 December 2026"
    with time_machine.travel(DUE + timedelta(minutes=1), tick=False):
        run_queued()
    (everything,) = texts(mail_server, "all@example.org")
    assert everything.index("Go 1.0, ten years on") < everything.index("Rust 1.90 ships")
    assert "Yesterday's news" not in everything
    (mine,) = texts(mail_server, "rust@example.org")
    assert "Rust 1.90 ships" in mine and "Go 1.0" not in mine
    assert mail_server.to("java@example.org") == []
    # The week that ended on Monday morning: its stories, not today's.
    (weekly,) = texts(mail_server, "weekly@example.org")
    assert "Yesterday's news" in weekly and "Rust 1.90 ships" not in weekly


def test_a_machine_off_for_days_plans_one_digest_not_one_per_day_missed():
    for days in (0, 1, 2, 3):
        published(f"Story {days}", DUE - timedelta(days=days, hours=3))
    with time_machine.travel(DUE + timedelta(days=3, hours=1), tick=False):
        plan_digests.call()
        plan_digests.call()
    (daily,) = Issue.objects.filter(kind="daily")
    assert daily.period_end == DUE + timedelta(days=3)
    assert Issue.objects.filter(kind="weekly").count() == 1


def test_the_weekly_digest_ends_on_the_newsrooms_monday_morning():
    with time_machine.travel(DUE, tick=False):
        plan_digests.call()
    weekly = Issue.objects.get(kind="weekly")
    # 1 December 2026 is a Tuesday: the week ended on Monday 30 November, 07:00 Berlin.
    assert weekly.period_end == DUE - timedelta(days=1)
    assert weekly.period_start == DUE - timedelta(days=8)


def test_a_digest_without_stories_is_not_sent(mail_server):  # noqa: F811
    subscriber("all@example.org", frequency=Subscriber.Frequency.DAILY)
    with time_machine.travel(DUE + timedelta(minutes=1), tick=False):
        plan_digests.call()
        run_queued()
    assert Issue.objects.get(kind="daily").state == Issue.State.CANCELLED
    assert mail_server.messages() == []
