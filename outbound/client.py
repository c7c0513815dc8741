"""A blocking HTTP client for Skillo's own requests to other servers (the fediverse's
deliveries and key fetches): every connection goes through outbound.addresses' checks,
redirects are never followed, and a body is read up to a limit, never whole.

One client per process, kept: its pool reuses connections to a server (a delivery
to 500 instances makes 500 connections, not one per activity)."""

import threading

import httpx

from .addresses import PinnedSyncTransport, Refused

__all__ = ["Refused", "TooLarge", "client", "read_limited"]

TIMEOUT = httpx.Timeout(10.0, connect=5.0)

_local = threading.local()


class TooLarge(Exception):
    """The answer's body is bigger than the caller accepts."""


def client():
    """This thread's client (httpx's pool is not shared between threads)."""
    found = getattr(_local, "client", None)
    if found is None:
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=50)
        found = _local.client = httpx.Client(
            transport=PinnedSyncTransport(limits),
            timeout=TIMEOUT,
            follow_redirects=False,
        )
    return found


def read_limited(response, limit):
    """The body of a streamed ``response``, or TooLarge past ``limit`` bytes."""
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the answer is over {limit} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
