"""Replies from the fediverse: held for moderation, shown after approval (sanitised, with
the author's handle and a link to the original), followed when their author edits or
deletes them; likes and boosts counted, once per actor."""

import json

import pytest
import requests
from django.test import Client

from fediverse.models import (
    ArticleState,
    BlockedDomain,
    Follower,
    Reaction,
    RemoteActor,
    Reply,
)
from fediverse.replies import purge_replies
from news.models import Article

from ..factories import ArticleFactory, UserFactory
from ..together import POSTGRESQL_ONLY, RACERS, outcomes, together
from .test_following import ACTIVITY, SITE, post_activity

pytestmark = pytest.mark.django_db


def reply(server, name, article, text="<p>Great write-up!</p>", number=1, **extra):
    actor = server.actor_id(name) if name in server.keys else server.add(name)
    note = {
        "id": f"{actor}/statuses/{number}",
        "type": "Note",
        "attributedTo": actor,
        "inReplyTo": f"{SITE}/ap/articles/{article.pk}",
        "content": text,
        "url": f"{server.base}/@{name}/{number}",
        "published": "2026-11-30T10:00:00Z",
        **extra,
    }
    activity = {"id": f"{note['id']}/activity", "type": "Create", "actor": actor, "object": note}
    return post_activity(Client(), server, name, "/ap/inbox", activity), note


def page(client, article):
    return client.get(article.get_absolute_url()).content.decode()


def test_a_reply_is_held_until_approved_then_shown_sanitised(client, remote, admin_client):
    article = ArticleFactory()
    response, _ = reply(
        remote, "alice", article,
        '<p>Great write-up! <a href="https://example.org/x">notes</a>'
        '<script>alert(1)</script><img src="https://tracker.example/p.gif"></p>',
    )  # fmt: skip
    assert response.status_code == 202
    held = Reply.objects.get()
    assert held.state == Reply.State.PENDING
    assert "Replies from the fediverse" not in page(client, article)
    changelist = admin_client.get("/admin/fediverse/reply/?state__exact=pending")
    assert "Great write-up!" in changelist.content.decode()
    admin_client.post(
        "/admin/fediverse/reply/", {"action": "approve", "_selected_action": [held.pk]}
    )
    shown = page(client, article)
    assert "Replies from the fediverse" in shown
    assert "Great write-up!" in shown
    assert "@alice@127.0.0.2" in shown
    assert f'href="{remote.base}/@alice/1"' in shown
    assert "<script" not in shown.split("Replies from the fediverse")[1]
    assert "tracker.example" not in shown
    assert 'rel="noopener noreferrer nofollow ugc"' in shown


def test_an_editor_can_moderate_replies(client, remote):
    from django.contrib.auth.models import Group

    editor = UserFactory(username="grace")
    editor.groups.add(Group.objects.get(name="Editors"))
    client.force_login(editor)
    assert client.get("/admin/fediverse/reply/").status_code == 200


def test_the_authors_update_and_delete_are_followed(client, remote):
    article = ArticleFactory()
    _, note = reply(remote, "alice", article)
    Reply.objects.update(state=Reply.State.APPROVED)
    actor = remote.actor_id("alice")
    update = {"id": f"{actor}#u", "type": "Update", "actor": actor,
              "object": {**note, "content": "<p>Great write-up, corrected.</p>"}}  # fmt: skip
    post_activity(client, remote, "alice", "/ap/inbox", update)
    # Edited after approval: held again until a moderator has read the new text.
    assert Reply.objects.get().state == Reply.State.PENDING
    assert "Great write-up, corrected." not in page(client, article)
    Reply.objects.update(state=Reply.State.APPROVED)
    purge_replies(article.pk)  # as the admin's approval does
    assert "Great write-up, corrected." in page(client, article)
    delete = {"id": f"{actor}#d", "type": "Delete", "actor": actor,
              "object": {"id": note["id"], "type": "Tombstone"}}  # fmt: skip
    post_activity(client, remote, "alice", "/ap/inbox", delete)
    assert not Reply.objects.exists()
    assert "Replies from the fediverse" not in page(client, article)


def test_someone_else_cannot_edit_or_delete_a_reply(client, remote):
    article = ArticleFactory()
    _, note = reply(remote, "alice", article)
    mallory = remote.add("mallory")
    delete = {"id": f"{mallory}#d", "type": "Delete", "actor": mallory, "object": note["id"]}
    post_activity(client, remote, "mallory", "/ap/inbox", delete)
    assert Reply.objects.count() == 1


def test_a_reply_to_a_draft_or_to_nothing_of_ours_is_not_kept(client, remote):
    draft = ArticleFactory(draft=True)
    reply(remote, "alice", draft)
    reply(remote, "alice", ArticleFactory(), number=2, inReplyTo="https://elsewhere.example/1")
    assert not Reply.objects.exists()


def test_likes_and_boosts_are_counted(client, remote):
    article = ArticleFactory()
    target = f"{SITE}{article.get_absolute_url()}"
    for name in ("alice", "bob"):
        actor = remote.add(name)
        like = {"id": f"{actor}#like", "type": "Like", "actor": actor, "object": target}
        assert post_activity(client, remote, name, "/ap/inbox", like).status_code == 202
    actor = remote.actor_id("alice")
    boost = {"id": f"{actor}#boost", "type": "Announce", "actor": actor,
             "object": f"{SITE}/ap/articles/{article.pk}"}  # fmt: skip
    post_activity(client, remote, "alice", "/ap/inbox", boost)
    undo = {"id": f"{actor}#undo-like", "type": "Undo", "actor": actor,
            "object": {"id": f"{actor}#like", "type": "Like", "object": target}}  # fmt: skip
    post_activity(client, remote, "alice", "/ap/inbox", undo)
    state = ArticleState.objects.get(article_id=article.pk)
    assert (state.likes, state.boosts) == (1, 1)
    assert "1 like · 1 boost on the fediverse" in page(client, article)


def like(server, name, article, number=1, kind="Like"):
    actor = server.actor_id(name) if name in server.keys else server.add(name)
    return {"id": f"{actor}#{kind.lower()}-{number}", "type": kind, "actor": actor,
            "object": f"{SITE}{article.get_absolute_url()}"}  # fmt: skip


def undo(server, name, activity):
    actor = server.actor_id(name) if name in server.keys else server.add(name)
    undone = {key: activity[key] for key in ("id", "type", "actor", "object")}
    return {"id": f"{actor}#undo-{activity['id']}", "type": "Undo", "actor": actor,
            "object": undone}  # fmt: skip


def counts(article):
    state = ArticleState.objects.get(article_id=article.pk)
    return state.likes, state.boosts


def test_an_actor_counts_once_and_only_its_own_undo_takes_it_off(client, remote):
    article = ArticleFactory()
    liked = like(remote, "alice", article)
    boosted = like(remote, "alice", article, kind="Announce")
    for activity in [liked, like(remote, "alice", article, 2), boosted]:
        assert post_activity(client, remote, "alice", "/ap/inbox", activity).status_code == 202
    assert counts(article) == (1, 1)  # liked again under another id: still one like
    # Bob, who never liked it, undoes Alice's like: nothing is taken off.
    assert post_activity(client, remote, "bob", "/ap/inbox", undo(remote, "bob", liked)).json() == {
        "accepted": "ignored: no Like of this actor's to undo"
    }
    assert counts(article) == (1, 1)
    undone = undo(remote, "alice", liked)
    for activity in [undone, {**undone, "id": f"{undone['id']}-again"}]:  # and sent again
        assert post_activity(client, remote, "alice", "/ap/inbox", activity).status_code == 202
    assert counts(article) == (0, 1)
    # Who liked is kept as a keyed hash, not as the actor's id.
    (boost,) = Reaction.objects.all()
    assert remote.actor_id("alice") not in boost.actor and len(boost.actor) == 64


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_likes_sent_at_the_same_moment_by_one_actor_count_once(live_server, remote):
    article = ArticleFactory()
    inbox = f"{live_server.url}/ap/inbox"

    def sender(number):
        body = json.dumps(like(remote, "alice", article, number)).encode()
        headers = {**remote.cavage_headers("alice", inbox, body), "Content-Type": ACTIVITY}
        return lambda: requests.post(inbox, data=body, headers=headers, timeout=60)

    responses = together([sender(number) for number in range(RACERS)])
    assert outcomes(responses) == {202: RACERS}
    assert counts(article) == (1, 0)
    assert Reaction.objects.count() == 1


def test_blocking_an_instance_from_a_reply_refuses_it_from_then_on(client, remote, admin_client):
    article = ArticleFactory()
    reply(remote, "alice", article)
    held = Reply.objects.get()
    admin_client.post(
        "/admin/fediverse/reply/", {"action": "block_instance", "_selected_action": [held.pk]}
    )
    assert BlockedDomain.objects.filter(domain="127.0.0.2").exists()
    assert Reply.objects.get().state == Reply.State.REJECTED
    response, _ = reply(remote, "alice", article, number=2)
    assert response.status_code == 403
    assert Reply.objects.count() == 1


def test_blocking_an_actor_drops_their_follows(client, remote, admin_client):
    from .test_following import follow

    follow(client, remote, "alice")
    article = ArticleFactory()
    reply(remote, "alice", article)
    admin_client.post(
        "/admin/fediverse/reply/",
        {"action": "block_actor", "_selected_action": [Reply.objects.get().pk]},
    )
    assert RemoteActor.objects.get().blocked
    assert not Follower.objects.exists()
    assert Article.objects.count() == 1


def test_a_replys_time_is_a_valid_datetime_attribute_whatever_its_fraction(client, remote):
    from datetime import UTC, datetime

    article = ArticleFactory()
    reply(remote, "alice", article)
    # A reply without a time of its own is dated when it arrived, microseconds and all;
    # HTML allows at most three fraction digits in a datetime attribute.
    Reply.objects.update(
        state=Reply.State.APPROVED, published_at=datetime(2026, 5, 1, 9, 30, 15, 123456, tzinfo=UTC)
    )
    purge_replies(article.pk)
    shown = page(client, article)
    assert 'datetime="2026-05-01T' in shown
    assert ".123456" not in shown
