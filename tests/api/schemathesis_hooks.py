"""What schemathesis needs to know of the content API beyond its schema: both rules the
schema can only state in words. Loaded by tests/api/test_schemathesis.py, and by
``st run`` started in the repository (schemathesis.toml).

- A cursor is opaque (``format: cursor``): valid only if this API made it, which it
  signs with its SECRET_KEY (api/cursors.py). Without these strategies schemathesis
  draws any string, and the API rightly answers 400. The cursors drawn here are DRF's
  kind without a position (an offset, and maybe reversed), which every ordering
  accepts, signed with the server's key: Django's settings' in the test process; for
  ``st run``, SECRET_KEY from the environment (give make serve the same), else the
  development settings' key.
- ``published_after`` must not be later than ``published_before``, nor ``event_after``
  than ``event_before``. A positive case that breaks this is not valid data, whatever
  each parameter's own schema says.

Plain Python, Hypothesis and api.cursors (Django's signing) only: no Django setup, so the
CLI can load it alone.
"""

import os
from datetime import date, datetime
from urllib.parse import urlencode

import schemathesis
from django.conf import settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from api import cursors

# DRF's CursorPagination.offset_cutoff: a larger offset is read as this one.
OFFSET_CUTOFF = 1000
RANGES = (("published_after", "published_before"), ("event_after", "event_before"))


def secret_key():
    """The key the server under test signs its cursors with."""
    if settings.configured:  # tests/api/test_schemathesis.py: the app in this process
        return settings.SECRET_KEY
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    from skillo.settings import base  # only here: it reads the environment as it loads

    return base.SECRET_KEY


def cursor(offset, reverse):
    # As ArticleCursor.encode_cursor writes one.
    tokens = {**({"o": offset} if offset else {}), **({"r": "1"} if reverse else {})}
    return cursors.sign(urlencode(tokens), key=secret_key())


schemathesis.openapi.format(
    "cursor",
    st.builds(cursor, st.integers(0, OFFSET_CUTOFF), st.booleans()).filter(bool),
)


def instant(value):
    """A date or date-time parameter as Python compares them, None if it is no such
    thing (a negative case's, which the API refuses for itself)."""
    try:
        return date.fromisoformat(value) if len(value) == 10 else datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return None


@schemathesis.hook
def filter_case(context, case):
    if case.meta is None or case.meta.generation.mode != GenerationMode.POSITIVE:
        return True
    query = case.query or {}
    for low, high in RANGES:
        start, end = instant(query.get(low)), instant(query.get(high))
        try:
            if start is not None and end is not None and start > end:
                return False
        except TypeError:  # a date-time with an offset beside one without
            continue
    return True
