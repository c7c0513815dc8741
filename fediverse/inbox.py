"""What Skillo's inboxes accept: a signed activity from the actor it names.

The checks, in order: size (413), signature syntax, date and body digest (401), the
instance's block and rate (403, 429), the signing key fetched from its actor and the
signature verified (fetched again once if it fails: the actor may have a new key),
the key's owner being the activity's actor (401), and the same signed request not seen
before (401: a replay). Only then is the activity read and kept.

No web worker waits on another server for long: a key that must be fetched is fetched
within remote.INLINE_BUDGET (DNS included), and only so many times a minute per host
and for the site. Past either, the request is kept (PendingActivity), answered 202, and
checked in full by a background task before anything it says takes effect. A key's host
that did not answer is backed off (outbound.budget): until then its activities get 429
with Retry-After, and those kept are put off, so that one silent host costs the worker
one timeout, not one per activity."""

import json
import logging
import math
import time
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import JsonResponse
from django.tasks import task
from django.urls import Resolver404, resolve
from django.utils import timezone
from django.utils.datastructures import CaseInsensitiveMapping

from background.status import is_waiting
from outbound import budget
from ratelimits import counter

from . import replies
from .actors import CONTEXT, absolute, actor_from_match, actor_id, host
from .delivery import heard_from, queue
from .models import Follower, LocalActor, PendingActivity, ReceivedSignature, RemoteActor
from .remote import (
    FetchFailed,
    Later,
    Unanswered,
    actor_for_key,
    domain_of,
    ident,
    is_blocked_domain,
)
from .signatures import Refused, Signed

logger = logging.getLogger(__name__)

# Keys fetched inline (within the budget) a minute: per host, and for the whole site.
# The rest are fetched by the background worker.
INLINE_FETCHES_PER_HOST = 5
INLINE_FETCHES_PER_SITE = 30
# Activities waiting for their key for the site (503 past it; per host, 429 past
# SKILLO_FEDIVERSE_PENDING_PER_HOST).
PENDING_PER_SITE = 5000
# A kept activity whose key's host stays backed off is put off until it may be asked,
# for this long at most; then it is dropped.
KEPT_AT_MOST = timedelta(days=1)
# Seconds one verify_host task works through a host's activities before the rest waits
# for a task of its own.
SLICE = 60


class Problem(Exception):
    """A refusal: its HTTP status, and for a 429 the seconds to wait (Retry-After)."""

    def __init__(self, status, message, retry_after=None):
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


class Deferred(Exception):
    """The signing key must be fetched in the background first (keep())."""

    def __init__(self, signed, domain, why):
        super().__init__(why)
        self.signed, self.domain = signed, domain


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


def authenticate(request, body, received_at=None, inline=True):
    """The RemoteActor that signed ``request`` and the activity it sent; Problem if not,
    Deferred if its key is to be fetched in the background (``inline``: in a web
    request; ``received_at``: when a kept request came)."""
    if len(body) > settings.SKILLO_FEDIVERSE_MAX_ACTIVITY:
        raise Problem(
            413, f"Activities are accepted up to {settings.SKILLO_FEDIVERSE_MAX_ACTIVITY} bytes."
        )
    try:
        signed = Signed(request, body, received_at)
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
        remote = signer(signed, domain, inline)
    except Later as later:
        raise Deferred(signed, domain, str(later)) from None
    except (budget.BackedOff, Unanswered) as unreachable:
        # The key's host is silent or over its budget (or the site's for hosts that did
        # not answer): the sender tries again later (and a kept activity waits,
        # verify_host), rather than spend a timeout each.
        wait = getattr(unreachable, "retry_after", None) or budget.wait(domain) or 60
        raise Problem(429, f"{domain} cannot be reached now; try again later.", wait) from None
    except FetchFailed as failure:
        # What the fetch saw stays in the log: telling the sender would make the inbox
        # an oracle of what this server can reach.
        logger.info("Inbox: the key %s could not be fetched: %s", signed.key_id, failure)
        raise Problem(401, "The signing key could not be fetched.") from None
    except Refused as refused:
        raise Problem(refused.status, str(refused)) from None
    # Counted once the instance is known to be who it says: forged requests naming a
    # big instance cannot use up its allowance.
    if over_rate(domain):
        raise Problem(
            429, f"Too many activities from {domain}; try again in a minute.",
            math.ceil(counter.seconds_left(60)),
        )  # fmt: skip
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


def signer(signed, domain, inline):
    """The RemoteActor whose key made ``signed``: kept, or fetched (again: the actor may
    have a new key). Inline, a fetch is within the budget and the minute's allowance."""
    stored = RemoteActor.objects.filter(key_id=signed.key_id, domain=domain).first()
    if stored is not None and signed.verify(stored.public_key_pem):
        return stored
    if inline and (
        counter.over(f"fediverse:key-fetch:{domain}", INLINE_FETCHES_PER_HOST)
        or counter.over("fediverse:key-fetch", INLINE_FETCHES_PER_SITE)
    ):
        raise Later("keys are being fetched in the background")
    remote = actor_for_key(signed.key_id, refresh=stored is not None, inline=inline)
    if not signed.verify(remote.public_key_pem):
        raise Problem(401, "The signature does not verify with the actor's key.")
    return remote


class KeptRequest:
    """A kept request as Signed reads one."""

    def __init__(self, pending):
        self.method, self.headers = pending.method, CaseInsensitiveMapping(pending.headers)
        self.pending = pending

    def get_full_path(self):
        return self.pending.path

    def get_host(self):
        return self.pending.host

    def build_absolute_uri(self):
        return self.pending.url


def keep(request, body, deferred):
    """Keep a request whose key is fetched in the background: 202, or 429 and 503 past
    what may wait (a flood of unknown keys fills no disk)."""
    domain = deferred.domain
    if ReceivedSignature.objects.filter(digest=deferred.signed.fingerprint).exists():
        raise Problem(401, "This signed request was received before (a replay).")
    if wait := budget.wait(domain):
        raise Problem(429, f"{domain} cannot be reached now; try again later.", wait)
    waiting = PendingActivity.objects.filter(domain=domain).count()
    if waiting >= settings.SKILLO_FEDIVERSE_PENDING_PER_HOST:
        raise Problem(429, f"Too many activities from {domain} wait for their key.", 60)
    if PendingActivity.objects.count() >= PENDING_PER_SITE:
        raise Problem(503, "Too many activities wait for their keys; try again later.")
    headers = {name: value for name, value in request.headers.items() if name != "Cookie"}
    try:
        with transaction.atomic():
            PendingActivity.objects.create(
                fingerprint=deferred.signed.fingerprint, domain=domain,
                received_at=timezone.now(), method=request.method,
                path=request.get_full_path()[:2000], host=request.get_host()[:255],
                url=request.build_absolute_uri()[:2300], headers=headers, body=body,
            )  # fmt: skip
            transaction.on_commit(lambda: verify_host_once(domain))
    except IntegrityError:
        pass  # the same request, sent again while it waits: one is enough
    return JsonResponse({"accepted": f"later: {deferred}"}, status=202)


def verify_host_once(domain):
    """Queue verify_host for ``domain`` unless it is queued (or running) already."""
    if not is_waiting(verify_host, domain):
        verify_host.enqueue(domain)


@task(queue_name="remote")
def verify_host(domain):
    """Check the activities kept from ``domain`` in full, oldest first, their keys
    fetched now, and act on each that holds. One task a host, not one an activity: when
    the host is silent or over its budget, all its activities wait together, put off
    until it may be asked (one task, one time-out), and a flood from many hosts costs
    the queue one task a host. After SLICE seconds the rest goes to a task of its own,
    behind what was queued meanwhile."""
    ends = time.monotonic() + SLICE
    done = 0
    kept = PendingActivity.objects.filter(domain=domain).order_by("received_at", "pk")
    while time.monotonic() < ends:
        if (pending := kept.first()) is None:
            return f"{domain}: {done} checked"
        try:
            outcome, later = verify(pending)
        except Exception:
            # Not to be tried again and again ahead of the host's other activities.
            logger.exception("Inbox: a kept activity from %s could not be checked", domain)
            pending.delete()
            continue
        logger.info("Inbox: a kept activity from %s: %s", domain, outcome)
        if later is not None:
            verify_host.using(run_after=later).enqueue(domain)
            return f"{domain}: {done} checked, the rest put off until {later:%H:%M:%S}"
        done += 1
    verify_host.enqueue(domain)
    return f"{domain}: {done} checked, more to come"


@task(queue_name="remote")
def verify_kept():
    """A verify_host for every host with activities kept and none queued: a task lost
    (its worker killed past its retries) leaves no host's activities waiting for ever.
    Periodic (settings.SKILLO_PERIODIC_TASKS)."""
    domains = PendingActivity.objects.values_list("domain", flat=True).distinct().order_by()
    for domain in domains:
        verify_host_once(domain)
    return len(domains)


@task(queue_name="remote")
def verify_later(pending_id):
    """What tasks queued before verify_host name: the kept activity's host's."""
    pending = PendingActivity.objects.filter(pk=pending_id).first()
    return verify_host.call(pending.domain) if pending else "gone"


def verify(pending):
    """Check the kept activity ``pending`` and act on it if it holds (it is then gone):
    what happened, and until when its host's activities wait (None: they need not)."""
    body = bytes(pending.body)
    try:
        remote, activity = authenticate(
            KeptRequest(pending), body, received_at=pending.received_at, inline=False
        )
        done = handle(activity, remote)
    except Problem as refused:
        later = timezone.now() + timedelta(seconds=refused.retry_after or 0)
        if refused.retry_after and later - pending.received_at < KEPT_AT_MOST:
            # Its key's host is backed off or busy: it waits, costing no time-out.
            return "put off", later
        done = f"refused ({refused.status}): {refused}"
    pending.delete()
    return done, None


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
