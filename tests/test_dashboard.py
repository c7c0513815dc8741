"""The admin's home is the newsroom's dashboard: its queues, each opening the editor."""

from datetime import date, timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from news.models import RelatedLink

from .factories import ArticleFactory
from .test_workflow import change_url

pytestmark = pytest.mark.django_db
HOME = reverse("admin:index")


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("eddie", "e@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    client.user = user
    return client


def section(html, heading_id):
    start = html.index(f'id="{heading_id}"')
    return html[start : html.index("</section>", start)]


def test_the_admin_is_the_skillo_newsroom(editor):
    html = editor.get(HOME).content.decode()
    assert "<title>Newsroom | Skillo newsroom</title>" in html
    assert "Django administration" not in html


def test_ready_for_review_lists_submitted_articles_oldest_first(editor):
    first = ArticleFactory(title="Waiting longest", status="review")
    second = ArticleFactory(title="Waiting less", status="review")
    ArticleFactory(title="Just a draft", draft=True)
    queue = section(editor.get(HOME).content.decode(), "queue-review")
    assert "Ready for review (2)" in queue
    assert queue.index(change_url(first)) < queue.index(change_url(second))
    assert "Just a draft" not in queue


def test_scheduled_next_says_when(editor):
    when = timezone.now().replace(microsecond=0) + timedelta(days=1)
    article = ArticleFactory(title="Tomorrow's story", published_at=when)
    queue = section(editor.get(HOME).content.decode(), "queue-scheduled")
    assert change_url(article) in queue
    assert f"{timezone.localtime(when):%-d %B %Y, %H:%M}" in queue


def test_facts_due_open_the_editor_with_months_in_words(editor):
    article = ArticleFactory(title="Old facts", facts_verified=date(2023, 9, 1))
    queue = section(editor.get(HOME).content.decode(), "queue-facts")
    assert f'<a href="{change_url(article)}">Old facts</a>' in queue
    assert "verified September 2023" in queue
    page = editor.get(reverse("admin:editorial_factsdue_changelist")).content.decode()
    assert f'<a href="{change_url(article)}">Old facts</a>' in page
    assert "September 2023" in page and "Sept. 1, 2023" not in page


def test_wanted_articles_say_who_wants_them_with_a_write_it_link(editor):
    wanting = ArticleFactory(title="Rust 1.80 ships")
    RelatedLink.objects.create(article=wanting, title="Rust 2.0 ships")
    queue = section(editor.get(HOME).content.decode(), "queue-wanted")
    assert f'wanted by <a href="{change_url(wanting)}">Rust 1.80 ships</a>' in queue
    assert f'href="{reverse("admin:news_article_add")}?title=Rust+2.0+ships">Write it' in queue


def test_your_drafts_are_yours(editor):
    mine = ArticleFactory(title="My draft", draft=True, updated_by=editor.user)
    ArticleFactory(title="Someone else's draft", draft=True)
    queue = section(editor.get(HOME).content.decode(), "queue-drafts")
    assert change_url(mine) in queue and "Someone else" not in queue


def test_recently_published_links_the_editor_and_the_page(editor):
    article = ArticleFactory(title="Fresh news")
    queue = section(editor.get(HOME).content.decode(), "queue-published")
    assert change_url(article) in queue and article.get_absolute_url() in queue


def test_the_dashboard_costs_the_same_queries_with_more_articles(editor):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def count():
        editor.get(HOME)  # the first look works out the readership figures (kept since)
        with CaptureQueriesContext(connection) as queries:
            assert editor.get(HOME).status_code == 200
        return len(queries)

    ArticleFactory(status="review")
    ArticleFactory(facts_verified=date(2023, 1, 1))
    before = count()
    for _ in range(5):
        ArticleFactory(status="review")
        ArticleFactory(facts_verified=date(2023, 1, 1))
        RelatedLink.objects.create(article=ArticleFactory(), title="Not yet written")
    assert count() == before


def test_sources_to_fix_are_counted_with_a_link_to_the_queue(editor):
    from django.utils import timezone

    from sources.models import SourceURL, State

    from .factories import SourceFactory

    source = SourceFactory(article=ArticleFactory(), url="https://gone.example/page")
    SourceURL.objects.create(
        url=source.url,
        state=State.GONE,
        last_status=404,
        last_checked_at=timezone.now(),
        failures=3,
    )
    queue = section(editor.get(HOME).content.decode(), "queue-sources")
    assert "Sources to fix (1)" in queue
    assert reverse("admin:editorial_sourcetofix_changelist") in queue


def test_custom_admin_pages_have_the_admins_own_breadcrumbs(editor):
    html = editor.get(reverse("admin:news_article_wanted")).content.decode()
    assert '<ol class="breadcrumbs">' in html
    assert '<li aria-current="page">Wanted articles</li>' in html


def test_scheduled_today_is_counted_apart(client, django_user_model, time_machine):
    from datetime import datetime, timedelta

    from django.contrib.auth.models import Group
    from django.utils import timezone

    from tests.factories import ArticleFactory

    noon = timezone.make_aware(datetime(2026, 12, 2, 12, 0))
    time_machine.move_to(noon, tick=False)
    editor = django_user_model.objects.create_user("grace", password="pw", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    ArticleFactory(published_at=noon + timedelta(hours=3))
    ArticleFactory(published_at=noon + timedelta(hours=13))
    html = client.get("/admin/").content.decode()
    assert "Scheduled next (1 today)</h2>" in html


@pytest.fixture
def writer(django_user_model):
    from people.models import Author

    user = django_user_model.objects.create_user("wendy", "w@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    client = Client()
    client.force_login(user)
    client.user = user
    client.author = Author.objects.create(name="Wendy", slug="wendy", user=user)
    return client


def test_a_writer_is_not_shown_the_facts_due_only_editors_can_verify(writer, editor):
    ArticleFactory(title="Old facts", facts_verified=date(2023, 9, 1), authors=[writer.author])
    assert 'id="queue-facts"' not in writer.get(HOME).content.decode()
    assert "Facts due (1)" in section(editor.get(HOME).content.decode(), "queue-facts")


def test_a_writer_is_not_shown_the_sources_only_editors_can_fix(writer, editor):
    from sources.models import SourceURL, State

    from .factories import SourceFactory

    source = SourceFactory(
        article=ArticleFactory(authors=[writer.author]), url="https://x.example/"
    )
    SourceURL.objects.create(
        url=source.url, state=State.GONE, last_status=404, last_checked_at=timezone.now()
    )
    assert 'id="queue-sources"' not in writer.get(HOME).content.decode()
    assert "Sources to fix (1)" in section(editor.get(HOME).content.decode(), "queue-sources")


def test_a_writer_sees_their_own_articles_in_review_and_editors_the_desks(writer, editor):
    mine = ArticleFactory(title="Mine, submitted", status="review", authors=[writer.author])
    ArticleFactory(title="A colleague's, submitted", status="review")
    queue = section(writer.get(HOME).content.decode(), "queue-review")
    assert "Yours in review (1)" in queue
    assert change_url(mine) in queue and "colleague" not in queue
    assert "Ready for review (2)" in section(editor.get(HOME).content.decode(), "queue-review")


def test_a_writer_sees_their_own_scheduled_and_published_articles(writer, editor):
    tomorrow = timezone.now() + timedelta(days=1)
    mine = ArticleFactory(title="Mine, tomorrow", published_at=tomorrow, authors=[writer.author])
    ArticleFactory(title="A colleague's, tomorrow", published_at=tomorrow)
    out = ArticleFactory(title="Mine, out", authors=[writer.author])
    ArticleFactory(title="A colleague's, out")
    html = writer.get(HOME).content.decode()
    scheduled, published = section(html, "queue-scheduled"), section(html, "queue-published")
    assert "Yours scheduled" in scheduled and change_url(mine) in scheduled
    assert "Yours published" in published and change_url(out) in published
    assert "colleague" not in scheduled + published
    desk = editor.get(HOME).content.decode()
    assert "A colleague&#x27;s, tomorrow" in section(desk, "queue-scheduled")
    assert "A colleague&#x27;s, out" in section(desk, "queue-published")


def test_a_writer_finds_the_profile_their_articles_are_signed_with(writer):
    queue = section(writer.get(HOME).content.decode(), "queue-drafts")
    profile = reverse("admin:people_author_change", args=[writer.author.pk])
    assert f'Your articles are signed <a href="{profile}">Wendy</a>' in queue


def test_a_writer_with_drafts_starts_a_new_article_from_the_top_of_the_dashboard(writer):
    ArticleFactory(title="Half written", draft=True, authors=[writer.author])
    html = writer.get(HOME).content.decode()
    top = html.split('<div class="dashboard">')[0]
    assert '<a href="/admin/news/article/add/" class="addlink">New article</a>' in top
