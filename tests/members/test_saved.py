"""Saved stories (issue 47): saved and removed from a story's page through its own small
uncached request, listed in the portal while public; never a draft; the story's page
itself the same for everyone."""

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from members.models import Member, SavedStory
from news.models import Article

from ..factories import ArticleFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .helpers import signed_in

pytestmark = pytest.mark.django_db

ADA = "ada@example.org"
JSON = {"HTTP_ACCEPT": "application/json"}


def csrf_client(mail_server):  # noqa: F811
    """A member's browser that checks CSRF, as a real one's requests are checked."""
    member = signed_in(mail_server, ADA)
    browser = Client(enforce_csrf_checks=True)
    browser.cookies = member.cookies
    return browser


def test_a_member_saves_a_story_from_its_state_and_finds_it_in_the_portal(mail_server):  # noqa: F811
    story = ArticleFactory(title="Worth a second read")
    browser = csrf_client(mail_server)
    state = browser.get(f"/account/stories/{story.pk}/").json()
    assert state["signed_in"] is True and state["saved"] is False
    answer = browser.post(state["save"], HTTP_X_CSRFTOKEN=state["csrf_token"], **JSON)
    assert answer.json() == {"saved": True}
    assert browser.get(f"/account/stories/{story.pk}/").json()["saved"] is True
    assert "Worth a second read</a>" in browser.get("/account/").content.decode()


def test_a_save_without_the_csrf_token_is_refused(mail_server):  # noqa: F811
    story = ArticleFactory()
    browser = csrf_client(mail_server)
    assert browser.post(f"/account/stories/{story.pk}/save/", **JSON).status_code == 403
    assert not SavedStory.objects.exists()


def test_removing_a_story_takes_it_off_the_list(mail_server):  # noqa: F811
    story = ArticleFactory(title="Read it already")
    member = signed_in(mail_server, ADA)
    SavedStory.objects.create(member=Member.objects.get(), article=story)
    response = member.post(f"/account/stories/{story.pk}/remove/")
    assert response.status_code == 302 and response["Location"] == "/account/#saved"
    assert "Read it already" not in member.get("/account/").content.decode()


def test_a_draft_is_neither_saved_nor_answered_about(mail_server):  # noqa: F811
    draft = ArticleFactory(draft=True, title="Not yet")
    member = signed_in(mail_server, ADA)
    assert member.get(f"/account/stories/{draft.pk}/").status_code == 404
    assert member.post(f"/account/stories/{draft.pk}/save/", **JSON).status_code == 404
    assert not SavedStory.objects.exists()


def test_a_saved_story_unpublished_since_leaves_the_list(mail_server):  # noqa: F811
    story = ArticleFactory(title="Withdrawn story")
    member = signed_in(mail_server, ADA)
    SavedStory.objects.create(member=Member.objects.get(), article=story)
    Article.objects.filter(pk=story.pk).update(status=Article.Status.DRAFT)
    assert "Withdrawn story" not in member.get("/account/").content.decode()


def test_a_reader_not_signed_in_is_told_to_sign_in_and_saves_nothing():
    story = ArticleFactory()
    reader = Client()
    assert reader.get(f"/account/stories/{story.pk}/").json()["signed_in"] is False
    assert reader.post(f"/account/stories/{story.pk}/save/", **JSON).status_code == 403


def test_the_personal_part_is_private_and_never_kept(mail_server):  # noqa: F811
    story = ArticleFactory()
    response = signed_in(mail_server, ADA).get(f"/account/stories/{story.pk}/")
    assert "private" in response["Cache-Control"] and "no-cache" in response["Cache-Control"]


def test_the_story_page_is_the_same_for_a_member_and_sets_no_cookie(mail_server):  # noqa: F811
    story = ArticleFactory(title="One page for all")
    member = signed_in(mail_server, ADA)
    page = member.get(story.get_absolute_url())
    html = page.content.decode()
    assert not page.cookies and ADA not in html
    assert f'data-story="/account/stories/{story.pk}/"' in html
    assert html == Client().get(story.get_absolute_url()).content.decode()


def portal_queries(client):
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/account/").status_code == 200
    return len(queries)


def test_the_portal_asks_as_many_queries_for_one_saved_story_as_for_twenty(mail_server):  # noqa: F811
    member = signed_in(mail_server, ADA)
    person = Member.objects.get()
    SavedStory.objects.create(member=person, article=ArticleFactory())
    one = portal_queries(member)
    for article in ArticleFactory.create_batch(19):
        SavedStory.objects.create(member=person, article=article)
    assert portal_queries(member) == one
