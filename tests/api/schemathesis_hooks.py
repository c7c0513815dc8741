"""What schemathesis needs to know of the content API beyond its schema: both rules the
schema can only state in words. Loaded by tests/api/test_schemathesis.py, and by
``st run`` started in the repository (schemathesis.toml).

- A cursor is opaque (``format: cursor``): valid only if this API made it. Without
  these strategies schemathesis draws any string, and the API rightly answers 400. The
  cursors drawn here are DRF's own kind without a position (an offset, and maybe
  reversed), which every ordering accepts.
- ``published_after`` must not be later than ``published_before``, nor ``event_after``
  than ``event_before``. A positive case that breaks this is not valid data, whatever
  each parameter's own schema says.

Plain Python and Hypothesis only: no Django, so the CLI can load it alone.
"""

from base64 import b64encode
from datetime import date, datetime
from urllib.parse import urlencode

import schemathesis
from hypothesis import strategies as st
from schemathesis import GenerationMode

# DRF's CursorPagination.offset_cutoff: a larger offset is read as this one.
OFFSET_CUTOFF = 1000
RANGES = (("published_after", "published_before"), ("event_after", "event_before"))


def cursor(offset, reverse):
    # As CursorPagination.encode_cursor writes one.
    tokens = {**({"o": offset} if offset else {}), **({"r": "1"} if reverse else {})}
    return b64encode(urlencode(tokens).encode("ascii")).decode("ascii")


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
