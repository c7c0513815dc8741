"""Inviting people: an admin invites a writer or an editor by e-mail (sent through a real
SMTP server); the link lets them choose a user name and password, once, for a week, and
they arrive in the admin with that role."""

import re
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from editorial import invitations
from editorial.models import Invitation
from editorial.tokens import new_token
from people.models import Author

from .background_tasks import run_queued
from .factories import AuthorFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

pytestmark = pytest.mark.django_db
STRONG = "correct-horse-battery-42"


@pytest.fixture
def admin(django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


def invite(admin, mail_server, role="Editors"):  # noqa: F811
    response = admin.post(
        "/admin/editorial/invitation/add/",
        {"email": "grace@example.org", "name": "Grace", "role": role},
        follow=True,
    )
    named = {"Editors": "editor", "Writers": "writer"}[role]
    assert f"Invitation sent to grace@example.org as {named}" in response.content.decode()
    run_queued()
    (message,) = mail_server.to("grace@example.org")
    body = message.get_payload(decode=True).decode()
    # On the site's public address, whatever host the admin was reached through.
    site = re.escape(settings.SKILLO_SITE_URL)
    return re.search(site + r"(/join/[^/\s]+/)", body).group(1), body


def test_an_invited_editor_chooses_a_password_and_arrives_with_the_role(admin, mail_server):  # noqa: F811
    path, body = invite(admin, mail_server)
    assert "Hello Grace," in body and "as editor" in body
    guest = Client()
    page = guest.get(path).content.decode()
    assert 'value="grace"' in page  # a user name suggested from the address
    response = guest.post(
        path, {"username": "grace", "first_name": "Grace H", "password1": STRONG,
               "password2": STRONG}, follow=True,
    )  # fmt: skip
    assert "Welcome to the newsroom, Grace H: you are in as editor." in response.content.decode()
    user = get_user_model().objects.get(username="grace")
    assert user.is_staff and user.email == "grace@example.org"
    assert user.has_perm("news.publish_article")
    assert guest.get(path).status_code == 410  # once


def test_a_writer_who_joins_signs_their_articles_with_the_name_they_typed(admin, mail_server):  # noqa: F811
    path, _ = invite(admin, mail_server, role="Writers")
    guest = Client()
    guest.post(
        path, {"username": "grace", "first_name": "Grace Hopper", "password1": STRONG,
               "password2": STRONG},
    )  # fmt: skip
    user = get_user_model().objects.get(username="grace")
    author = Author.objects.get(user=user)
    assert (author.name, author.slug) == ("Grace Hopper", "grace-hopper")
    # Their first article starts with that byline, not "Skillo editorial".
    form = guest.get(reverse("admin:news_article_add")).content.decode()
    byline = re.search(r'name="authorships-0-author".*?</select>', form, re.S)[0]
    assert f'<option value="{author.pk}" selected>Grace Hopper</option>' in byline
    # And the profile is theirs to change.
    profile = guest.get(reverse("admin:people_author_change", args=[author.pk])).content.decode()
    assert 'name="name"' in profile and 'name="bio"' in profile


def test_a_second_grace_hopper_gets_an_address_of_her_own(admin, mail_server):  # noqa: F811
    AuthorFactory(name="Grace Hopper", slug="grace-hopper")
    path, _ = invite(admin, mail_server, role="Writers")
    Client().post(
        path, {"username": "grace", "first_name": "Grace Hopper", "password1": STRONG,
               "password2": STRONG},
    )  # fmt: skip
    assert Author.objects.get(user__username="grace").slug == "grace-hopper-2"


def test_the_join_page_asks_for_the_name_articles_are_signed_with(admin, mail_server):  # noqa: F811
    path, _ = invite(admin, mail_server, role="Writers")
    response = Client().post(
        path, {"username": "grace", "first_name": " ", "password1": STRONG, "password2": STRONG}
    )
    assert response.status_code == 200
    assert "This field is required" in response.content.decode()
    assert not get_user_model().objects.filter(username="grace").exists()
    assert not Author.objects.exists()


def test_a_weak_password_is_refused_and_nothing_is_made(admin, mail_server):  # noqa: F811
    path, _ = invite(admin, mail_server, role="Writers")
    response = Client().post(path, {"username": "grace", "password1": "123", "password2": "123"})
    assert response.status_code == 200
    assert "This password is too short" in response.content.decode()
    assert not get_user_model().objects.filter(username="grace").exists()
    assert Invitation.objects.get().accepted_at is None


def test_an_invitation_expires_after_a_week(admin, mail_server, time_machine):  # noqa: F811
    path, _ = invite(admin, mail_server)
    time_machine.move_to(timezone.now() + timedelta(days=7, minutes=1))
    gone = Client().get(path)
    assert gone.status_code == 410
    assert "This invitation has expired" in gone.content.decode()


def test_only_those_who_may_add_users_invite(django_user_model):
    from django.contrib.auth.models import Group

    editor = django_user_model.objects.create_user("ed", password="pw", is_staff=True)
    editor.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(editor)
    assert client.get("/admin/editorial/invitation/add/").status_code == 403


def waiting_invitation(email="grace@example.org"):
    """An invitation as invite() leaves it; its link's path."""
    token, token_hash = new_token()
    Invitation.objects.create(
        email=email,
        role=Invitation.Role.EDITOR,
        token_hash=token_hash,
        expires_at=timezone.now() + timedelta(days=1),
    )
    return f"/join/{token}/"


def test_an_invitation_is_claimed_once():
    waiting_invitation()
    invitation = Invitation.objects.get()
    assert invitations.claim(invitation)
    assert not invitations.claim(invitation)  # the second request, even with the row it read


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_an_invitation_sent_at_the_same_moment_makes_one_account(live_server):
    # Found in production: four POSTs at once to one /join/ link made four staff accounts.
    path = waiting_invitation()
    browsers = [Browser(live_server) for _ in range(RACERS)]
    for browser in browsers:
        assert browser.get(path).status_code == 200
    # A user name each, as in production (with one name for all, the unique user name
    # alone would have let one through).
    forms = [{"username": f"grace{n}", "first_name": "Grace", "password1": STRONG,
              "password2": STRONG} for n in range(RACERS)]  # fmt: skip
    responses = together([b.sender(path, form) for b, form in zip(browsers, forms, strict=True)])
    assert outcomes(responses) == {302: 1, 410: RACERS - 1}
    for response in responses:
        if response.status_code == 410:
            assert "This invitation has been used" in response.text
    (user,) = get_user_model().objects.all()
    assert user.is_staff and user.groups.get().name == "Editors"
    assert Invitation.objects.get().user == user


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_people_of_one_name_joining_at_the_same_moment_get_a_profile_each(live_server):
    paths = [waiting_invitation(f"grace{n}@example.org") for n in range(RACERS)]
    browsers = [Browser(live_server) for _ in range(RACERS)]
    for browser, path in zip(browsers, paths, strict=True):
        assert browser.get(path).status_code == 200
    forms = [{"username": f"grace{n}", "first_name": "Grace Hopper", "password1": STRONG,
              "password2": STRONG} for n in range(RACERS)]  # fmt: skip
    responses = together(
        [b.sender(path, form) for b, path, form in zip(browsers, paths, forms, strict=True)]
    )
    assert outcomes(responses) == {302: RACERS}
    slugs = set(Author.objects.filter(name="Grace Hopper").values_list("slug", flat=True))
    assert slugs == {"grace-hopper", *(f"grace-hopper-{n}" for n in range(2, RACERS + 1))}


ADD = "/admin/editorial/invitation/add/"


def invitation_mails():
    return DBTaskResult.objects.filter(task_path="editorial.tasks.send_workflow_mail").count()


def test_the_invitation_form_sent_twice_sends_one_invitation(admin):
    form = {"email": "grace@example.org", "name": "Grace", "role": "Editors"}
    assert admin.post(ADD, form).status_code == 302
    again = admin.post(ADD, {**form, "email": "Grace@Example.org"})  # a double click
    assert again.status_code == 200
    assert "An invitation to grace@example.org was sent on" in again.content.decode()
    assert (Invitation.objects.count(), invitation_mails()) == (1, 1)


def test_an_expired_invitation_is_replaced_by_a_new_one(admin, time_machine):
    form = {"email": "grace@example.org", "name": "Grace", "role": "Editors"}
    admin.post(ADD, form)
    first = Invitation.objects.get()
    time_machine.move_to(timezone.now() + timedelta(days=7, minutes=1))
    assert admin.post(ADD, form).status_code == 302
    assert Invitation.objects.get().pk != first.pk
    assert invitation_mails() == 2


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_an_invitation_sent_at_the_same_moment_is_sent_once(live_server, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    browsers = [Browser(live_server, boss) for _ in range(RACERS)]
    for browser in browsers:
        assert browser.get(ADD).status_code == 200
    form = {"email": "grace@example.org", "name": "Grace", "role": "Editors"}
    responses = together([browser.sender(ADD, form) for browser in browsers])
    assert outcomes(responses) == {302: 1, 200: RACERS - 1}
    for response in responses:
        if response.status_code == 200:
            assert "An invitation to grace@example.org was sent on" in response.text
    assert (Invitation.objects.count(), invitation_mails()) == (1, 1)


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_the_newest_waiting_invitation_to_an_address():
    from django.core.management import call_command

    call_command("migrate", "editorial", "0008", verbosity=0)  # before the constraint
    made = {}
    for name, email, accepted in [
        ("old", "grace@example.org", None), ("newest", "Grace@example.org", None),
        ("used", "grace@example.org", timezone.now()), ("other", "ada@example.org", None),
    ]:  # fmt: skip
        _, token_hash = new_token()
        made[name] = Invitation.objects.create(
            email=email, token_hash=token_hash, accepted_at=accepted,
            expires_at=timezone.now() + timedelta(days=1),
        )  # fmt: skip
    call_command("migrate", verbosity=0)
    kept = set(Invitation.objects.values_list("pk", flat=True))
    assert kept == {made[name].pk for name in ("newest", "used", "other")}
