"""What Skillo's inboxes accept: a signed activity from the actor it names.

The checks, in order: size (413), signature syntax, date and body digest (401), the
instance's block and rate (403, 429), the signing key fetched from its actor and the
signature verified (fetched again once if it fails: the actor may have a new key),
the key's owner being the activity's actor (401), and the same signed request not seen
before (401: a replay). Only then is the activity read and kept."""

import json

from django.conf import settings
from django.db import IntegrityError, transaction
from django.urls import Resolver404, resolve
from django.utils import timezone

from ratelimits import counter

from . import replies
from .actors import CONTEXT, absolute, actor_from_match, actor_id, host
from .delivery import heard_from, queue
from .models import Follower, LocalActor, ReceivedSignature
from .remote import FetchFailed, actor_for_key, domain_of, ident, is_blocked_domain
from .signatures import Refused, Signed


class Problem(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


def over_rate(domain):
    """Whether ``domain`` has sent more than its activities this minute, to any of the
    site's processes."""
    return counter.over(f"fediverse:{domain}", settings.SKILLO_FEDIVERSE_RATE_PER_MINUTE)


def local_actor_at(uri):
    """Skillo's actor whose id is ``uri`` (None if it is not one)."""
    if not isinstance(uri, str) or not uri.startswith(absolute("/")):
        return None
    try:
        match = resolve(uri[len(absolute("")) :])
    except Resolver404:
        return None
    return actor_from_match(match)


def authenticate(request, body):
    """The RemoteActor that signed ``request`` and the activity it sent; Problem if not."""
    if len(body) > settings.SKILLO_FEDIVERSE_MAX_ACTIVITY:
        raise Problem(
            413, f"Activities are accepted up to {settings.SKILLO_FEDIVERSE_MAX_ACTIVITY} bytes."
        )
    try:
        signed = Signed(request, body)
    except Refused as refused:
        raise Problem(refused.status, str(refused)) from None
    domain = domain_of(signed.key_id)
    if not domain:
        raise Problem(401, "The signature's key id is not a URL.")
    if is_blocked_domain(domain):
        raise Problem(403, f"{domain} is blocked on this server.")
    try:
        activity = json.loads(body)
    except (ValueError, RecursionError):
        raise Problem(400, "The body is not JSON.") from None
    if not isinstance(activity, dict) or not isinstance(activity.get("type"), str):
        raise Problem(400, "The body is not an activity (no type).")
    actor_uri = ident(activity.get("actor"))
    if not isinstance(actor_uri, str) or domain_of(actor_uri) != domain:
        raise Problem(401, "The signing key is not on the activity's actor's server.")
    try:
        remote = actor_for_key(signed.key_id)
        if not signed.verify(remote.public_key_pem):
            remote = actor_for_key(signed.key_id, refresh=True)
            if not signed.verify(remote.public_key_pem):
                raise Problem(401, "The signature does not verify with the actor's key.")
    except FetchFailed as failure:
        raise Problem(401, f"The signing key could not be fetched: {failure}") from None
    except Refused as refused:
        raise Problem(refused.status, str(refused)) from None
    # Counted once the instance is known to be who it says: forged requests naming a
    # big instance cannot use up its allowance.
    if over_rate(domain):
        raise Problem(429, f"Too many activities from {domain}; try again in a minute.")
    if remote.uri != actor_uri:
        raise Problem(401, f"The key belongs to {remote.uri}, not to the activity's actor.")
    if remote.blocked:
        raise Problem(403, "This actor is blocked on this server.")
    try:
        with transaction.atomic():
            ReceivedSignature.objects.create(digest=signed.fingerprint, received_at=timezone.now())
    except IntegrityError:
        raise Problem(401, "This signed request was received before (a replay).") from None
    heard_from(domain)
    return remote, activity


def accept(local, remote, follow):
    """Queue the signed Accept of ``follow`` to the follower's inbox."""
    ident_ = actor_id(local)
    answer = {
        "@context": CONTEXT,
        "id": f"{ident_}#accepts/{remote.pk}-{int(timezone.now().timestamp() * 1000)}",
        "type": "Accept",
        "actor": ident_,
        "object": {key: follow[key] for key in ("id", "type", "actor", "object") if key in follow},
    }
    queue(local, answer, [remote.inbox])


def handle(activity, remote, addressed=None):
    """Act on an authenticated ``activity``; a short description of what was done."""
    kind = activity["type"]
    if kind == "Follow":
        local = local_actor_at(ident(activity.get("object")))
        if local is None:
            raise Problem(404, f"There is no actor {ident(activity.get('object'))} on {host()}.")
        follow_uri = (activity.get("id") if isinstance(activity.get("id"), str) else "")[:500]
        # One follow per actor and local actor (the constraint fediverse_follow_once),
        # accepted once: the same Follow sent again, or at the same moment, finds the
        # row (locked until this transaction ends) and queues no second Accept.
        with transaction.atomic():
            follower, created = Follower.objects.select_for_update().get_or_create(
                local=local, remote=remote, defaults={"follow_uri": follow_uri}
            )
            if not created:
                if follow_uri and follower.follow_uri == follow_uri:
                    return "followed before"
                follower.follow_uri = follow_uri
                follower.save(update_fields=["follow_uri"])
            accept(local, remote, activity)
        return "followed"
    if kind == "Undo":
        undone = activity.get("object")
        if isinstance(undone, dict) and undone.get("type") == "Follow":
            local = local_actor_at(ident(undone.get("object")))
            follows = Follower.objects.filter(remote=remote)
            follows = (
                follows.filter(local=local)
                if local
                else follows.filter(follow_uri=undone.get("id"))
            )
            follows.delete()
            return "unfollowed"
        if isinstance(undone, str) and remote.follows.filter(follow_uri=undone).exists():
            remote.follows.filter(follow_uri=undone).delete()
            return "unfollowed"
    if kind == "Delete" and ident(activity.get("object")) == remote.uri:
        # The account is gone: so are its follows and its replies.
        remote.follows.all().delete()
        for reply in remote.replies.all():
            replies.received_delete(reply.uri, remote)
        return "account deleted"
    return replies.received(activity, remote)


__all__ = ["LocalActor", "Problem", "authenticate", "handle"]
