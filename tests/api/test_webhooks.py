"""Webhooks: queued after the commit without contacting anyone, delivered to a local
receiver by the worker in the Standard Webhooks format (verified with the
standardwebhooks library, as a receiver would), retried after failures for a day,
refused for hosts and addresses that are not allowed, and sent again from the admin."""

import base64
import hashlib
import hmac
import http.server
import json
import threading
from datetime import timedelta

import pytest
import standardwebhooks
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from api import delivery as delivery_module
from api.delivery import send_due
from api.models import SECRET_OVERLAP, Delivery, Event, Webhook
from background.worker import Worker
from news.models import Article
from outbound.models import Host
from tests.background_tasks import run_queued
from tests.factories import ArticleFactory, WebhookFactory, WebhookHostFactory

pytestmark = pytest.mark.django_db


class Receiver(http.server.ThreadingHTTPServer):
    """A partner's endpoint on 127.0.0.1: answers each POST with the next of
    ``statuses`` (then 200) and keeps what it got."""

    def __init__(self):
        self.got, self.statuses = [], []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(handler):
                body = handler.rfile.read(int(handler.headers["Content-Length"]))
                self.got.append((dict(handler.headers), body))
                handler.send_response(self.statuses.pop(0) if self.statuses else 200)
                handler.end_headers()

            def log_message(handler, *args):
                pass

        super().__init__(("127.0.0.1", 0), Handler)

    @property
    def url(self):
        return f"http://127.0.0.1:{self.server_address[1]}/hooks/skillo/"


@pytest.fixture
def receiver(settings):
    # The receiver listens on loopback, which webhooks refuse unless this is on.
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = True
    server = Receiver()
    # A short poll: shutdown() waits for the loop to look, half a second by default.
    thread = threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def hook(receiver):
    WebhookHostFactory(host="127.0.0.1")
    return WebhookFactory(url=receiver.url)


def test_a_publication_is_queued_without_contacting_the_receiver(hook, receiver):
    article = ArticleFactory(title="Fresh")
    delivery = Delivery.objects.get()
    assert (delivery.event, delivery.article_id) == (Event.PUBLISHED, article.pk)
    assert receiver.got == []


def verified(secret, headers, body):
    """What the receiver's Standard Webhooks library makes of a delivery: its payload,
    or WebhookVerificationError."""
    return standardwebhooks.Webhook(secret).verify(body, headers)


def test_the_worker_delivers_it_signed(hook, receiver):
    ArticleFactory(title="Fresh")
    assert send_due() == 1
    [(headers, body)] = receiver.got
    assert verified(hook.secret, headers, body)["type"] == "article.published"
    assert Delivery.objects.get().state == Delivery.State.DELIVERED


def test_the_payload_is_type_timestamp_and_data(hook, receiver):
    article = ArticleFactory(title="Fresh")
    send_due()
    payload = json.loads(receiver.got[0][1])
    assert payload == {
        "type": "article.published",
        "timestamp": Delivery.objects.get().created_at.isoformat(),
        "data": {
            "article": {
                "id": article.pk,
                "slug": article.slug,
                "title": "Fresh",
                "url": f"http://testserver/articles/{article.slug}/",
                "api_url": f"http://testserver/api/v1/articles/{article.slug}/",
                "published_at": article.published_at.isoformat(),
            }
        },
    }


@pytest.mark.parametrize(
    ("secret", "tamper"),
    [
        (lambda hook: "whsec_" + base64.b64encode(b"another secret, 24 bytes+").decode(), bytes),
        (lambda hook: hook.secret, lambda body: body + b" "),
    ],
    ids=["another-secret", "altered-body"],
)
def test_a_delivery_does_not_verify_with_another_secret_or_body(hook, receiver, secret, tamper):
    ArticleFactory()
    send_due()
    [(headers, body)] = receiver.got
    with pytest.raises(standardwebhooks.WebhookVerificationError, match="No matching signature"):
        verified(secret(hook), headers, tamper(body))


def test_an_old_delivery_does_not_verify(hook, receiver, time_machine):
    ArticleFactory()
    send_due()
    [(headers, body)] = receiver.got
    time_machine.move_to(timezone.now() + timedelta(minutes=6))
    with pytest.raises(standardwebhooks.WebhookVerificationError, match="too old"):
        verified(hook.secret, headers, body)


def test_a_retry_carries_the_same_webhook_id_and_a_new_timestamp(hook, receiver, time_machine):
    receiver.statuses = [500]
    ArticleFactory()
    send_due()
    time_machine.move_to(timezone.now() + timedelta(seconds=61))
    send_due()
    first, second = (headers for headers, body in receiver.got)
    assert first["webhook-id"] == second["webhook-id"]
    assert first["webhook-id"].startswith("msg_")
    assert int(second["webhook-timestamp"]) - int(first["webhook-timestamp"]) >= 61
    assert verified(hook.secret, *receiver.got[1])


def test_each_delivery_has_its_own_webhook_id(hook, receiver):
    ArticleFactory()
    ArticleFactory()
    send_due()
    assert len({headers["webhook-id"] for headers, body in receiver.got}) == 2


def test_a_new_secret_is_whsec_and_32_random_bytes(db):
    secret = WebhookFactory().secret
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) == 32
    assert secret != WebhookFactory().secret


def test_after_a_rotation_both_secrets_verify(hook, receiver):
    old = hook.secret
    hook.rotate_secret(timezone.now())
    hook.save()
    ArticleFactory()
    send_due()
    [(headers, body)] = receiver.got
    assert len(headers["webhook-signature"].split(" ")) == 2
    assert verified(old, headers, body)
    assert verified(hook.secret, headers, body)


def test_the_old_secret_stops_signing_after_the_overlap(hook, receiver, time_machine):
    old = hook.secret
    hook.rotate_secret(timezone.now())
    hook.save()
    time_machine.move_to(timezone.now() + SECRET_OVERLAP + timedelta(seconds=1))
    ArticleFactory()
    send_due()
    [(headers, body)] = receiver.got
    assert verified(hook.secret, headers, body)
    with pytest.raises(standardwebhooks.WebhookVerificationError, match="No matching signature"):
        verified(old, headers, body)


def test_rotating_from_the_admin_keeps_the_old_secret_for_the_overlap(hook, admin_client):
    old = hook.secret
    admin_client.post(
        "/admin/api/webhook/", {"action": "rotate_secrets", "_selected_action": [hook.pk]}
    )
    hook.refresh_from_db()
    assert (hook.previous_secret, hook.secret != old) == (old, True)
    assert hook.previous_secret_until > timezone.now() + SECRET_OVERLAP - timedelta(minutes=1)


def test_the_webhooks_admin_page_shows_its_secret_to_copy(hook, admin_client):
    page = admin_client.get(f"/admin/api/webhook/{hook.pk}/change/").content.decode()
    assert hook.secret in page


def test_a_webhook_added_in_the_admin_gets_a_secret_it_shows(db, admin_client):
    WebhookHostFactory(host="127.0.0.1")
    response = admin_client.post(
        "/admin/api/webhook/add/",
        {"name": "Partner", "url": "http://127.0.0.1/hook", "events": ["article.published"],
         "active": "on"},
        follow=True,
    )  # fmt: skip
    secret = Webhook.objects.get().secret
    assert secret.startswith("whsec_")
    assert secret in response.content.decode()


def test_a_failed_delivery_is_retried_with_back_off_and_logged(hook, receiver):
    receiver.statuses = [500]
    ArticleFactory()
    send_due()
    delivery = Delivery.objects.get()
    assert (delivery.state, delivery.attempts, delivery.last_status) == ("pending", 1, "500")
    assert send_due() == 0, "not due again before its back-off"
    assert send_due(now=timezone.now() + timedelta(seconds=61)) == 1
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.DELIVERED
    assert [attempt.status_code for attempt in delivery.log.all()] == [500, 200]
    assert len(receiver.got) == 2


def test_back_off_doubles_and_gives_up_after_a_day(hook, receiver, time_machine):
    receiver.statuses = [503] * 30
    ArticleFactory()
    waits, last = [], timezone.now()
    while Delivery.objects.get().state == Delivery.State.PENDING:
        due = Delivery.objects.get().due_at
        waits.append(round((due - last).total_seconds() / 60))
        time_machine.move_to(due)
        last = due
        send_due()
    assert waits[1:5] == [1, 2, 4, 8]
    assert Delivery.objects.get().state == Delivery.State.FAILED
    assert Delivery.objects.get().log.last().at < Delivery.objects.get().created_at + timedelta(
        days=1
    )


def test_an_unreachable_receiver_is_logged_and_retried(hook, receiver):
    hook.url = "http://127.0.0.1:9/closed/"
    hook.save()
    ArticleFactory()
    send_due()
    delivery = Delivery.objects.get()
    assert delivery.state == Delivery.State.PENDING
    assert "ConnectionRefusedError" in delivery.log.get().error


def test_a_silent_receiver_costs_one_timeout_and_its_other_deliveries_wait(
    silent_host, monkeypatch
):
    address, taken = silent_host
    monkeypatch.setattr(delivery_module, "TIMEOUT", 0.5)  # 10 s in production
    WebhookHostFactory(host="127.0.0.3")
    WebhookFactory(url=f"{address}/hooks/skillo/")
    ArticleFactory(title="First")
    ArticleFactory(title="Second")
    assert send_due() == 1
    assert len(taken) == 1  # The second delivery made no connection.
    first, second = Delivery.objects.order_by("pk")
    assert (first.attempts, "timed out" in first.log.get().error) == (1, True)
    # Not the delivery's failure: due again once its host may be asked, nothing logged.
    assert (second.attempts, second.log.count()) == (0, 0)
    assert second.due_at == Host.objects.get(name="127.0.0.3").backed_off_until
    assert send_due() == 0  # Nothing is due before then.
    assert len(taken) == 1


def test_a_save_never_waits_for_a_slow_receiver(hook, receiver):
    # Nothing is sent while saving, so a receiver that hangs cannot slow it: the save
    # makes one insert and no connection.
    receiver.statuses = []
    ArticleFactory()
    assert receiver.got == []
    assert Delivery.objects.get().attempts == 0


# As in production, purges (and so webhooks) wait for transaction.on_commit.
@pytest.mark.page_cache
def test_deliveries_are_queued_only_after_the_commit(hook, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        ArticleFactory()
        assert not Delivery.objects.exists()
    for callback in callbacks:
        callback()
    assert Delivery.objects.count() == 1


@pytest.mark.parametrize(
    ("change", "event"),
    [
        (lambda a: setattr(a, "summary", "New.") or a.save(), Event.UPDATED),
        (lambda a: setattr(a, "status", Article.Status.DRAFT) or a.save(), Event.UNPUBLISHED),
        (lambda a: a.delete(), Event.DELETED),
    ],
    ids=["updated", "unpublished", "deleted"],
)
def test_each_change_of_a_public_article_makes_its_event(hook, change, event):
    article = ArticleFactory()
    Delivery.objects.all().delete()
    change(article)
    assert [d.event for d in Delivery.objects.all()] == [event]


def test_a_drafts_edits_and_deletion_make_no_event(hook):
    draft = ArticleFactory(draft=True)
    draft.summary = "Still a draft."
    draft.save()
    draft.delete()
    assert not Delivery.objects.exists()


def test_a_scheduled_article_is_announced_when_it_comes_due(hook, receiver, time_machine):
    article = ArticleFactory(scheduled=True)
    delivery = Delivery.objects.get()
    assert delivery.due_at == article.published_at
    assert send_due() == 0
    time_machine.move_to(article.published_at + timedelta(seconds=1))
    assert send_due() == 1
    assert json.loads(receiver.got[0][1])["type"] == "article.published"


def test_a_scheduled_publications_timestamp_is_its_publication_time(hook, receiver, time_machine):
    article = ArticleFactory(scheduled=True)
    time_machine.move_to(article.published_at + timedelta(seconds=1))
    send_due()
    assert json.loads(receiver.got[0][1])["timestamp"] == article.published_at.isoformat()


def test_a_rescheduled_article_is_announced_once_at_its_new_time(hook, receiver, time_machine):
    article = ArticleFactory(scheduled=True)
    first_time = article.published_at
    article.published_at = first_time + timedelta(days=1)
    article.save()
    time_machine.move_to(first_time + timedelta(seconds=1))
    send_due()
    assert receiver.got == []
    time_machine.move_to(article.published_at + timedelta(seconds=1))
    send_due()
    assert len(receiver.got) == 1
    assert sorted(Delivery.objects.values_list("state", flat=True)) == ["cancelled", "delivered"]


def test_only_subscribed_events_are_queued(receiver):
    WebhookHostFactory(host="127.0.0.1")
    WebhookFactory(url=receiver.url, events=[Event.DELETED])
    ArticleFactory()
    assert not Delivery.objects.exists()


def test_a_webhook_to_a_host_not_allowed_is_refused_and_saves_nothing(db):
    hook = Webhook(name="Partner", url="https://evil.example/hook", events=[Event.PUBLISHED])
    with pytest.raises(ValidationError, match="not allowed"):
        hook.full_clean()


@pytest.mark.parametrize(
    "url", ["ftp://127.0.0.1/x", "file:///etc/passwd", "http://u:p@127.0.0.1/"]
)
def test_only_plain_http_and_https_urls(db, url):
    WebhookHostFactory(host="127.0.0.1")
    hook = Webhook(name="Partner", url=url, events=[Event.PUBLISHED])
    with pytest.raises(ValidationError):
        hook.full_clean()


def test_a_host_no_longer_allowed_is_refused_at_sending(hook, receiver):
    ArticleFactory()
    hook_host = WebhookHostFactory(host="127.0.0.1")
    hook_host.delete()
    send_due()
    assert receiver.got == []
    assert "not allowed" in Delivery.objects.get().log.get().error


def test_loopback_is_refused_unless_private_addresses_are_allowed(hook, receiver, settings):
    settings.SKILLO_ALLOW_PRIVATE_ADDRESSES = False
    ArticleFactory()
    send_due()
    assert receiver.got == []
    assert "non-public address (127.0.0.1)" in Delivery.objects.get().log.get().error


def test_send_again_from_the_admin(hook, receiver, admin_client):
    ArticleFactory()
    send_due()
    delivery = Delivery.objects.get()
    response = admin_client.post(
        "/admin/api/delivery/",
        {"action": "send_again_action", "_selected_action": [delivery.pk]},
        follow=True,
    )
    assert response.status_code == 200
    assert Delivery.objects.get().state == Delivery.State.PENDING
    send_due()
    assert len(receiver.got) == 2


def test_the_delivery_log_shows_each_attempt_in_the_admin(hook, receiver, admin_client):
    receiver.statuses = [500]
    ArticleFactory()
    send_due()
    delivery = Delivery.objects.get()
    page = admin_client.get(f"/admin/api/delivery/{delivery.pk}/change/").content.decode()
    assert "500" in page


def test_the_delivery_page_shows_the_webhook_id_the_receiver_saw(hook, receiver, admin_client):
    ArticleFactory()
    send_due()
    delivery = Delivery.objects.get()
    page = admin_client.get(f"/admin/api/delivery/{delivery.pk}/change/").content.decode()
    assert receiver.got[0][0]["webhook-id"] in page


def test_the_command_sends_what_is_due(hook, receiver):
    ArticleFactory()
    call_command("send_webhooks", verbosity=0)
    assert len(receiver.got) == 1


def test_a_correction_on_a_public_article_makes_its_event(receiver):
    from news.models import Correction

    WebhookHostFactory(host="127.0.0.1")
    WebhookFactory(url=receiver.url, events=[Event.CORRECTION])
    article = ArticleFactory(title="Corrected")
    Correction.objects.create(article=article, kind="correction", note="It was 3.7.")
    Correction.objects.create(article=article, kind="update", note="Also on ARM.")
    draft = ArticleFactory(title="Draft", draft=True)
    Correction.objects.create(article=draft, kind="correction", note="Not public.")
    [delivery] = Delivery.objects.all()
    assert delivery.event == Event.CORRECTION
    assert delivery.payload["data"]["correction"]["note"] == "It was 3.7."
    assert delivery.payload["data"]["article"]["slug"] == article.slug


# Existing webhooks and deliveries (api 0001's shapes), moved by api 0003's migration.
OLD_SECRET = "Xk2-old-secret-from-token_urlsafe-32-bytes0"


def migrated(old_rows):
    """Migrates api back to 0001, makes ``old_rows(Webhook, Delivery)`` there with the
    models of then, and migrates forward again."""
    call_command("migrate", "api", "0001", verbosity=0)
    state = MigrationExecutor(connection).loader.project_state(("api", "0001_initial"))
    old_rows(state.apps.get_model("api", "Webhook"), state.apps.get_model("api", "Delivery"))
    call_command("migrate", verbosity=0)


def old_publication(OldWebhook, OldDelivery, url="http://127.0.0.1:9/hook", count=1):
    hook = OldWebhook.objects.create(
        name="Partner", url=url, events=["article.published"], secret=OLD_SECRET
    )
    for n in range(count):
        OldDelivery.objects.create(
            webhook=hook,
            event="article.published",
            article_id=n,
            payload={"event": "article.published", "article": {"id": n, "slug": f"s-{n}"}},
        )


@pytest.mark.django_db(transaction=True)
def test_a_migrated_secret_keeps_the_receivers_key(receiver):
    migrated(lambda *models: old_publication(*models, url=receiver.url))
    WebhookHostFactory(host="127.0.0.1")
    send_due()
    [(headers, body)] = receiver.got
    hook = Webhook.objects.get()
    assert hook.secret == "whsec_" + base64.b64encode(OLD_SECRET.encode()).decode()
    assert verified(hook.secret, headers, body)
    # A receiver that kept the old secret and computes the HMAC itself still matches.
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    mac = hmac.new(OLD_SECRET.encode(), signed, hashlib.sha256).digest()
    assert headers["webhook-signature"] == "v1," + base64.b64encode(mac).decode()


@pytest.mark.django_db(transaction=True)
def test_migrated_deliveries_get_the_standard_payload_and_ids_of_their_own():
    migrated(lambda *models: old_publication(*models, count=2))
    deliveries = list(Delivery.objects.order_by("article_id"))
    assert deliveries[0].payload == {
        "type": "article.published",
        "timestamp": deliveries[0].created_at.isoformat(),
        "data": {"article": {"id": 0, "slug": "s-0"}},
    }
    assert deliveries[0].message_id != deliveries[1].message_id


# Sent by the background worker (issue 28): no cron.


def test_a_publication_queues_the_task_that_sends_its_deliveries(hook, receiver):
    ArticleFactory()
    (queued,) = DBTaskResult.objects.filter(task_path__startswith="api.")
    assert queued.task_path == "api.tasks.send_due_webhooks"
    assert Delivery.objects.count() == 1


def test_the_background_worker_delivers_what_the_publication_queued(hook, receiver):
    ArticleFactory()
    run_queued(Worker("test-worker", batch=True))  # the card's task too
    assert len(receiver.got) == 1
    assert Delivery.objects.get().state == Delivery.State.DELIVERED


def test_a_change_that_makes_no_delivery_queues_no_task(receiver):
    ArticleFactory()  # no webhook listens
    assert not DBTaskResult.objects.filter(task_path__startswith="api.").exists()
