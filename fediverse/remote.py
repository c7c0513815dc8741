"""Other servers' actors: fetched (signed, as servers in secure mode ask), checked, and
kept as RemoteActor rows. Every fetch goes through outbound's address checks."""

import hashlib
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import nullcontext
from datetime import timedelta
from urllib.parse import urldefrag, urlsplit

import httpx
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from outbound import budget
from outbound.client import Refused as AddressRefused
from outbound.client import TooLarge, client, read_limited

from .actors import key_id, site_actor
from .models import BlockedDomain, RemoteActor
from .signatures import sign

ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"'
MAX_DOCUMENT = 1024 * 1024
# A key is fetched again on a failed verification (the actor may have changed keys), at
# most this often: forged requests must not make Skillo fetch a key on each.
REFETCH_AFTER = timedelta(minutes=1)
# A key that could not be fetched is not asked for again for this long (seconds).
FAILED_FOR = 300


class FetchFailed(Exception):
    pass


class Unanswered(FetchFailed):
    """The server did not answer (a timeout, a refused or dropped connection): its host
    is backed off (outbound.budget), and what waits on it is tried again later."""


class Later(Exception):
    """The key could not be fetched within the web request's budget: the activity waits
    for the background (fediverse.inbox.keep)."""


# A web worker waits on another server this long at most, DNS included (the fetch runs
# in a thread of a small pool; past the budget the request is answered and the activity
# verified in the background). A full pool is a wait that ends in the same way.
INLINE_BUDGET = 2.0
# The name, not a host's, under which the site's allowance for asking again hosts that
# did not answer is counted (outbound.budget).
RETRIES = "(hosts asked again)"
INLINE_THREADS = 4
_pool = None
_pool_lock = threading.Lock()


def within_budget(function, *args):
    """``function(*args)`` if it ends within INLINE_BUDGET seconds; Later otherwise. It
    must not touch the database (its thread has no part in the request's transaction)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(INLINE_THREADS, thread_name_prefix="key-fetch")
    future = _pool.submit(function, *args)
    try:
        return future.result(timeout=INLINE_BUDGET)
    except FutureTimeout:
        future.cancel()  # not started yet (the pool was full): never started
        raise Later(f"the key's server did not answer within {INLINE_BUDGET:g} s") from None


def domain_of(uri):
    """The host of ``uri``, lowercased; "" for anything that is not a URL with one."""
    if not isinstance(uri, str):
        return ""
    try:
        return (urlsplit(uri).hostname or "").lower()
    except ValueError:  # "https://[x": not a URL
        return ""


def usable_url(value):
    """Whether ``value`` is an http(s) address a request can be made to (a port that is
    a number, a host of ASCII letters), short enough to keep."""
    if (
        not isinstance(value, str)
        or len(value) > 500
        or not value.startswith(("https://", "http://"))
    ):
        return False
    try:
        url = httpx.URL(value)
        url.port  # noqa: B018 (raises for a port that is not a number)
    except (httpx.InvalidURL, ValueError, UnicodeError):
        return False
    return bool(domain_of(value)) and value.isascii()


def is_blocked_domain(domain):
    """Whether ``domain`` or a domain above it is blocked."""
    parts = domain.lower().rstrip(".").split(".")
    candidates = [".".join(parts[i:]) for i in range(len(parts) - 1)] or [domain]
    return BlockedDomain.objects.filter(domain__in=candidates).exists()


def fetch_json(url, site=None):
    """The ActivityStreams document at ``url``, fetched with the site actor's signature
    (``site``: the site's actor, read beforehand where the database must not be)."""
    if not usable_url(url):
        raise FetchFailed(f"{url} is not a usable http(s) address")
    site = site or site_actor()
    headers = sign("GET", url, site.private_key_pem, key_id(site), headers={"Accept": ACCEPT})
    headers["User-Agent"] = settings.SKILLO_FEDIVERSE_USER_AGENT
    try:
        with client().stream("GET", url, headers=headers) as response:
            if response.status_code != 200:
                raise FetchFailed(f"{url} answered {response.status_code}")
            body = read_limited(response, MAX_DOCUMENT)
    except httpx.TransportError as error:
        raise Unanswered(f"{url}: {error}") from None
    except (httpx.HTTPError, httpx.InvalidURL, AddressRefused, TooLarge, UnicodeError) as error:
        raise FetchFailed(f"{url}: {error}") from None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        raise FetchFailed(f"{url} did not answer JSON") from None
    if not isinstance(document, dict):
        raise FetchFailed(f"{url} did not answer a JSON object")
    return document


def first(value):
    if isinstance(value, list):
        return value[0] if value else None
    return value


def ident(value):
    value = first(value)
    return value.get("id") if isinstance(value, dict) else value


def store_actor(uri, document):
    """A RemoteActor from the actor ``document`` fetched at ``uri``."""
    inbox = document.get("inbox")
    if not usable_url(uri) or not usable_url(inbox):
        raise FetchFailed(f"{uri} has no usable address or inbox")
    if document.get("id") != uri or domain_of(uri) != domain_of(inbox):
        raise FetchFailed(f"{uri} answered another actor, or an inbox on another server")
    key = document.get("publicKey")
    key = first(key) if isinstance(key, list) else key
    if not isinstance(key, dict) or ident(key.get("owner")) != uri:
        raise FetchFailed(f"{uri} has no public key of its own")
    if not isinstance(key.get("id"), str) or domain_of(key["id"]) != domain_of(uri):
        raise FetchFailed(f"{uri} names a key on another server")
    if not isinstance(key.get("publicKeyPem"), str):
        raise FetchFailed(f"{uri} has no public key")
    endpoints = document.get("endpoints") if isinstance(document.get("endpoints"), dict) else {}
    shared = endpoints.get("sharedInbox") or ""
    if not usable_url(shared) or domain_of(shared) != domain_of(uri):
        shared = ""
    fields = {
        "domain": domain_of(uri),
        "inbox": document["inbox"],
        "shared_inbox": shared,
        "key_id": key["id"][:500],
        "public_key_pem": key["publicKeyPem"][:10_000],
        "username": str(document.get("preferredUsername") or "")[:200],
        "name": str(document.get("name") or "")[:200],
        "url": url if usable_url(url := ident(document.get("url"))) else "",
        "fetched_at": timezone.now(),
    }
    actor, _ = RemoteActor.objects.update_or_create(uri=uri, defaults=fields)
    return actor


def fetch_actor(uri):
    return store_actor(uri, fetch_json(uri))


def actor_for_key(key_id_url, refresh=False, inline=False):
    """The RemoteActor whose key ``key_id_url`` names: kept, or fetched (``refresh``:
    fetched again unless it was a moment ago); ``inline``: within INLINE_BUDGET or
    Later."""
    actor = RemoteActor.objects.filter(key_id=key_id_url, domain=domain_of(key_id_url)).first()
    if actor is not None and not refresh:
        return actor
    if actor is not None and timezone.now() - actor.fetched_at < REFETCH_AFTER:
        return actor
    if is_blocked_domain(domain_of(key_id_url)):
        raise FetchFailed("blocked")
    failed = f"fediverse:key-failed:{hashlib.sha256(key_id_url.encode()).hexdigest()}"
    if cache.get(failed):
        # Fetched and refused a moment ago: requests naming it do not each fetch it again.
        raise FetchFailed(f"the key {key_id_url} could not be fetched a moment ago")
    try:
        return fetch_key_owner(key_id_url, inline)
    except Unanswered:
        raise  # the host is backed off: the key is asked for again once it may be
    except FetchFailed:
        cache.set(failed, 1, timeout=FAILED_FOR)
        raise


def fetch_key_owner(key_id_url, inline=False):
    """The key's owner, fetched within its host's budget (outbound.BackedOff at once if
    the host is backed off); ``inline``: within INLINE_BUDGET too."""
    site = site_actor()
    domain = domain_of(key_id_url)
    reserved = INLINE_BUDGET if inline else budget.RESERVED
    # A host that did not answer last time is asked again within the site's allowance
    # for such hosts too: a flood naming many silent hosts costs the worker at most
    # FEDIVERSE_RETRY_SECONDS a minute once each has had its first chance.
    allowance = (
        budget.spending(RETRIES, reserved, settings.SKILLO_FEDIVERSE_RETRY_SECONDS)
        if not inline and budget.failing(domain)
        else nullcontext()
    )
    # Counted here, not in fetch_json: an inline fetch runs in a thread that must not
    # touch the database.
    with allowance, budget.spending(domain, reserved) as request:
        try:
            if inline:
                document = within_budget(key_owner_document, key_id_url, site)
            else:
                document = key_owner_document(key_id_url, site)
        except Unanswered:
            request.failed()
            raise
        except Later:
            request.unknown()  # still waiting, in the pool's thread
            raise
    return store_actor(document["id"], document)


def key_owner_document(key_id_url, site):
    """The actor document owning the key ``key_id_url``, checked (the network only)."""
    document = fetch_json(urldefrag(key_id_url).url, site)
    if document.get("type") in {"Key", "CryptographicKey"} or "owner" in document:
        owner = ident(document.get("owner"))
        if not isinstance(owner, str) or domain_of(owner) != domain_of(key_id_url):
            raise FetchFailed(f"the key {key_id_url} has no owner on its own server")
        document = fetch_json(owner, site)
    if not isinstance(document.get("id"), str) or domain_of(document["id"]) != domain_of(
        key_id_url
    ):
        raise FetchFailed(f"the key {key_id_url} belongs to an actor on another server")
    key = document.get("publicKey")
    key = first(key) if isinstance(key, list) else key
    if not isinstance(key, dict) or key.get("id") != key_id_url:
        # Checked before anything is kept: a refused key leaves no row behind.
        raise FetchFailed(f"{document['id']} does not own the key {key_id_url}")
    return document
