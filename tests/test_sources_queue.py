"""The admin queue "Sources to fix" and what readers see of a dead source."""

from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from reversion.models import Version

from editorial.models import sources_to_fix_count
from news.models import Source
from sources.models import SourceURL, State

from .factories import ArticleFactory, SourceFactory

pytestmark = pytest.mark.django_db

QUEUE = reverse("admin:editorial_sourcetofix_changelist")
DEAD = "https://example.org/dead"


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_user("ed", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def dead():
    """A gone URL cited by two published articles."""
    for title in ("First citing story", "Second citing story"):
        SourceFactory(article=ArticleFactory(title=title), url=DEAD)
    return SourceURL.objects.create(url=DEAD, state=State.GONE, last_status=404, failures=1)


def act(client, action, rows, **fields):
    data = {"action": action, "_selected_action": [str(row.pk) for row in rows], **fields}
    return client.post(QUEUE, data)


def test_the_queue_lists_each_url_once_with_the_articles_citing_it(editor, dead):
    page = editor.get(QUEUE).content.decode()
    assert page.count(f">{DEAD}<") == 1
    assert "First citing story" in page and "Second citing story" in page
    assert "HTTP 404" in page


def test_the_queue_leaves_out_fine_urls_ignored_ones_and_single_failures(dead):
    SourceFactory(url="https://example.org/fine")
    SourceURL.objects.create(url="https://example.org/fine", state=State.FINE)
    SourceFactory(url="https://example.org/flaky")
    SourceURL.objects.create(url="https://example.org/flaky", state=State.FAILING, failures=1)
    SourceFactory(url="https://example.org/ignored")
    SourceURL.objects.create(
        url="https://example.org/ignored",
        state=State.GONE,
        ignored_until=timezone.now() + timedelta(days=30),
    )
    assert sources_to_fix_count() == 1


def test_the_queue_leaves_out_urls_only_drafts_cite():
    SourceFactory(article=ArticleFactory(draft=True), url=DEAD)
    SourceURL.objects.create(url=DEAD, state=State.GONE)
    assert sources_to_fix_count() == 0


def test_accepting_the_redirect_target_updates_every_citing_article(editor):
    article = ArticleFactory()
    SourceFactory(article=article, url="https://example.org/old")
    moved = SourceURL.objects.create(
        url="https://example.org/old", state=State.MOVED, final_url="https://example.org/new"
    )
    version = article.version
    act(editor, "accept_redirect", [moved])
    assert list(Source.objects.values_list("url", flat=True)) == ["https://example.org/new"]
    article.refresh_from_db()
    assert article.version == version + 1
    revision = Version.objects.get_for_object(article).first().revision
    assert "Source URL replaced" in revision.comment and revision.user.username == "ed"
    assert sources_to_fix_count() == 0


def test_replacing_a_url_asks_for_the_new_one_and_applies_it(editor, dead):
    act(editor, "replace", [dead], apply="Apply", url="https://example.org/found-again")
    assert set(Source.objects.values_list("url", flat=True)) == {"https://example.org/found-again"}


def test_a_bad_replacement_url_is_refused_and_nothing_changes(editor, dead):
    response = act(editor, "replace", [dead], apply="Apply", url="javascript:alert(1)")
    assert "Enter a valid URL" in response.content.decode()
    assert set(Source.objects.values_list("url", flat=True)) == {DEAD}


def test_an_archived_copy_shows_next_to_the_dead_source(editor, dead, client):
    archive = "https://web.archive.org/web/2024/https://example.org/dead"
    act(editor, "archive", [dead], apply="Apply", url=archive)
    article = Source.objects.first().article
    page = client.get(article.get_absolute_url()).content.decode()
    assert f'<a class="archived" href="{archive}"' in page
    assert sources_to_fix_count() == 0


def test_ignoring_hides_a_url_for_the_months_chosen(editor, dead):
    act(editor, "ignore", [dead], apply="Apply", months="3")
    dead.refresh_from_db()
    assert timedelta(days=85) < dead.ignored_until - timezone.now() < timedelta(days=95)
    assert sources_to_fix_count() == 0


def test_a_writer_cannot_change_sources_from_the_queue(django_user_model, dead):
    user = django_user_model.objects.create_user("wr", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    writer = Client()
    writer.force_login(user)
    assert writer.get(QUEUE).status_code == 200
    act(writer, "replace", [dead], apply="Apply", url="https://example.org/x")
    assert set(Source.objects.values_list("url", flat=True)) == {DEAD}


def test_the_queue_is_called_by_its_name(editor, dead):
    page = editor.get(QUEUE).content.decode()
    assert "<title>Sources to fix |" in page
    assert "<h1>Sources to fix</h1>" in page
    assert "Select source to fix to view" not in page
