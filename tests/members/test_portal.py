"""The members' portal (issue 47): the newsletter's own choices on the same Subscriber
row (a change reaches the sending), pause, leave, subscribe, the download of what Skillo
holds, erasing a membership down to the suppression list's hash, and the welcome mail's
way to the portal."""

import json
import re

import pytest
from django.test import Client

from members import comments
from members.models import Comment, Member, MemberSession, SavedStory, SignInLink
from newsletters import links
from newsletters.models import Subscriber, Suppressed, digest
from pagecache import store

from ..background_tasks import run_queued
from ..factories import ArticleFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .helpers import signed_in, text_of

pytestmark = pytest.mark.django_db

ADA = "ada@example.org"


def subscriber(**fields):
    return Subscriber.objects.create(email=ADA, state=Subscriber.State.ACTIVE, **fields)


def story_recipients(mail_server, title, tags):  # noqa: F811
    ArticleFactory(title=title, tags=tags)
    run_queued()
    return [m["To"] for m in mail_server.messages() if m["Subject"] == title]


def test_choosing_topics_in_the_portal_changes_what_the_newsletter_sends(mail_server):  # noqa: F811
    rust = ArticleFactory(draft=True, tags=["rust"]).tags.get()
    ArticleFactory(draft=True, tags=["go"])
    subscriber()
    member = signed_in(mail_server, ADA)
    response = member.post(
        "/account/newsletter/",
        {"what": "chosen", "topics": [rust.slug], "frequency": "each", "corrections": "on"},
    )
    assert response.status_code == 302 and response["Location"] == "/account/?saved=newsletter"
    assert b"your newsletter choices are changed" in member.get(response["Location"]).content
    assert story_recipients(mail_server, "Go 1.30 ships", ["go"]) == []
    assert story_recipients(mail_server, "Rust 1.99 ships", ["rust"]) == [ADA]


def test_pausing_in_the_portal_stops_the_sending(mail_server):  # noqa: F811
    subscriber()
    member = signed_in(mail_server, ADA)
    form = {"what": "everything", "frequency": "each", "paused": "on"}
    assert member.post("/account/newsletter/", form).status_code == 302
    assert story_recipients(mail_server, "Paused story", []) == []
    assert b"Paused: nothing is sent" in member.get("/account/").content


def test_the_portal_and_the_preferences_link_show_one_set_of_choices(mail_server):  # noqa: F811
    person = subscriber()
    member = signed_in(mail_server, ADA)
    member.post("/account/newsletter/", {"what": "everything", "frequency": "weekly"})
    page = Client().get(links.preferences_url(person).split("testserver", 1)[1])
    assert re.search(rb'value="weekly"[^>]*checked', page.content)


def test_a_choice_the_newsletter_refuses_is_refused_in_the_portal_with_its_words(mail_server):  # noqa: F811
    subscriber()
    member = signed_in(mail_server, ADA)
    response = member.post("/account/newsletter/", {"what": "chosen", "frequency": "each"})
    assert response.status_code == 400
    assert "Choose at least one topic or author" in response.content.decode()
    assert Subscriber.objects.get().everything is True


def test_leaving_in_the_portal_ends_the_sending(mail_server):  # noqa: F811
    subscriber()
    member = signed_in(mail_server, ADA)
    assert member.post("/account/newsletter/leave/")["Location"] == "/account/?saved=left"
    assert Subscriber.objects.get().state == Subscriber.State.UNSUBSCRIBED
    assert story_recipients(mail_server, "After leaving", []) == []


def test_a_member_without_the_newsletter_subscribes_from_the_portal(mail_server):  # noqa: F811
    member = signed_in(mail_server, ADA)
    assert b"You do not get the newsletter" in member.get("/account/").content
    member.post("/account/newsletter/subscribe/")
    assert Subscriber.objects.get().state == Subscriber.State.ACTIVE
    assert story_recipients(mail_server, "First story", []) == [ADA]


def test_an_address_that_bounced_is_not_subscribed_from_the_portal(mail_server):  # noqa: F811
    member = signed_in(mail_server, ADA)
    Suppressed.objects.create(address=digest(ADA), reason=Suppressed.Reason.BOUNCED)
    response = member.post("/account/newsletter/subscribe/")
    assert response["Location"] == "/account/?saved=not-subscribed"
    assert not Subscriber.objects.exists()


def test_the_download_holds_what_skillo_keeps_about_the_member(mail_server):  # noqa: F811
    subscriber(frequency=Subscriber.Frequency.DAILY)
    member = signed_in(mail_server, ADA)
    story = ArticleFactory(title="Kept for later")
    SavedStory.objects.create(member=Member.objects.get(), article=story)
    response = member.get("/account/download/")
    assert response["Content-Type"].startswith("application/json")
    assert response["Content-Disposition"].startswith("attachment;")
    data = json.loads(response.content)
    assert data["member"]["email"] == ADA
    assert data["newsletter"]["frequency"] == "daily"
    assert [s["title"] for s in data["saved_stories"]] == ["Kept for later"]
    assert len(data["sessions"]) == 1
    assert data["comments"] == []


def test_erasing_leaves_only_the_suppression_lists_hash(mail_server):  # noqa: F811
    subscriber()
    member = signed_in(mail_server, ADA)
    SavedStory.objects.create(member=Member.objects.get(), article=ArticleFactory())
    Comment.objects.create(
        article=ArticleFactory(), member=Member.objects.get(), body="Mine", body_html="<p>Mine</p>"
    )
    assert member.post("/account/erase/").status_code == 400  # not confirmed
    assert Member.objects.exists()
    response = member.post("/account/erase/", {"confirm": "on"})
    assert b"Your membership is erased" in response.content
    for model in (Comment, Member, MemberSession, SavedStory, SignInLink, Subscriber):
        assert not model.objects.exists(), model
    (kept,) = Suppressed.objects.all()
    assert kept.address == digest(ADA) and kept.reason == Suppressed.Reason.ERASED
    assert b"Sign in to Skillo" in member.get("/account/").content


@pytest.mark.page_cache
@pytest.mark.django_db(transaction=True)
def test_erasing_takes_the_members_comments_off_the_cached_conversation(mail_server, monkeypatch):  # noqa: F811
    monkeypatch.setattr(store, "RACE_MARGIN", 0)  # Pages built now are kept.
    member = signed_in(mail_server, ADA)
    story = ArticleFactory()
    Comment.objects.create(
        article=story, member=Member.objects.get(), body="Mine", body_html="<p>Mine</p>",
        state=Comment.State.APPROVED,
    )  # fmt: skip
    comments.purge_conversation(story.pk)
    for _ in range(2):  # Built, then served from the page cache.
        assert "<p>Mine</p>" in Client().get(f"/comments/{story.pk}/").content.decode()
    member.post("/account/erase/", {"confirm": "on"})
    assert "<p>Mine</p>" not in Client().get(f"/comments/{story.pk}/").content.decode()


def test_erasing_keeps_a_bounce_on_the_suppression_list(mail_server):  # noqa: F811
    subscriber()
    member = signed_in(mail_server, ADA)
    Suppressed.objects.create(address=digest(ADA), reason=Suppressed.Reason.BOUNCED)
    Subscriber.objects.update(state=Subscriber.State.BOUNCED)
    member.post("/account/erase/", {"confirm": "on"})
    assert Suppressed.objects.get().reason == Suppressed.Reason.BOUNCED
    assert not Subscriber.objects.exists()


def test_the_welcome_mail_links_to_the_portal(mail_server):  # noqa: F811
    Client().post(
        "/newsletter/",
        {"email": ADA, "what": "everything", "frequency": "each", "corrections": "on"},
    )
    run_queued()
    person = Subscriber.objects.get()
    Client().post(links.confirm_url(person).split("testserver", 1)[1])
    run_queued()
    welcome = [m for m in mail_server.to(ADA) if m["Subject"] == "Welcome to Skillo's newsletter"]
    assert "http://testserver/account/" in text_of(welcome[0])
    html = next(p for p in welcome[0].walk() if p.get_content_type() == "text/html")
    assert 'href="http://testserver/account/"' in html.get_payload(decode=True).decode()
