"""The rule for Skillo's own outgoing requests (outbound.addresses): an IPv6 address that
carries an IPv4 address (IPv4-compatible, IPv4-mapped, NAT64, 6to4, Teredo) is judged by
the IPv4 address too. Python's ``ipaddress`` calls ``[::127.0.0.1]`` and
``[64:ff9b::7f00:1]`` global, and both reached this machine (issue 44)."""

from ipaddress import ip_address

import pytest

from outbound.addresses import Refused, checked_address
from sources.checker import Politeness, check_all

REFUSED = [
    ("::127.0.0.1", "IPv4-compatible, loopback"),
    ("::10.0.0.1", "IPv4-compatible, private"),
    ("::169.254.169.254", "IPv4-compatible, a cloud's metadata service"),
    ("::ffff:127.0.0.1", "IPv4-mapped, loopback"),
    ("::ffff:192.168.1.1", "IPv4-mapped, private"),
    ("::ffff:0:127.0.0.1", "IPv4-translated, loopback"),
    ("64:ff9b::7f00:1", "NAT64, loopback"),
    ("64:ff9b::a9fe:a9fe", "NAT64, a cloud's metadata service"),
    ("64:ff9b::a00:1", "NAT64, private"),
    ("64:ff9b:1::7f00:1", "NAT64 for local use, loopback at /96"),
    ("64:ff9b:1:7f00:0:1::", "NAT64 for local use, loopback at /48"),
    ("64:ff9b:1:0:a:1::", "NAT64 for local use, private at /64"),
    ("2002:7f00:1::", "6to4, loopback"),
    ("2002:c0a8:101::1", "6to4, private"),
    ("2002:a9fe:a9fe::", "6to4, a cloud's metadata service"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo, a loopback client"),
    ("2001:0:7f00:1:8000:63bf:f7f7:f7f7", "Teredo, a loopback server"),
    ("2001:0:4136:e378:8000:63bf:f5ff:fffe", "Teredo, a private client"),
    ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", "Teredo, public both: all of 2001::/32"),
    ("::1", "loopback"),
    ("fd00::1", "unique local"),
    ("127.0.0.1", "IPv4 loopback"),
]
ALLOWED = [
    ("::8.8.8.8", "IPv4-compatible, public"),
    ("::ffff:8.8.8.8", "IPv4-mapped, public"),
    ("::ffff:0:8.8.8.8", "IPv4-translated, public"),
    ("64:ff9b::808:808", "NAT64, public"),
    ("64:ff9b:1:808:8:808:808:808", "NAT64 for local use, public at every prefix length"),
    ("2002:808:808::1", "6to4, public"),
    ("2606:4700:4700::1111", "plain IPv6, public"),
    ("8.8.8.8", "IPv4, public"),
]


@pytest.mark.parametrize(("address", "form"), REFUSED, ids=[form for _, form in REFUSED])
def test_an_address_that_is_or_carries_a_non_public_one_is_refused(address, form):
    with pytest.raises(Refused, match="non-public address"):
        checked_address(address, 443)


@pytest.mark.parametrize(("address", "form"), ALLOWED, ids=[form for _, form in ALLOWED])
def test_an_address_that_carries_a_public_one_is_allowed(address, form):
    assert ip_address(checked_address(address, 443)) == ip_address(address)


@pytest.mark.parametrize("address", ["::127.0.0.1", "64:ff9b::7f00:1"])
def test_a_source_check_of_a_loopback_carrier_is_refused_before_connecting(address):
    [outcome] = check_all([f"http://[{address}]:9/"], Politeness(timeout=0.5, backoff=0.05))
    assert outcome.error.startswith(f"refused: {address} resolves to a non-public address")
