"""No web worker waits on another server: an inbox request whose signing key must be
fetched from a server that does not answer is answered at once (202) and kept, and a
background task fetches the key and checks the request in full before it takes effect.
A flood of such requests is bounded: so many inline fetches a minute per host and for
the site, so many kept activities per host."""

import threading
import time
from types import SimpleNamespace

import pytest

from fediverse import inbox
from fediverse.models import Follower, PendingActivity
from ratelimits import counter
from tests.background_tasks import run_queued
from tests.waiting import poll

from .test_following import accepts, follow, follow_activity, post_activity

pytestmark = pytest.mark.django_db


@pytest.fixture
def held(remote):
    """The remote server, holding every GET (its actors, their keys) until released."""
    remote.release = threading.Event()
    return remote


@pytest.fixture
def one_minute(monkeypatch):
    """The limits' clock stopped in one minute: a flood of held fetches takes 2 s each,
    and one that crossed a minute's end would start a new allowance half-way."""
    now = time.time()
    monkeypatch.setattr(
        counter, "time", SimpleNamespace(time=lambda: now, monotonic=time.monotonic)
    )


def waiting_gets(server, count):
    """Whether ``count`` GETs have reached the server (they are being held there)."""
    return poll(lambda: len(server.gets) >= count, 10)


def test_a_follow_whose_key_server_does_not_answer_is_answered_at_once_and_kept(
    client, held, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = follow(client, held, "alice")
    # Answered while the key's server still holds the fetch: no worker waited for it.
    assert not held.release.is_set() and waiting_gets(held, 1)
    assert response.status_code == 202
    assert response.json()["accepted"].startswith("later")
    assert PendingActivity.objects.count() == 1
    assert not Follower.objects.exists()


def test_the_kept_follow_takes_effect_once_the_worker_has_the_key(
    client, held, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        follow(client, held, "alice")
    held.release.set()
    assert run_queued() >= 1
    assert Follower.objects.filter(remote__uri=held.actor_id("alice")).count() == 1
    assert accepts() == 1
    assert not PendingActivity.objects.exists()


def test_a_kept_activity_with_a_forged_signature_never_takes_effect(
    client, held, django_capture_on_commit_callbacks
):
    held.add("alice")
    held.add("mallory")
    with django_capture_on_commit_callbacks(execute=True):
        response = post_activity(
            client, held, "mallory", "/ap/inbox", follow_activity(held, "alice"),
            key_id=held.key_id("alice"),
        )  # fmt: skip
    assert response.status_code == 202
    held.release.set()
    run_queued()
    assert not Follower.objects.exists()
    assert not PendingActivity.objects.exists()


def test_a_flood_of_unknown_keys_fetches_inline_only_the_hosts_allowance(
    client, held, one_minute, django_capture_on_commit_callbacks
):
    """Each request names a key of its own (fresh key URLs used to repeat the wait)."""
    with django_capture_on_commit_callbacks(execute=True):
        answers = [follow(client, held, f"user{n}").status_code for n in range(8)]
    assert answers == [202] * 8
    # The host's allowance of inline fetches was tried (and held); the rest went
    # straight to the background without contacting the server from a web request.
    assert waiting_gets(held, 1)
    assert len(held.gets) <= inbox.INLINE_FETCHES_PER_HOST
    assert PendingActivity.objects.count() == 8


def test_a_key_that_cannot_be_fetched_is_refused_without_saying_what_the_fetch_saw(client, remote):
    remote.add("alice")
    response = post_activity(
        client, remote, "alice", "/ap/inbox", follow_activity(remote, "alice"),
        key_id=remote.base + "/users/nobody#main-key",
    )  # fmt: skip
    assert response.status_code == 401
    assert response.json()["error"] == "The signing key could not be fetched."
