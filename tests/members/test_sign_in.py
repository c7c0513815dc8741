"""Signing in by e-mail link (issue 47): a link through a real SMTP server, a button
behind it for mail scanners, once and for 30 minutes, stored hashed; the same answer
whoever asks; limits per address and per client; a session of its own, apart from
the staff's; signing out everywhere; CSRF on every form."""

import hashlib
from datetime import timedelta

import pytest
import time_machine
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from members.models import Member, MemberSession, SignInLink
from members.tasks import forget_old_links_and_sessions
from newsletters.models import Subscriber, Suppressed, digest

from ..background_tasks import run_queued
from ..factories import UserFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .helpers import ask_for_link, received_link, signed_in, text_of

pytestmark = pytest.mark.django_db

ADA = "ada@example.org"


def is_signed_in(client):
    return b"Signed in as" in client.get("/account/").content


def test_asking_for_a_link_mails_one_and_the_page_says_to_check_the_inbox(mail_server):  # noqa: F811
    response = ask_for_link(ADA)
    assert response.status_code == 302 and response["Location"] == "/account/sent/"
    page = Client().get("/account/sent/")
    assert b"Check your inbox" in page.content
    run_queued()
    (message,) = mail_server.to(ADA)
    assert message["Subject"] == "Your link to sign in to Skillo"
    assert "/account/link/" in text_of(message)


def test_following_the_link_shows_a_button_and_only_its_post_signs_in(mail_server):  # noqa: F811
    reader = Client()
    ask_for_link(ADA, reader)
    path = received_link(mail_server, ADA)
    page = reader.get(path)
    assert page.status_code == 200 and b"Sign me in" in page.content
    assert not is_signed_in(reader)
    response = reader.post(path)
    assert response.status_code == 302 and response["Location"] == "/account/"
    assert is_signed_in(reader)
    assert Member.objects.get().email == ADA


def test_a_link_works_once(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    assert Client().post(path).status_code == 302
    someone_else = Client()
    assert someone_else.post(path).status_code == 410
    assert someone_else.get(path).status_code == 410
    assert not is_signed_in(someone_else)


def test_a_link_stops_working_after_30_minutes(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    with time_machine.travel(timedelta(minutes=31)):
        reader = Client()
        assert reader.get(path).status_code == 410
        response = reader.post(path)
        assert response.status_code == 410 and b"works once, for 30 minutes" in response.content
        assert not is_signed_in(reader)
    assert not Member.objects.exists()


def test_a_link_still_works_at_29_minutes(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    with time_machine.travel(timedelta(minutes=29)):
        assert Client().post(path).status_code == 302


def test_the_database_keeps_only_the_links_hash(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    token = path.rstrip("/").rsplit("/", 1)[1]
    (link,) = SignInLink.objects.all()
    assert link.token != token and token not in link.token
    assert link.token == hashlib.sha256(token.encode()).hexdigest()


@pytest.mark.parametrize(
    "email", ["user@sub.localhost", "user@localhost.localdomain", "u@foo.local"]
)
def test_an_address_on_a_machines_own_network_is_refused_and_sent_nothing(mail_server, email):  # noqa: F811
    response = ask_for_link(email)
    assert response.status_code == 400
    assert "is a name for a machine's own network" in response.content.decode().replace(
        "&#x27;", "'"
    )
    run_queued()
    assert not SignInLink.objects.exists() and not mail_server.messages()


def test_a_mangled_link_is_a_404():
    assert Client().get("/account/link/not-a-token/").status_code == 404


def answer(email):
    """What a reader sees when asking for ``email``'s link, and how many queries that
    took."""
    client = Client()
    client.get("/account/")
    with CaptureQueriesContext(connection) as queries:
        response = client.post("/account/", {"email": email}, follow=True)
    return response.status_code, response.redirect_chain, response.content, len(queries)


def test_a_member_and_a_stranger_get_the_same_answer_from_the_same_work(mail_server):  # noqa: F811
    signed_in(mail_server, ADA)
    Subscriber.objects.create(email="grace@example.org", state=Subscriber.State.ACTIVE)
    Suppressed.objects.create(address=digest("bounced@example.org"), reason="bounced")
    member = answer(ADA)
    assert answer("grace@example.org") == member
    assert answer("stranger@example.org") == member
    assert answer("bounced@example.org") == member


def test_a_bounced_address_is_sent_nothing(mail_server):  # noqa: F811
    Suppressed.objects.create(address=digest(ADA), reason=Suppressed.Reason.BOUNCED)
    ask_for_link(ADA)
    run_queued()
    assert mail_server.to(ADA) == []


def test_a_newsletter_subscriber_is_a_member_with_the_same_address(mail_server):  # noqa: F811
    Subscriber.objects.create(email="Ada@Example.org", state=Subscriber.State.ACTIVE)
    reader = signed_in(mail_server, ADA)
    page = reader.get("/account/").content.decode()
    assert "Save</button>" in page and "Leave the newsletter" in page
    assert Subscriber.objects.count() == 1 and Member.objects.count() == 1


def test_an_address_gets_at_most_its_hourly_links(mail_server, settings):  # noqa: F811
    settings.MEMBER_LINKS_PER_ADDRESS = 2
    answers = [ask_for_link(ADA, Client(REMOTE_ADDR=f"192.0.2.{n}")) for n in range(3)]
    assert [a["Location"] for a in answers] == ["/account/sent/"] * 3
    run_queued()
    assert len(mail_server.to(ADA)) == 2


def test_a_client_over_its_hourly_requests_is_told_to_wait(mail_server, settings):  # noqa: F811
    settings.MEMBER_LINKS_PER_CLIENT = 2
    office = Client(REMOTE_ADDR="192.0.2.7")
    statuses = [ask_for_link(f"r{n}@example.org", office).status_code for n in range(3)]
    assert statuses == [302, 302, 429]
    assert ask_for_link("r9@example.org", Client(REMOTE_ADDR="192.0.2.8")).status_code == 302
    run_queued()
    assert len(mail_server.messages()) == 3


def test_the_cookie_is_the_members_own_and_goes_to_account_pages_only(mail_server):  # noqa: F811
    reader = Client()
    ask_for_link(ADA, reader)
    response = reader.post(received_link(mail_server, ADA))
    cookie = response.cookies["member"]
    assert cookie["path"] == "/account/" and cookie["httponly"] and cookie["samesite"] == "Lax"
    assert "sessionid" not in response.cookies


def test_a_staff_login_is_not_a_membership():
    editor = Client()
    editor.force_login(UserFactory(is_staff=True))
    assert b"Sign in to Skillo" in editor.get("/account/").content


def test_a_membership_opens_nothing_in_the_admin(mail_server):  # noqa: F811
    reader = signed_in(mail_server, ADA)
    response = reader.get("/admin/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_signing_out_ends_this_browsers_session_only(mail_server):  # noqa: F811
    laptop, phone = signed_in(mail_server, ADA), signed_in(mail_server, ADA)
    assert laptop.post("/account/sign-out/").status_code == 200
    assert not is_signed_in(laptop) and is_signed_in(phone)


def test_signing_out_everywhere_ends_every_session(mail_server):  # noqa: F811
    laptop, phone = signed_in(mail_server, ADA), signed_in(mail_server, ADA)
    response = laptop.post("/account/sign-out/everywhere/")
    assert b"Every browser" in response.content
    assert not is_signed_in(laptop) and not is_signed_in(phone)
    assert not MemberSession.objects.exists()


FORMS = [
    "/account/",
    "/account/sign-out/",
    "/account/sign-out/everywhere/",
    "/account/newsletter/",
    "/account/newsletter/subscribe/",
    "/account/newsletter/leave/",
    "/account/erase/",
    "/account/name/",
    "/account/stories/1/save/",
    "/account/stories/1/remove/",
    "/account/stories/1/comments/",
    "/account/stories/1/write/",
    "/account/comments/1/edit/",
    "/account/comments/1/delete/",
    "/comments/1/report/",
]


@pytest.mark.parametrize("path", FORMS)
def test_every_members_form_refuses_a_post_without_its_csrf_token(mail_server, path):  # noqa: F811
    Subscriber.objects.create(email=ADA, state=Subscriber.State.ACTIVE)
    member = signed_in(mail_server, ADA)
    forger = Client(enforce_csrf_checks=True)
    forger.cookies = member.cookies
    response = forger.post(path, {"email": ADA, "confirm": "on", "what": "everything"})
    assert response.status_code == 403
    assert Member.objects.filter(email=ADA).exists() and is_signed_in(member)
    assert Subscriber.objects.get().state == Subscriber.State.ACTIVE


def test_a_links_button_refuses_a_post_without_its_csrf_token(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    assert Client(enforce_csrf_checks=True).post(path).status_code == 403
    assert Client().post(path).status_code == 302


def test_an_expired_sign_in_form_comes_back_with_the_address_typed_and_says_nothing_was_sent(
    mail_server,  # noqa: F811
):
    response = Client(enforce_csrf_checks=True).post("/account/", {"email": ADA})
    page = response.content.decode()
    assert response.status_code == 403
    assert "nothing was done" in page and f'value="{ADA}"' in page
    assert not SignInLink.objects.exists()


def test_an_expired_form_of_a_members_page_shows_their_page_again_unchanged(mail_server):  # noqa: F811
    member = signed_in(mail_server, ADA)
    forger = Client(enforce_csrf_checks=True)
    forger.cookies = member.cookies
    response = forger.post("/account/name/", {"name": "Changed"})
    page = response.content.decode()
    assert response.status_code == 403
    assert "Your account" in page and "nothing was done" in page
    assert Member.objects.get().name != "Changed"


def test_an_expired_links_button_is_shown_again_to_press(mail_server):  # noqa: F811
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    response = Client(enforce_csrf_checks=True).post(path)
    page = response.content.decode()
    assert response.status_code == 403
    assert "Sign me in" in page and "nothing was done" in page
    assert Client().post(path).status_code == 302  # the link still works


def test_links_are_forgotten_after_a_day_and_sessions_when_they_end(mail_server):  # noqa: F811
    signed_in(mail_server, ADA)
    ask_for_link(ADA)
    run_queued()
    with time_machine.travel(timedelta(hours=25)):
        forget_old_links_and_sessions.call()
        assert not SignInLink.objects.exists() and MemberSession.objects.exists()
    with time_machine.travel(timedelta(days=91)):
        forget_old_links_and_sessions.call()
        assert not MemberSession.objects.exists() and Member.objects.exists()


@pytest.mark.parametrize(
    "came_from, back_to",
    [
        ("/articles/a-story/", "/articles/a-story/#signed-in"),
        ("https://elsewhere.example/", "/account/"),
        ("//elsewhere.example/", "/account/"),
    ],
)
def test_the_link_brings_the_reader_back_to_the_story_they_came_from_and_nowhere_else(
    came_from, back_to
):
    from members.models import token_hash

    reader = Client()
    form = reader.get("/account/", {"next": came_from}).content.decode()
    assert (f'name="next" value="{came_from}"' in form) == came_from.startswith("/a")
    reader.post("/account/", {"email": "reader@example.org", "next": came_from})
    SignInLink.objects.create(email="reader@example.org", token=token_hash("the-link"))
    answer = reader.post("/account/link/the-link/")
    assert answer.status_code == 302 and answer["Location"] == back_to
