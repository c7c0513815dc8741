"""Other servers' actors: fetched (signed, as servers in secure mode ask), checked, and
kept as RemoteActor rows. Every fetch goes through outbound's address checks."""

import json
from datetime import timedelta
from urllib.parse import urldefrag, urlsplit

import httpx
from django.conf import settings
from django.utils import timezone

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


class FetchFailed(Exception):
    pass


def domain_of(uri):
    return (urlsplit(uri).hostname or "").lower()


def is_blocked_domain(domain):
    """Whether ``domain`` or a domain above it is blocked."""
    parts = domain.lower().rstrip(".").split(".")
    candidates = [".".join(parts[i:]) for i in range(len(parts) - 1)] or [domain]
    return BlockedDomain.objects.filter(domain__in=candidates).exists()


def fetch_json(url):
    """The ActivityStreams document at ``url``, fetched with the site actor's signature."""
    if urlsplit(url).scheme not in {"http", "https"}:
        raise FetchFailed(f"{url} is not an http(s) address")
    site = site_actor()
    headers = sign("GET", url, site.private_key_pem, key_id(site), headers={"Accept": ACCEPT})
    headers["User-Agent"] = settings.SKILLO_FEDIVERSE_USER_AGENT
    try:
        with client().stream("GET", url, headers=headers) as response:
            if response.status_code != 200:
                raise FetchFailed(f"{url} answered {response.status_code}")
            body = read_limited(response, MAX_DOCUMENT)
    except (httpx.HTTPError, AddressRefused, TooLarge) as error:
        raise FetchFailed(f"{url}: {error}") from None
    try:
        document = json.loads(body)
    except ValueError:
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
    if document.get("id") != uri or domain_of(uri) != domain_of(document.get("inbox", "")):
        raise FetchFailed(f"{uri} answered another actor, or an inbox on another server")
    key = document.get("publicKey")
    key = first(key) if isinstance(key, list) else key
    if not isinstance(key, dict) or ident(key.get("owner")) != uri:
        raise FetchFailed(f"{uri} has no public key of its own")
    endpoints = document.get("endpoints") if isinstance(document.get("endpoints"), dict) else {}
    shared = endpoints.get("sharedInbox") or ""
    if shared and domain_of(shared) != domain_of(uri):
        shared = ""
    fields = {
        "domain": domain_of(uri),
        "inbox": document["inbox"],
        "shared_inbox": shared,
        "key_id": key.get("id", ""),
        "public_key_pem": key.get("publicKeyPem", ""),
        "username": str(document.get("preferredUsername") or "")[:200],
        "name": str(document.get("name") or "")[:200],
        "url": url if isinstance(url := ident(document.get("url")), str) else "",
        "fetched_at": timezone.now(),
    }
    actor, _ = RemoteActor.objects.update_or_create(uri=uri, defaults=fields)
    return actor


def fetch_actor(uri):
    return store_actor(uri, fetch_json(uri))


def actor_for_key(key_id_url, refresh=False):
    """The RemoteActor whose key ``key_id_url`` names: kept, or fetched (``refresh``:
    fetched again unless it was a moment ago)."""
    actor = RemoteActor.objects.filter(key_id=key_id_url).first()
    if actor is not None and not refresh:
        return actor
    if actor is not None and timezone.now() - actor.fetched_at < REFETCH_AFTER:
        return actor
    if is_blocked_domain(domain_of(key_id_url)):
        raise FetchFailed("blocked")
    document = fetch_json(urldefrag(key_id_url).url)
    if document.get("type") in {"Key", "CryptographicKey"} or "owner" in document:
        owner = ident(document.get("owner"))
        if not isinstance(owner, str) or domain_of(owner) != domain_of(key_id_url):
            raise FetchFailed(f"the key {key_id_url} has no owner on its own server")
        document = fetch_json(owner)
    if not isinstance(document.get("id"), str) or domain_of(document["id"]) != domain_of(
        key_id_url
    ):
        raise FetchFailed(f"the key {key_id_url} belongs to an actor on another server")
    actor = store_actor(document["id"], document)
    if actor.key_id != key_id_url:
        raise FetchFailed(f"{actor.uri} does not own the key {key_id_url}")
    return actor
