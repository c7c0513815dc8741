"""The readership figures editors read (issue 32): the dashboard's today, 7 and 30 days,
and each article's "Readers" panel: views per day as a chart drawn on the server with
its numbers in a table, its sources, and its reach from the newsletter's records."""

import html as entities
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from news.models import Correction
from readership import figures
from readership.models import ArticleHour, SourceHour
from readership.tasks import refresh_figures

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .test_newsletter_sending import subscriber
from .test_workflow import change_url

pytestmark = pytest.mark.django_db
HOME = reverse("admin:index")


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("eddie", "e@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def hour_ago(hours):
    now = timezone.now().replace(minute=0, second=0, microsecond=0)
    return now - timedelta(hours=hours)


def read(article, views, hours_ago=0, visitors=None, source=None):
    hour = hour_ago(hours_ago)
    ArticleHour.objects.create(
        article=article, hour=hour, views=views, visitors=views if visitors is None else visitors
    )
    if source:
        SourceHour.objects.create(article=article, hour=hour, source=source, views=views)


def period(html, name):
    """The text of one period's part of the dashboard's Readers module."""
    part = html.split(f">{name}</h3>", 1)[1].split("</section>", 1)[0]
    return entities.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part)).strip())


def test_the_dashboard_shows_each_periods_most_read_totals_and_sources(editor):
    today, week, month = (ArticleFactory(title=t) for t in ["Today's", "This week's", "Old"])
    read(today, 40, source="Search engines", visitors=30)
    read(week, 70, hours_ago=24 * 3, source="Newsletter")
    read(month, 90, hours_ago=24 * 20, source="lwn.net")
    html = editor.get(HOME).content.decode()
    assert period(html, "Today").startswith("40 views · 30 readers")
    assert "Today's 30 readers · 40 views" in period(html, "Today")
    assert "This week's" not in period(html, "Today")
    seven = period(html, "Last 7 days")
    assert seven.startswith("110 views") and seven.index("This week's") < seven.index("Today's")
    assert "From: Newsletter (70), Search engines (40)" in seven
    thirty = period(html, "Last 30 days")
    assert thirty.startswith("200 views") and "Old 90 readers · 90 views" in thirty
    assert change_url(month) in html


def test_the_dashboard_never_lists_a_draft(editor):
    draft = ArticleFactory(title="Secret draft", draft=True)
    read(draft, 100)
    html = editor.get(HOME).content.decode()
    assert "Secret draft" not in html.split('id="queue-readers"', 1)[1]


def test_the_dashboards_figures_cost_the_same_queries_for_more_articles_read(editor):
    def count():
        figures.summarise()  # as the periodic refresh does
        with CaptureQueriesContext(connection) as queries:
            assert editor.get(HOME).status_code == 200
        return len(queries)

    read(ArticleFactory(), 10)
    before = count()
    for n in range(12):
        read(ArticleFactory(), 10 + n, hours_ago=n * 30, source=f"site{n}.example")
    assert count() == before


def test_the_dashboard_shows_the_figures_of_the_last_refresh(editor):
    story = ArticleFactory(title="Zig 0.14 ships")
    read(story, 25)
    assert period(editor.get(HOME).content.decode(), "Today").startswith("25 views")
    read(story, 10, hours_ago=1)
    assert period(editor.get(HOME).content.decode(), "Last 7 days").startswith("25 views")
    refresh_figures.call()
    assert period(editor.get(HOME).content.decode(), "Last 7 days").startswith("35 views")


def test_the_readers_panel_draws_a_bar_a_day_since_publication(editor):
    article = ArticleFactory(title="Rust 1.90 ships")
    article.published_at = timezone.now() - timedelta(days=3)
    article.save()
    read(article, 12, hours_ago=24 * 2, source="Search engines")
    read(article, 30, hours_ago=0, visitors=20, source="Direct")
    html = editor.get(change_url(article)).content.decode()
    panel = html.split('id="readers"', 1)[1].split("</section>", 1)[0]
    assert "<strong>42</strong> views" in panel
    bars = re.findall(r'<rect x="(\d+)" y="([\d.]+)" width="8" height="([\d.]+)">', panel)
    days = (timezone.localdate() - timezone.localdate(article.published_at)).days + 1
    assert len(bars) == days
    assert bars[-1][2] == "100.0"  # the day of the most views, full height
    assert [float(height) for _, _, height in bars].count(0.0) == days - 2
    # The numbers for screen readers and for whoever wants them, newest day first.
    rows = re.findall(r"<tr><th scope=\"row\">.*?</th><td>(\d+)</td><td>(\d+)</td></tr>", panel)
    assert rows[0] == ("30", "20") and len(rows) == days
    assert "Search engines: 12" in panel and "Direct: 30" in panel


def test_a_draft_has_no_figures_yet(editor):
    draft = ArticleFactory(draft=True)
    html = editor.get(change_url(draft)).content.decode()
    assert "Figures start when the article is published." in html


def test_the_reach_counts_the_newsletters_deliveries_and_correction_notices(editor, mail_server):  # noqa: F811
    subscriber("ada@example.org")
    subscriber("grace@example.org")
    subscriber("no-corrections@example.org", corrections=False)
    article = ArticleFactory(title="Go 1.24 ships")
    run_queued()
    Correction.objects.create(
        article=article, kind=Correction.Kind.CORRECTION, note="It ships in February."
    )
    run_queued()
    assert len(mail_server.messages()) == 5
    html = editor.get(change_url(article)).content.decode()
    reach = html.split('class="readers-reach"', 1)[1].split("</dl>", 1)[0]
    reach = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", reach))
    assert "Newsletter e-mails of the story 3 " in reach
    assert "Correction notices sent 2 " in reach


def test_the_readers_panel_costs_the_same_queries_for_a_long_history(mail_server):  # noqa: F811
    from readership.templatetags.readership_admin import readers_panel

    subscriber("ada@example.org")
    article = ArticleFactory()
    run_queued()
    read(article, 5)

    def count():
        with CaptureQueriesContext(connection) as queries:
            readers_panel(article)
        return len(queries)

    # Its hours (views per day), its totals, its sources; the newsletter's story issue,
    # the issues that carried it, and their deliveries.
    assert count() == 6
    article.published_at = timezone.now() - timedelta(days=200)
    article.save()
    for hours in range(7, 24 * 120, 7):
        read(article, 3, hours_ago=hours, source=f"site{hours % 13}.example")
    assert count() == 6


def test_an_article_read_then_rescheduled_still_opens_with_its_figures(editor):
    article = ArticleFactory(title="Moved to next week")
    read(article, 12)
    article.published_at = timezone.now() + timedelta(days=7)
    article.save()
    html = editor.get(change_url(article)).content.decode()
    assert "<strong>12</strong> views" in html


def test_figures_worked_out_another_day_say_their_date(editor, time_machine):
    story = ArticleFactory()
    read(story, 25)
    figures.summarise()
    time_machine.move_to(timezone.now() + timedelta(days=2))
    html = editor.get(HOME).content.decode()
    when = timezone.localtime(figures.dashboard()[1])
    assert "As of <time datetime=" in html
    assert f"{when:%-d %B %Y}, {when:%H:%M}</time>" in html


def test_the_reach_of_a_live_story_counts_its_coverage_ended_e_mails(editor, mail_server):  # noqa: F811
    from live import desk
    from live.models import LiveCoverage

    subscriber("ada@example.org")
    subscriber("grace@example.org")
    article = ArticleFactory(title="The keynote, live")
    run_queued()
    coverage = LiveCoverage.objects.create(article=article, summary="- It ran long.")
    user = User.objects.get(username="eddie")
    desk.start_coverage(coverage, user)
    desk.end_coverage(coverage, user)
    run_queued()
    ended = [m for m in mail_server.messages() if m["Subject"].startswith("Coverage ended")]
    assert len(ended) == 2
    html = editor.get(change_url(article)).content.decode()
    reach = html.split('class="readers-reach"', 1)[1].split("</dl>", 1)[0]
    reach = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", reach))
    assert "“Coverage ended” e-mails 2 " in reach
