"""RSA key pairs for Skillo's actors (2,048 bits, as Mastodon makes its own)."""

import functools

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def new_key_pair():
    """(public PEM, private PEM) of a new key."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return public, private


@functools.lru_cache(maxsize=256)
def load_private(pem):
    # Kept: loading checks the key, 30 ms, more than signing (0.4 ms) and than most
    # deliveries' round trip (bench/fediverse.py).
    return serialization.load_pem_private_key(pem.encode(), password=None)


def load_public(pem):
    return serialization.load_pem_public_key(pem.encode())
