"""The public half of the DKIM key, as the DNS record publishes it (RFC 6376, 3.6.1):
SubjectPublicKeyInfo in DER, base64. Encoded here, a few lines, rather than by adding a
cryptography library for one call; dkimpy reads the private key."""

import base64
from functools import cache
from pathlib import Path

from django.conf import settings
from dkim.crypto import parse_pem_private_key

# 1.2.840.113549.1.1.1, rsaEncryption
RSA_ENCRYPTION = bytes.fromhex("06092a864886f70d010101")


def _der(tag, content):
    size = len(content)
    if size < 0x80:
        length = bytes([size])
    else:
        raw = size.to_bytes((size.bit_length() + 7) // 8, "big")
        length = bytes([0x80 | len(raw)]) + raw
    return bytes([tag]) + length + content


def _integer(value):
    raw = value.to_bytes(value.bit_length() // 8 + 1, "big")  # a leading 0 keeps it positive
    return _der(0x02, raw)


def public_key(pem):
    key = parse_pem_private_key(pem)
    rsa = _der(0x30, _integer(key["modulus"]) + _integer(key["publicExponent"]))
    algorithm = _der(0x30, RSA_ENCRYPTION + _der(0x05, b""))
    return _der(0x30, algorithm + _der(0x03, b"\x00" + rsa))


def dns_record(pem):
    """The TXT record's value."""
    return f"v=DKIM1; k=rsa; p={base64.b64encode(public_key(pem)).decode()}"


def private_key():
    """The signing key's PEM: DKIM_PRIVATE_KEY itself, or the file DKIM_PRIVATE_KEY_FILE
    names (OSError if it cannot be read); None when neither is set."""
    if settings.DKIM_PRIVATE_KEY:
        return settings.DKIM_PRIVATE_KEY.encode()
    if settings.DKIM_PRIVATE_KEY_FILE:
        return _read(settings.DKIM_PRIVATE_KEY_FILE)
    return None


def key_source():
    """Where the key comes from, as an operator set it: for messages about it."""
    if settings.DKIM_PRIVATE_KEY:
        return "DKIM_PRIVATE_KEY"
    return f"DKIM_PRIVATE_KEY_FILE {settings.DKIM_PRIVATE_KEY_FILE}"


@cache
def _read(path):
    return Path(path).read_bytes()
