"""Where Skillo's own outgoing requests may go: webhooks (api.delivery), source checks
(sources.checker), and whatever else fetches a URL that someone typed.

Such a URL must not reach this machine or its network (a database's HTTP port, a
cloud's metadata service at 169.254.169.254): every address its host resolves to must
be public. The connection then goes to the address that was checked, so DNS cannot
answer differently in between. ``SKILLO_ALLOW_PRIVATE_ADDRESSES`` (the environment's
``ALLOW_PRIVATE_ADDRESSES``) lifts the rule, to try a receiver on the same machine or
network; ``manage.py check --deploy`` warns while it is on.
"""

import asyncio
import ipaddress
import socket
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout

import httpcore
import httpx
from django.conf import settings


class Refused(Exception):
    """The request may not go to this address."""


# IPv6 prefixes whose addresses carry an IPv4 address that a gateway, a tunnel or the
# host's own stack may reach for them: (prefix, the bit offsets the IPv4 address may sit
# at). Python's ``is_global`` judges most of them by the prefix alone (::127.0.0.1 and
# 64:ff9b::7f00:1 are "global"), so the IPv4 address they carry is judged too.
CARRIERS = (
    (ipaddress.ip_network("::/96"), (96,)),  # IPv4-compatible (deprecated)
    (ipaddress.ip_network("::ffff:0:0/96"), (96,)),  # IPv4-mapped
    (ipaddress.ip_network("::ffff:0:0:0/96"), (96,)),  # IPv4-translated (SIIT)
    (ipaddress.ip_network("64:ff9b::/96"), (96,)),  # NAT64, the well-known prefix
    # NAT64 for local use: a network's translator may use any of RFC 6052's prefix
    # lengths within it, and which one is not known here, so every reading must be public.
    (ipaddress.ip_network("64:ff9b:1::/48"), (48, 56, 64, 96)),
    (ipaddress.ip_network("2002::/16"), (16,)),  # 6to4
)
TEREDO = ipaddress.ip_network("2001::/32")


def carried(address, prefix_length):
    """The IPv4 address that follows the first ``prefix_length`` bits of the IPv6
    ``address``: unbroken after 16 (6to4) and 96 bits, else as RFC 6052 puts it, around
    bits 64 to 71 (which carry none of it)."""
    bits = f"{int(address):0128b}"
    if prefix_length in (16, 96):
        value = bits[prefix_length : prefix_length + 32]
    else:
        value = (bits[prefix_length:64] + bits[72:])[:32]
    return ipaddress.IPv4Address(int(value, 2))


def carried_addresses(address):
    """The IPv4 addresses an IPv6 ``address`` may stand for: none for a plain one."""
    if address.version != 6:
        return []
    if address in TEREDO:  # the Teredo server's and the (obscured) client's
        return list(address.teredo)
    for network, offsets in CARRIERS:
        if address in network:
            return [carried(address, offset) for offset in offsets]
    return []


def is_public(address):
    """Whether ``address`` is public, and so is every IPv4 address it carries. (Python
    counts all of Teredo's 2001::/32 as not global: refused whatever it carries.)"""
    return address.is_global and all(v4.is_global for v4 in carried_addresses(address))


def allowed_addresses(host, found):
    """The addresses of ``found`` (getaddrinfo's answer for ``host``) if every one is
    allowed; Refused otherwise."""
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in found]
    if not settings.SKILLO_ALLOW_PRIVATE_ADDRESSES:
        for address in addresses:
            if not is_public(address):
                raise Refused(f"{host} resolves to a non-public address ({address})")
    return [str(address) for address in addresses]


# How long a blocking client waits for DNS when it names no connect timeout of its own.
RESOLVE_TIMEOUT = 5.0
# The C resolver behind getaddrinfo takes no timeout: a lookup runs in one of these
# threads and the caller stops waiting when its time is up. A resolver that never
# answers holds a thread until glibc's own retries end (its timeout x attempts), not a
# worker; lookups queued behind four such threads time out too, and are never started.
_resolvers = ThreadPoolExecutor(4, thread_name_prefix="resolve")


class ResolveTimeout(Exception):
    pass


def resolve(host, port, timeout=None):
    """getaddrinfo's answer for ``host`` within ``timeout`` seconds (ResolveTimeout past
    it; socket.gaierror as getaddrinfo raises it)."""
    future = _resolvers.submit(socket.getaddrinfo, host, port, type=socket.SOCK_STREAM)
    try:
        return future.result(timeout=timeout or RESOLVE_TIMEOUT)
    except FutureTimeout:
        future.cancel()
        raise ResolveTimeout(f"resolving {host} timed out") from None


def checked_address(host, port, timeout=None):
    """The address to connect to for ``host``, for a blocking client (http.client)."""
    try:
        found = resolve(host, port, timeout)
    except ResolveTimeout as error:
        raise Refused(str(error)) from None
    except socket.gaierror as error:
        raise Refused(f"cannot resolve {host}: {error.strerror}") from None
    return allowed_addresses(host, found)[0]


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting only to checked addresses; TLS is still
    checked against the host name, which httpcore passes on to ``start_tls``."""

    def __init__(self):
        self.backend = httpcore.AnyIOBackend()

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        try:
            async with asyncio.timeout(timeout):
                found = await asyncio.get_running_loop().getaddrinfo(
                    host, port, type=socket.SOCK_STREAM
                )
        except TimeoutError as error:
            raise httpcore.ConnectTimeout(f"resolving {host} timed out") from error
        except socket.gaierror as error:
            # An error httpx knows; its cause tells sources.checker that it was DNS.
            raise httpcore.ConnectError(f"cannot resolve {host}") from error
        *others, last = allowed_addresses(host, found)
        # Each in turn, as anyio does for httpx: a host's IPv6 address, say, may be
        # unreachable from here.
        for address in others:
            try:
                return await self.backend.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError:
                pass
        return await self.backend.connect_tcp(last, port, timeout, local_address, socket_options)

    async def sleep(self, seconds):
        await self.backend.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's transport on ``PinnedBackend``. Refused comes out of the request as it is."""

    def __init__(self, limits):
        super().__init__(limits=limits)
        # httpx has no parameter for httpcore's network backend (encode/httpx discussion
        # 3180), so its pool is replaced by one made as httpx makes it, on this backend.
        # tests/test_check_sources.py fails if an upgrade stops this from taking effect.
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedBackend(),
        )


class PinnedSyncBackend(httpcore.NetworkBackend):
    """``PinnedBackend`` for blocking clients (outbound.client)."""

    def __init__(self):
        self.backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        try:
            found = resolve(host, port, timeout)
        except ResolveTimeout as error:
            raise httpcore.ConnectTimeout(str(error)) from error
        except socket.gaierror as error:
            raise httpcore.ConnectError(f"cannot resolve {host}") from error
        *others, last = allowed_addresses(host, found)
        for address in others:
            try:
                return self.backend.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except httpcore.ConnectError:
                pass
        return self.backend.connect_tcp(last, port, timeout, local_address, socket_options)

    def sleep(self, seconds):
        self.backend.sleep(seconds)


class PinnedSyncTransport(httpx.HTTPTransport):
    def __init__(self, limits):
        super().__init__(limits=limits)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=PinnedSyncBackend(),
        )
