"""The live desk in the admin, through Django's client: post, edit, delete, approve,
start and end, without saving the article."""

import re
import time

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from live import desk
from live.models import Entry, LiveCoverage
from news.models import Article
from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def desk_url(coverage):
    return f"/admin/live/livecoverage/{coverage.pk}/desk/"


def post_url(coverage):
    return f"/admin/live/livecoverage/{coverage.pk}/post/"


def test_posting_from_the_desk_shows_the_entry_and_leaves_the_article_alone(story, editor):
    version = Article.objects.get().version
    client = client_of(editor)
    response = client.post(
        post_url(story), {"headline": "On stage", "body": "The CEO walks on.", "key_event": "on"}
    )
    assert response.status_code == 302
    entry = Entry.objects.get()
    assert (entry.headline, entry.key_event, entry.status) == ("On stage", True, "published")
    assert Article.objects.get().version == version
    page = client.get(response["Location"]).content.decode()
    assert "The CEO walks on." in page
    assert "Posted at" in page


def test_an_empty_entry_is_refused_with_the_headline_kept(story, editor):
    response = client_of(editor).post(post_url(story), {"headline": "Keep me", "body": ""})
    assert response.status_code == 400
    page = response.content.decode()
    assert 'value="Keep me"' in page
    assert "This field is required." in page
    assert not Entry.objects.exists()


def test_posting_to_an_ended_story_says_so_and_keeps_the_text(story, editor):
    desk.end_coverage(story, editor)
    response = client_of(editor).post(post_url(story), {"body": "Too late, but typed."})
    assert response.status_code == 400
    page = response.content.decode()
    assert "not live" in page
    assert "Too late, but typed." in page


def test_a_writer_posts_and_the_entry_waits_when_asked(story, writer):
    story.approval_required = True
    story.save()
    client_of(writer).post(post_url(story), {"body": "From the floor."})
    page = client_of(writer).get(desk_url(story)).content.decode()
    assert "Awaiting approval (1)" in page
    assert "Approve" not in page


def test_the_desks_title_names_the_desk_once_for_a_story_titled_live(story, editor):
    Article.objects.update(title="Live: the keynote")
    page = client_of(editor).get(desk_url(story)).content.decode()
    assert "<h1>Live desk: Live: the keynote</h1>" in page
    assert "Live: Live:" not in page


def test_an_editor_approves_from_the_desk(story, writer, editor):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="From the floor.")
    client_of(editor).post(f"/admin/live/livecoverage/entries/{entry.pk}/approve/")
    assert Entry.objects.get().status == Entry.Status.PUBLISHED


def test_editing_from_the_desk(story, editor):
    entry = desk.post_entry(story, editor, body="Version 17.")
    url = f"/admin/live/livecoverage/entries/{entry.pk}/edit/"
    assert "Version 17." in client_of(editor).get(url).content.decode()
    response = client_of(editor).post(url, {"body": "Version 18.", "headline": ""})
    assert response.status_code == 302
    entry.refresh_from_db()
    assert entry.body == "Version 18."
    assert entry.edited_at is not None


def test_deleting_from_the_desk(story, editor):
    entry = desk.post_entry(story, editor, body="Wrong.")
    response = client_of(editor).post(f"/admin/live/livecoverage/entries/{entry.pk}/delete/")
    assert response.status_code == 302
    assert not Entry.objects.exists()


def test_deleting_from_the_desk_asks_first(story, editor):
    entry = desk.post_entry(story, editor, body="Still here.")
    client = client_of(editor)
    desk_page = client.get(desk_url(story)).content.decode()
    delete = f"/admin/live/livecoverage/entries/{entry.pk}/delete/"
    assert f'<a class="button" href="{delete}">Delete</a>' in desk_page
    response = client.get(delete)
    page = response.content.decode()
    assert response.status_code == 200 and "Still here." in page
    assert "leaves their pages within seconds" in page and "Yes, delete it" in page
    assert Entry.objects.exists()
    assert Entry.objects.exists()


def test_start_and_end_from_the_desk(editor):
    coverage = LiveCoverage.objects.create(article=ArticleFactory())
    client = client_of(editor)
    client.post(f"/admin/live/livecoverage/{coverage.pk}/start/")
    assert LiveCoverage.objects.get().state == LiveCoverage.State.LIVE
    client.post(f"/admin/live/livecoverage/{coverage.pk}/end/")
    assert LiveCoverage.objects.get().state == LiveCoverage.State.ENDED
    assert "Ended at" in client.get(desk_url(coverage)).content.decode()


def test_a_writer_cannot_end_coverage_from_the_desk(story, writer):
    response = client_of(writer).post(f"/admin/live/livecoverage/{story.pk}/end/")
    assert response.status_code == 403
    assert LiveCoverage.objects.get().state == LiveCoverage.State.LIVE


def test_turning_coverage_on_from_the_article_form(editor):
    article = ArticleFactory()
    client = client_of(editor)
    form = client.get(f"/admin/news/article/{article.pk}/change/").content.decode()
    assert f"/admin/live/livecoverage/add/?article={article.pk}" in form
    response = client.post(
        "/admin/live/livecoverage/add/",
        {
            "article": article.pk,
            "summary": "- It starts at 18:00.",
            "starts_at_0": "",
            "starts_at_1": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    assert response["Location"] == desk_url(LiveCoverage.objects.get())
    form = client.get(f"/admin/news/article/{article.pk}/change/").content.decode()
    assert ">Live desk<" in form


# An entry's post at 500 entries on the story: pinned, and its server time printed
# (docs/newsroom.md gives the figure): the session, the user and their permissions (4),
# the transaction's savepoint and its release (2), the story's version moved on and read
# (2), the entry, the poster's author profile (the byline), and the task that indexes
# the entries for search: none reads the entries.
POST_QUERIES = 11


def test_a_post_at_500_entries_costs_few_queries(story, editor, capsys):
    Entry.objects.bulk_create(
        Entry(coverage=story, body=f"Entry {n}.", body_html=f"<p>Entry {n}.</p>", version=n)
        for n in range(500)
    )
    client = client_of(editor)
    client.get(desk_url(story))
    timings = []
    for n in range(5):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.post(post_url(story), {"body": f"Post {n}."})
            timings.append(time.perf_counter() - started)
        assert response.status_code == 302
    with capsys.disabled():
        print(
            f"\npost at 500 entries: {len(queries)} queries, "
            f"median {sorted(timings)[2] * 1000:.1f} ms ({connection.vendor})"
        )
    assert len(queries) == POST_QUERIES


def test_approving_an_entry_deleted_meanwhile_says_so(story, writer, editor):
    story.approval_required = True
    story.save()
    entry = desk.post_entry(story, writer, body="Soon gone.")
    client = client_of(editor)
    page = client.get(desk_url(story)).content.decode()
    assert f"/admin/live/livecoverage/entries/{entry.pk}/approve/" in page
    desk.delete_entry(entry, editor)
    response = client.post(f"/admin/live/livecoverage/entries/{entry.pk}/approve/")
    assert response.status_code == 404


def test_a_double_click_on_post_posts_once(story, editor):
    client = client_of(editor)
    page = client.get(desk_url(story)).content.decode()
    once = re.search(r'name="once" value="([^"]+)"', page)[1]
    for _ in range(2):
        response = client.post(post_url(story), {"body": "Once only.", "once": once})
        assert response.status_code == 302
    assert Entry.objects.count() == 1
    assert "That entry was posted already." in client.get(desk_url(story)).content.decode()


def test_a_refused_post_can_be_sent_again_once_fixed(story, editor):
    desk.end_coverage(story, editor)
    client = client_of(editor)
    once = "mark-1"
    assert client.post(post_url(story), {"body": "Typed.", "once": once}).status_code == 400
    desk.start_coverage(story, editor)
    assert client.post(post_url(story), {"body": "Typed.", "once": once}).status_code == 302
    assert Entry.objects.count() == 1
