"""A database outage answers 503 with Retry-After, never a 500 traceback.

``server_error`` is the project's handler500 (skillo/urls.py). Django calls it for any
exception that escapes a view *or a middleware* (sessions, authentication, axes and the
page cache read the database too), so checking the exception here covers them all.
Recovery needs nothing from us: Django drops a connection that saw an error at the end
of the request and opens a new one on the next, and CONN_HEALTH_CHECKS (settings) tests
a kept connection before reusing it. (With DEBUG on, Django shows its debug page instead
and never calls handler500.)

An editor whose admin save fails is shown what they submitted, so no typed text is lost.
The same holds when SQLite stays busy with other writes past its busy timeout (settings:
SQLITE_BUSY_TIMEOUT): "database is locked" is a 503 saying so, with the text shown back;
and when the disk is full (a file, SQLite or PostgreSQL could not write), the 503 says
that, the cause an operator must act on.
"""

import re
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template import loader
from django.utils.cache import add_never_cache_headers
from django.views import defaults

from maintenance.disks import no_space_left

RETRY_AFTER_SECONDS = 30
# Busy is over as soon as the other writes are: worth trying again much sooner.
RETRY_AFTER_BUSY_SECONDS = 5
# Fields of an admin form that the editor did not type, or that must never be echoed.
NOT_ECHOED = re.compile(
    r"csrfmiddlewaretoken|.*password.*|_.*|initial-.*|loaded_version|action|index"
    r"|select_across|.*-(TOTAL_FORMS|INITIAL_FORMS|MIN_NUM_FORMS|MAX_NUM_FORMS|id|DELETE)",
    re.IGNORECASE,
)


def database_unavailable(error):
    """True for a refused, dropped or timed-out connection, also when re-raised."""
    while error is not None:
        if isinstance(error, OperationalError | InterfaceError):
            return True
        error = error.__cause__
    return False


def database_busy(error):
    """True for SQLite's "database is locked": other writes held it past the timeout."""
    while error is not None:
        if isinstance(error, OperationalError) and "database is locked" in str(error):
            return True
        error = error.__cause__
    return False


def server_error(request):
    error = sys.exc_info()[1]
    # Before the database's other errors: SQLite says a full disk with the same class.
    if no_space_left(error):
        return service_unavailable(request, no_space=True)
    if database_unavailable(error):
        return service_unavailable(request, busy=database_busy(error))
    return defaults.server_error(request)


def service_unavailable(request, busy=False, no_space=False):
    # No request in the context: context processors (the header's topics) would query.
    context = {"unsaved": unsaved_fields(request), "busy": busy, "no_space": no_space}
    content = loader.render_to_string("503.html", context)
    response = HttpResponse(content, status=503)
    response["Retry-After"] = str(RETRY_AFTER_BUSY_SECONDS if busy else RETRY_AFTER_SECONDS)
    # Neither the outage nor an editor's text may be kept by a browser, proxy or CDN.
    add_never_cache_headers(response)
    return response


def unsaved_fields(request):
    """(label, text) of each field of a failed admin POST, for the editor to copy back.

    Only for the admin and only once the CSRF check has passed, so a page elsewhere
    cannot make the site echo text at a reader; the template escapes it all the same.
    """
    match = request.resolver_match
    if (
        request.method != "POST"
        or not getattr(request, "csrf_processing_done", False)
        or match is None
        or match.app_name != "admin"
        or match.url_name == "login"
    ):
        return []
    return [
        (field_label(name), value)
        for name, values in request.POST.lists()
        if not NOT_ECHOED.fullmatch(name)
        for value in values
        if value.strip()
    ]


def field_label(name):
    """'sources-0-url' -> 'Sources 1 url', 'event_date' -> 'Event date'."""
    words = [str(int(part) + 1) if part.isdigit() else part for part in name.split("-")]
    return " ".join(words).replace("_", " ").capitalize()
