"""The suppression list (issue 29): a bounce or a complaint reported by the mail
provider (Postmark's webhook, parsed by django-anymail) stops all mail to the address
before the next send; soft bounces count after three in a row; an address the mail
server says does not exist is suppressed; erasure leaves only a hash."""

import base64
import json

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from newsletters import sending
from newsletters.models import Delivery, Subscriber, Suppressed, digest

from .background_tasks import run_queued
from .factories import ArticleFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)
from .test_newsletter_sending import recipients, subscriber
from .test_newsletter_signup import sign_up

pytestmark = pytest.mark.django_db

WEBHOOK = "/anymail/postmark/tracking/"


def postmark(record, **fields):
    """A Postmark tracking webhook as Postmark posts it, with the configured secret."""
    auth = base64.b64encode(b"anymail:test-secret").decode()
    return Client().post(
        WEBHOOK,
        json.dumps({"RecordType": record, "MessageID": "883953f4-6105-42a2-a16a", **fields}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Basic {auth}",
    )


def test_a_hard_bounce_stops_all_mail_to_the_address(mail_server):  # noqa: F811
    subscriber("gone@example.org")
    subscriber("here@example.org")
    response = postmark("Bounce", Type="HardBounce", Email="gone@example.org", TypeCode=1)
    assert response.status_code == 200
    assert Subscriber.objects.get(email="gone@example.org").state == Subscriber.State.BOUNCED
    ArticleFactory()
    run_queued()
    assert recipients(mail_server) == ["here@example.org"]


def test_a_complaint_unsubscribes_and_suppresses(mail_server):  # noqa: F811
    subscriber("annoyed@example.org")
    complaint = postmark("SpamComplaint", Type="SpamComplaint", Email="annoyed@example.org")
    assert complaint.status_code == 200
    assert Subscriber.objects.get().state == Subscriber.State.COMPLAINED
    assert Suppressed.objects.get().reason == Suppressed.Reason.COMPLAINED
    sign_up(email="annoyed@example.org")  # the form sends it nothing either
    run_queued()
    assert mail_server.messages() == []


def test_soft_bounces_suppress_after_three_in_a_row_and_a_delivery_forgives():
    subscriber("full@example.org")
    for _ in range(2):
        postmark("Bounce", Type="Transient", Email="full@example.org", TypeCode=2)
    postmark("Delivery", Recipient="full@example.org", DeliveredAt="2026-12-01T10:00:00Z")
    for _ in range(2):
        postmark("Bounce", Type="Transient", Email="full@example.org", TypeCode=2)
    assert Subscriber.objects.get().state == Subscriber.State.ACTIVE
    postmark("Bounce", Type="Transient", Email="full@example.org", TypeCode=2)
    assert Subscriber.objects.get().state == Subscriber.State.BOUNCED


def test_a_webhook_without_the_secret_changes_nothing():
    subscriber("gone@example.org")
    response = Client().post(
        WEBHOOK,
        json.dumps({"RecordType": "Bounce", "Type": "HardBounce", "Email": "gone@example.org"}),
        content_type="application/json",
    )
    assert response.status_code in (400, 401, 403)
    assert Subscriber.objects.get().state == Subscriber.State.ACTIVE


def test_an_address_the_server_says_does_not_exist_is_suppressed(mail_server, monkeypatch):  # noqa: F811
    subscriber("nobody@example.org")
    real = sending.SMTPTransport.send

    def refuse(self, sender, recipient, data, mark_sent):
        if recipient == "nobody@example.org":
            raise sending.Refused(550, "5.1.1 <nobody@example.org>: user unknown")
        return real(self, sender, recipient, data, mark_sent)

    monkeypatch.setattr(sending.SMTPTransport, "send", refuse)
    ArticleFactory()
    run_queued()
    assert Subscriber.objects.get().state == Subscriber.State.BOUNCED
    assert Delivery.objects.get().state == Delivery.State.FAILED


@pytest.fixture
def admin_of_subscribers(django_user_model):
    user = django_user_model.objects.create_user("ada", "ada@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Admins"))
    client = Client()
    client.force_login(user)
    return client


def test_erasure_leaves_only_a_hash_and_a_new_sign_up_is_new_consent(
    admin_of_subscribers,
    mail_server,  # noqa: F811
):
    person = subscriber("erase.me@example.org")
    ArticleFactory()
    run_queued()
    response = admin_of_subscribers.post(
        "/admin/newsletters/subscriber/",
        {"action": "erase", "_selected_action": [person.pk]},
    )
    assert response.status_code == 302
    assert not Subscriber.objects.exists() and not Delivery.objects.exists()
    (kept,) = Suppressed.objects.all()
    assert kept.address == digest("erase.me@example.org") and "erase.me" not in kept.address
    sign_up(email="erase.me@example.org")
    run_queued()
    subjects = [m["Subject"] for m in mail_server.to("erase.me@example.org")]
    assert "Confirm your Skillo newsletter" in subjects


def test_editors_see_subscribers_but_cannot_erase_them(django_user_model):
    subscriber("reader@example.org")
    user = django_user_model.objects.create_user("eddie", "e@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    page = client.get("/admin/newsletters/subscriber/")
    assert page.status_code == 200 and b"reader@example.org" in page.content
    assert b'value="erase"' not in page.content
