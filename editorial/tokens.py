"""The secret links the newsroom sends (preview links, invitations): a random token of
32 bytes in the link, only its SHA-256 kept, and pages that nobody keeps or indexes."""

import hashlib
import secrets


def new_token():
    """(the token for the link, the hash to keep)."""
    token = secrets.token_urlsafe(32)
    return token, digest(token)


def digest(token):
    return hashlib.sha256(token.encode()).hexdigest()


def kept_by_no_one(response, referrer_policy):
    """A page opened by a secret link: no cache keeps it, no search engine indexes it,
    and its address is not sent on (``referrer_policy``)."""
    response["Cache-Control"] = "no-store, private"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = referrer_policy
    return response
