"""The article list's cursors, signed with the site's SECRET_KEY: a cursor is valid only
if this API made it. DRF's own are base64 of a query string, so any string that decoded
to something (``' OR 1=1--`` did) was read as a cursor without a position, the first
page; a forged position was read as a place to start. Signed, neither is: a 400.

No model, no app: tests/api/schemathesis_hooks.py signs its cursors with this module
outside Django's setup."""

import base64

from django.core import signing

SALT = "api.cursor"


class BadCursor(ValueError):
    """Not a cursor this API made (or made with a key it no longer has)."""


def signer(key=None):
    # Outside Django's setup the key is given, and there are no fallback keys to read.
    if key is None:
        return signing.Signer(salt=SALT, sep=".")
    return signing.Signer(key=key, salt=SALT, sep=".", fallback_keys=[])


def sign(querystring, key=None):
    """``querystring`` (DRF's cursor tokens, ``o=20&p=...``) as a cursor: URL-safe
    base64 and its signature, so that a link needs no escaping."""
    value = base64.urlsafe_b64encode(querystring.encode("ascii")).decode("ascii").rstrip("=")
    return signer(key).sign(value)


def unsign(cursor):
    """The query string ``cursor`` was made from; BadCursor for anything else."""
    try:
        value = signer().unsign(cursor)
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)).decode("ascii")
    except (signing.BadSignature, ValueError) as error:
        raise BadCursor(cursor) from error
