"""A blocking HTTP client for Skillo's own requests to other servers (the fediverse's
deliveries and key fetches): every connection goes through outbound.addresses' checks,
redirects are never followed, and a body is read up to a limit, never whole.

One client per process, kept: its pool reuses connections to a server (a delivery
to 500 instances makes 500 connections, not one per activity)."""

import threading
import time

import httpx

from .addresses import PinnedSyncTransport, Refused

__all__ = ["Refused", "TooLarge", "client", "read_limited"]

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
TOTAL_SECONDS = 20

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
            # A proxy from the environment would connect for us, past the address checks.
            trust_env=False,
        )
    return found


def read_limited(response, limit, seconds=TOTAL_SECONDS):
    """The body of a streamed ``response``, or TooLarge past ``limit`` bytes or past
    ``seconds`` in all (the timeout is per read: a byte every 9 s would never end)."""
    chunks, size = [], 0
    deadline = time.monotonic() + seconds
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise TooLarge(f"the answer is over {limit} bytes")
        if time.monotonic() > deadline:
            raise TooLarge(f"the answer took over {seconds} s")
        chunks.append(chunk)
    return b"".join(chunks)
