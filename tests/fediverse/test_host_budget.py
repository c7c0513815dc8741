"""Each remote host has a budget of its own (outbound.budget), shared by every process:
a host that did not answer is backed off, and until then nothing waits on it again.
Activities naming its keys wait (kept, put off, or refused with 429 and Retry-After)
instead of each costing the worker a timeout; deliveries to it are put off.

The silent server accepts connections and never answers; counting its connections
counts what the worker spent on it, whatever the machine's load."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.tasks import TaskResultStatus
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from fediverse import inbox
from fediverse.actors import site_actor
from fediverse.delivery import queue
from fediverse.models import Delivery, PendingActivity
from outbound.models import Host

from ..background_tasks import run_queued
from ..fediverse_server import RemoteServer, SilentServer, closed_port
from .test_following import SITE, follow, post_activity

pytestmark = pytest.mark.django_db


@pytest.fixture
def silent():
    with SilentServer("127.0.0.4") as server:
        yield server


@pytest.fixture
def keys_fetched_by_the_worker(monkeypatch):
    """No key is fetched inline: every activity with an unknown key is kept for the worker."""
    monkeypatch.setattr(inbox, "INLINE_FETCHES_PER_HOST", 0)


def follow_with_key_at(client, signer, base, name):
    """A Follow from an actor at ``base`` (its key there), signed with ``signer``'s key
    for ``name``: the signature cannot be checked until the key is fetched from ``base``."""
    signer.add(name)
    actor = f"{base}/users/{name}"
    activity = {
        "@context": "https://www.w3.org/ns/activitystreams",
        "id": f"{actor}#follows/site",
        "type": "Follow",
        "actor": actor,
        "object": f"{SITE}/ap/site",
    }
    return post_activity(client, signer, name, "/ap/inbox", activity, key_id=f"{actor}#main-key")


def test_activities_naming_a_silent_key_host_cost_the_worker_one_timeout_not_one_each(
    client, remote, silent, keys_fetched_by_the_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        answers = [
            follow_with_key_at(client, remote, silent.base, f"user{n}").status_code
            for n in range(36)
        ]
    assert answers == [202] * 36
    run_queued()
    # One fetch waited out its timeout (36, and about 360 s, before hosts had budgets);
    # the host was then backed off, and the other 35 were put off without a connection.
    assert silent.connections == 1
    # None is lost: they wait for the host to be asked again, with one task for them all.
    assert PendingActivity.objects.count() == 36
    [waiting] = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
    assert waiting.task_path == "fediverse.inbox.verify_host"
    until = Host.objects.get(name=silent.address).backed_off_until
    assert until <= waiting.run_after < until + timedelta(seconds=2)  # whole seconds


def test_a_host_whose_task_was_lost_gets_one_again_and_only_one(
    client, remote, silent, keys_fetched_by_the_worker, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for n in range(3):
            follow_with_key_at(client, remote, silent.base, f"user{n}")
    assert DBTaskResult.objects.count() == 1  # one for the host, not one an activity
    DBTaskResult.objects.all().delete()  # lost with its worker
    inbox.verify_kept.call()
    inbox.verify_kept.call()
    [again] = DBTaskResult.objects.all()
    assert (again.task_path, again.args_kwargs["args"]) == (
        "fediverse.inbox.verify_host", [silent.address],
    )  # fmt: skip


def test_the_inbox_refuses_a_host_past_its_pending_cap_and_still_accepts_another(
    client, remote, other_remote, settings, keys_fetched_by_the_worker,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SKILLO_FEDIVERSE_PENDING_PER_HOST = 2
    with django_capture_on_commit_callbacks(execute=True):
        answers = [follow(client, remote, f"user{n}") for n in range(3)]
        other = follow(client, other_remote, "bob")
    assert [answer.status_code for answer in answers] == [202, 202, 429]
    assert int(answers[-1]["Retry-After"]) > 0
    assert other.status_code == 202
    assert PendingActivity.objects.count() == 3


def test_a_follow_whose_key_host_is_backed_off_gets_429_without_a_connection(
    client, remote, silent
):
    # A key on the same host where nothing listens: refused at once, the host backed off.
    refused = f"http://{silent.address}:{closed_port(silent.address)}"
    assert follow_with_key_at(client, remote, refused, "alice").status_code == 429
    response = follow_with_key_at(client, remote, silent.base, "bob")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert silent.connections == 0
    assert not PendingActivity.objects.exists()


def test_a_host_that_spent_its_minute_is_not_asked_again_before_the_next(remote, settings):
    # Every request spends more than that: the first one spends the host's minute.
    settings.SKILLO_OUTBOUND_HOST_SECONDS = 0
    activity = {"type": "Announce", "id": f"{SITE}/ap/site#announce", "actor": f"{SITE}/ap/site"}
    inboxes = [remote.base + "/users/alice/inbox", remote.base + "/users/bob/inbox"]
    with time_machine.travel(datetime(2026, 12, 7, 12, 0, 5, tzinfo=UTC)):
        _, second = queue(site_actor(), activity, inboxes)
        run_queued()
    assert len(remote.received) == 1
    second.refresh_from_db()
    assert second.state == Delivery.State.PENDING
    assert second.due_at == datetime(2026, 12, 7, 12, 1, tzinfo=UTC)


def test_a_delivery_to_a_backed_off_host_is_put_off_without_a_connection(silent):
    refused = f"http://{silent.address}:{closed_port(silent.address)}/inbox"
    activity = {"type": "Announce", "id": f"{SITE}/ap/site#announce", "actor": f"{SITE}/ap/site"}
    first, second = queue(site_actor(), activity, [refused, silent.base + "/inbox"])
    run_queued()
    assert silent.connections == 0
    second.refresh_from_db()
    assert second.state == Delivery.State.PENDING
    assert second.attempts == 0
    assert second.due_at > first.created_at


def test_the_admin_lets_a_backed_off_host_be_asked_again_at_once(admin_client):
    activity = {"type": "Announce", "id": f"{SITE}/ap/site#announce", "actor": f"{SITE}/ap/site"}
    with RemoteServer("127.0.0.4") as back:
        queue(site_actor(), activity, [f"http://{back.address}:{closed_port(back.address)}/inbox"])
        run_queued()
        host = Host.objects.get(name=back.address)
        assert host.backed_off_until is not None
        admin_client.post(
            "/admin/outbound/host/", {"action": "ask_again", "_selected_action": [host.pk]}
        )
        queue(site_actor(), activity, [back.base + "/inbox"])
        run_queued()
        assert len(back.received) == 1


def test_hosts_that_did_not_answer_are_asked_again_within_the_sites_allowance(
    client, remote, silent, settings, keys_fetched_by_the_worker,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    settings.SKILLO_FEDIVERSE_RETRY_SECONDS = 10  # one time-out's worth a minute
    with SilentServer("127.0.0.5") as other:
        for server in (silent, other):  # both silent last time; may be asked again now
            Host.objects.create(name=server.address, failures=1)
        with django_capture_on_commit_callbacks(execute=True):
            for server in (silent, other):
                follow_with_key_at(client, remote, server.base, f"user-{server.port}")
        # Early in a minute, so that both are asked in it (a time-out is 10 s).
        with time_machine.travel(timezone.now().replace(second=5)):
            run_queued()
        # One of the two was asked and waited out its time-out; the other was not asked.
        assert silent.connections + other.connections == 1
        assert PendingActivity.objects.count() == 2
        put_off = DBTaskResult.objects.filter(status=TaskResultStatus.READY)
        assert put_off.count() == 2 and all(task.run_after > timezone.now() for task in put_off)
