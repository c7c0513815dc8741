"""Following Skillo from another server, and what followers receive: a signed Accept,
then a Create for each new article, an Update after an edit or a correction, a Delete
after an unpublish; each inbox once."""

import json
from datetime import timedelta
from email.utils import formatdate

import pytest
import requests
import time_machine
from django.utils import timezone

from fediverse.models import Delivery, Follower, Instance, RemoteActor
from news.models import Article

from ..background_tasks import run_queued
from ..factories import ArticleFactory, AuthorFactory, CorrectionFactory
from ..fediverse_server import verify_cavage
from ..together import POSTGRESQL_ONLY, RACERS, outcomes, together

pytestmark = pytest.mark.django_db
SITE = "http://127.0.0.1:8000"
ACTIVITY = "application/activity+json"


def post_activity(client, server, name, path, activity, **signing):
    body = json.dumps(activity).encode()
    headers = server.cavage_headers(name, SITE + path, body, **signing)
    return client.post(path, data=body, content_type=ACTIVITY, headers=headers)


def follow_activity(server, name, target=f"{SITE}/ap/site"):
    actor = server.actor_id(name) if name in server.keys else server.add(name)
    return {
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": f"{actor}#follows/{target.rsplit('/', 1)[-1]}",
        "type": "Follow",
        "actor": actor,
        "object": target,
    }


def follow(client, server, name, target=f"{SITE}/ap/site", inbox="/ap/inbox", **signing):
    activity = follow_activity(server, name, target)
    return post_activity(client, server, name, inbox, activity, **signing)


def accepts():
    return Delivery.objects.filter(activity__type="Accept").count()


def skillo_key(client, actor_url):
    path = actor_url.removeprefix(SITE)
    return client.get(path, headers={"accept": ACTIVITY}).json()["publicKey"]["publicKeyPem"]


def test_a_follow_is_accepted_with_a_signed_accept(client, remote):
    response = follow(client, remote, "alice", inbox="/ap/site/inbox")
    assert response.status_code == 202
    assert Follower.objects.get().remote.uri == remote.actor_id("alice")
    run_queued()
    (entry,) = remote.received
    assert entry["path"] == "/users/alice/inbox"
    accept = json.loads(entry["body"])
    assert accept["type"] == "Accept"
    assert accept["actor"] == f"{SITE}/ap/site"
    assert accept["object"]["type"] == "Follow"
    assert accept["object"]["actor"] == remote.actor_id("alice")
    assert verify_cavage(entry, skillo_key(client, accept["actor"]))
    assert client.get("/ap/site/followers").json()["totalItems"] == 1


def test_a_follow_sent_again_is_accepted_once_and_a_new_one_again(client, remote):
    now = timezone.now().timestamp()
    first, retried = (formatdate(now - seconds, usegmt=True) for seconds in (20, 10))
    assert follow(client, remote, "alice", date=first).json() == {"accepted": "followed"}
    # The same Follow again (its server retried it), signed at another time: no replay,
    # but nothing new to accept.
    assert follow(client, remote, "alice", date=retried).json() == {"accepted": "followed before"}
    assert (Follower.objects.count(), accepts()) == (1, 1)
    # A new Follow (its id new: the account followed again) is answered again.
    again = {**follow_activity(remote, "alice"), "id": f"{remote.actor_id('alice')}#follows/2"}
    post_activity(client, remote, "alice", "/ap/inbox", again)
    assert (Follower.objects.get().follow_uri, accepts()) == (again["id"], 2)


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_a_follow_sent_at_the_same_moment_is_one_follower_accepted_once(live_server, remote):
    inbox = f"{live_server.url}/ap/inbox"
    body = json.dumps(follow_activity(remote, "alice")).encode()

    def sender(number):
        # The same Follow, each copy signed a second apart (or it would be a replay).
        date = formatdate(timezone.now().timestamp() - number, usegmt=True)
        headers = {**remote.cavage_headers("alice", inbox, body, date=date),
                   "Content-Type": ACTIVITY}  # fmt: skip
        return lambda: requests.post(inbox, data=body, headers=headers, timeout=60)

    responses = together([sender(number) for number in range(RACERS)])
    assert outcomes(responses) == {202: RACERS}
    assert Follower.objects.get().remote.uri == remote.actor_id("alice")
    assert accepts() == 1


def test_a_new_article_reaches_each_inbox_once(client, remote, other_remote):
    ada = AuthorFactory(slug="ada")
    # A topic readers can see (one of drafts alone cannot be followed yet).
    rust = ArticleFactory(tags=["rust"]).tags.get()
    # Alice follows the site, Ada and Rust; Bob (same server) Ada; Carol (another) Rust.
    for target in ["/ap/site", f"/ap/authors/{ada.pk}", f"/ap/topics/{rust.pk}"]:
        assert follow(client, remote, "alice", SITE + target).status_code == 202
    follow(client, remote, "bob", f"{SITE}/ap/authors/{ada.pk}")
    follow(client, other_remote, "carol", f"{SITE}/ap/topics/{rust.pk}")
    run_queued()
    remote.received.clear(), other_remote.received.clear()

    article = ArticleFactory(title="Rust 1.90 ships", tags=["rust"], authors=[ada])
    run_queued()
    (create,) = remote.activities()
    assert remote.received[0]["path"] == "/inbox"  # the shared inbox, once for the server
    assert create["type"] == "Create"
    assert create["actor"] == f"{SITE}/ap/site"
    assert create["object"]["id"] == f"{SITE}/ap/articles/{article.pk}"
    assert create["object"]["attributedTo"] == [f"{SITE}/ap/authors/{ada.pk}"]
    assert verify_cavage(remote.received[0], skillo_key(client, create["actor"]))
    (carols,) = other_remote.activities()
    assert carols["actor"] == f"{SITE}/ap/topics/{rust.pk}"
    assert verify_cavage(other_remote.received[0], skillo_key(client, carols["actor"]))
    run_queued()
    assert len(remote.received) == 1 and len(other_remote.received) == 1


def test_a_draft_is_never_delivered_and_a_scheduled_article_only_at_its_time(client, remote):
    follow(client, remote, "alice")
    run_queued()
    remote.received.clear()
    ArticleFactory(draft=True)
    scheduled = ArticleFactory(scheduled=True)
    run_queued()
    assert remote.activities() == []
    with time_machine.travel(scheduled.published_at + timedelta(minutes=1), tick=False):
        run_queued()
    (create,) = remote.activities("Create")
    assert create["object"]["id"].endswith(f"/ap/articles/{scheduled.pk}")


def test_an_edit_sends_an_update_and_an_unchanged_save_sends_nothing(client, remote):
    follow(client, remote, "alice")
    article = ArticleFactory(title="Rust 1.90 ships")
    run_queued()
    article.save()
    run_queued()
    assert remote.activities("Update") == []
    article.title = "Rust 1.90 ships with a new borrow checker"
    article.save()
    run_queued()
    (update,) = remote.activities("Update")
    assert update["object"]["name"] == "Rust 1.90 ships with a new borrow checker"
    assert update["actor"] == f"{SITE}/ap/site"
    assert verify_cavage(remote.received[-1], skillo_key(client, update["actor"]))


def test_a_correction_sends_an_update_with_the_note_at_the_top(client, remote):
    follow(client, remote, "alice")
    article = ArticleFactory()
    run_queued()
    CorrectionFactory(article=article, note="The release date was 3 May, not 4 May.")
    run_queued()
    (update,) = remote.activities("Update")
    assert verify_cavage(remote.received[-1], skillo_key(client, update["actor"]))
    content = update["object"]["content"]
    assert content.startswith("<p><strong>Correction")
    assert "The release date was 3 May, not 4 May." in content.split("It shipped.")[0]


def test_an_unpublished_article_is_deleted_and_its_object_is_gone(client, remote):
    follow(client, remote, "alice")
    article = ArticleFactory()
    run_queued()
    article.status = Article.Status.DRAFT
    article.save()
    run_queued()
    (delete,) = remote.activities("Delete")
    assert delete["object"]["type"] == "Tombstone"
    assert verify_cavage(remote.received[-1], skillo_key(client, delete["actor"]))
    assert delete["object"]["id"] == f"{SITE}/ap/articles/{article.pk}"
    response = client.get(f"/ap/articles/{article.pk}")
    assert response.status_code == 410
    assert response.json()["type"] == "Tombstone"
    gone = client.get(article.get_absolute_url(), headers={"accept": ACTIVITY})
    assert gone.status_code == 410


def test_a_deleted_article_is_deleted_on_the_fediverse_too(client, remote):
    follow(client, remote, "alice")
    article = ArticleFactory()
    run_queued()
    pk = article.pk
    article.delete()
    run_queued()
    (delete,) = remote.activities("Delete")
    assert delete["object"]["id"] == f"{SITE}/ap/articles/{pk}"


def test_undo_stops_deliveries(client, remote):
    follow(client, remote, "alice")
    run_queued()
    actor = remote.actor_id("alice")
    undo = {
        "id": f"{actor}#undo",
        "type": "Undo",
        "actor": actor,
        "object": {"id": f"{actor}#follows/site", "type": "Follow", "actor": actor,
                   "object": f"{SITE}/ap/site"},
    }  # fmt: skip
    assert post_activity(client, remote, "alice", "/ap/inbox", undo).status_code == 202
    assert not Follower.objects.exists()
    remote.received.clear()
    ArticleFactory()
    run_queued()
    assert remote.received == []


def test_a_failing_server_is_retried_then_backed_off(client, remote, settings):
    settings.SKILLO_FEDIVERSE_INSTANCE_FAILURES = 2
    follow(client, remote, "alice")
    run_queued()
    remote.inbox_status = 503
    ArticleFactory()
    run_queued()
    delivery = Delivery.objects.get(activity__type="Create")
    assert delivery.state == Delivery.State.PENDING and delivery.attempts == 1
    for minutes in (2, 5):
        with time_machine.travel(timezone.now() + timedelta(minutes=minutes), tick=False):
            run_queued()
    # Two failures in a row: backed off for an hour, so the third try (due at 4 min) waits.
    instance = Instance.objects.get(domain="127.0.0.2")
    assert instance.failures == 2
    assert instance.retry_after >= timezone.now() + timedelta(minutes=55)
    assert Delivery.objects.get(pk=delivery.pk).attempts == 2
    remote.inbox_status = 202
    with time_machine.travel(instance.retry_after + timedelta(minutes=1), tick=False):
        run_queued()
    delivery.refresh_from_db()
    assert delivery.state == Delivery.State.DELIVERED
    assert Instance.objects.get(domain="127.0.0.2").failures == 0


def test_a_server_failing_for_days_is_given_up_and_its_followers_kept(client, remote, settings):
    settings.SKILLO_FEDIVERSE_INSTANCE_FAILURES = 1
    settings.SKILLO_FEDIVERSE_GIVE_UP_DAYS = 1
    follow(client, remote, "alice")
    run_queued()
    remote.inbox_status = 503
    ArticleFactory()
    start = timezone.now()
    for hours in (0, 3, 10, 20, 30):
        with time_machine.travel(start + timedelta(hours=hours), tick=False):
            run_queued()
    assert Instance.objects.get(domain="127.0.0.2").given_up_at is not None
    assert Follower.objects.count() == 1
    sent = len(remote.received)
    with time_machine.travel(start + timedelta(hours=31), tick=False):
        ArticleFactory()
        run_queued()
    assert len(remote.received) == sent  # not tried
    assert RemoteActor.objects.count() == 1
