"""The reader's address when Skillo runs behind reverse proxies (TRUSTED_PROXY_COUNT)."""

import ipaddress

from django.conf import settings


def client_address(request):
    """The address that connected to the outermost trusted proxy (django-axes asks).

    Each proxy appends the address it was connected from to X-Forwarded-For, so behind N
    trusted proxies the reader's address is the N-th entry from the right; the entries to
    its left came from the client and may be forged. With no trusted proxy only the
    connection's own address counts.
    """
    remote = request.META.get("REMOTE_ADDR")
    count = settings.TRUSTED_PROXY_COUNT
    forwarded = [
        entry.strip()
        for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if entry.strip()
    ]
    if count <= 0 or not forwarded:
        return remote
    # Fewer entries than proxies: the request skipped the outer ones, so the left-most
    # entry is the farthest address a trusted proxy saw.
    address = forwarded[-min(count, len(forwarded))]
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        # A proxy that passes the header on without appending to it; not an address.
        return remote
