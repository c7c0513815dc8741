"""Requests sent at the same instant to a live server, for the rules that hold at most
once (an invitation is used once, one lead story, one like per actor...).

Each request goes out from a thread of its own over a connection of its own (a
``requests.Session`` per sender); the live server (pytest-django's ``live_server``)
answers each in a thread of its own with a database connection of its own; a
``threading.Barrier`` releases the senders together. The test then counts the effect in
the database: exactly one, whoever won.

SQLite's in-memory test database is shared between the server's threads through
SQLite's shared cache, whose table locks fail at once ("database table is locked")
instead of waiting: these tests run on PostgreSQL only (``POSTGRESQL_ONLY``), as
tests/test_concurrency.py does."""

import contextlib
import re
import threading
from collections import Counter

import pytest
import requests
from django.conf import settings
from django.db import connection
from django.test import Client

# How many requests race: more than two, so that a rule held "by luck" for one loser
# is seen failing for another; no more than the two cores of CI answer in a few seconds.
RACERS = 6

POSTGRESQL_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason=(
        "needs PostgreSQL: SQLite's test database is a shared-cache in-memory database "
        "whose table locks fail at once instead of waiting, and SQLite runs one writer "
        "at a time anyway"
    ),
)

CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def together(calls, timeout=120):
    """Call each of ``calls`` in a thread of its own, all released at the same moment;
    what each returned (or raised), in order."""
    start = threading.Barrier(len(calls))
    results = [None] * len(calls)

    def run(index, call):
        try:
            start.wait(timeout)
            results[index] = call()
        except BaseException as error:  # reported by the test, not lost in the thread
            results[index] = error

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)  # returns as soon as the thread ends
    if any(thread.is_alive() for thread in threads):
        pytest.fail(f"a request was still waiting after {timeout} s")
    return results


def outcomes(responses):
    """How many answers of each status (an exception, by its repr)."""
    return Counter(
        repr(response) if isinstance(response, BaseException) else response.status_code
        for response in responses
    )


class Browser:
    """Someone at a browser of their own: a connection, cookies, the CSRF token of the
    last form read; logged in as ``user`` if given."""

    def __init__(self, live_server, user=None):
        self.base = live_server.url
        self.session = requests.Session()
        self.csrf = ""
        if user is not None:
            client = Client()
            client.force_login(user)
            name = settings.SESSION_COOKIE_NAME
            self.session.cookies.set(name, client.cookies[name].value)

    def get(self, path):
        response = self.session.get(self.base + path, timeout=60)
        found = CSRF_INPUT.search(response.text)
        if found:
            self.csrf = found.group(1)
        return response

    def post(self, path, data=None, **kwargs):
        """A form's POST, with the token of the form read last; redirects not followed."""
        data = {"csrfmiddlewaretoken": self.csrf, **(data or {})}
        return self.session.post(
            self.base + path, data=data, allow_redirects=False, timeout=60, **kwargs
        )

    def sender(self, path, data=None, **kwargs):
        """The POST as a call, for ``together``."""
        return lambda: self.post(path, data, **kwargs)


@contextlib.contextmanager
def writes_of(table, column):
    """A count of the rows whose ``column`` of ``table`` an UPDATE wrote while in the block
    (a PostgreSQL trigger's count): for an effect that leaves no row of its own, such as a
    confirmation written again over the first."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE test_writes (n serial PRIMARY KEY)")
        cursor.execute(
            "CREATE FUNCTION test_count_write() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN INSERT INTO test_writes DEFAULT VALUES; RETURN NEW; END $$"
        )
        cursor.execute(
            f"CREATE TRIGGER test_count_write AFTER UPDATE OF {column} ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION test_count_write()"
        )

    def count():
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM test_writes")
            return cursor.fetchone()[0]

    try:
        yield count
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TRIGGER test_count_write ON {table}")
            cursor.execute("DROP FUNCTION test_count_write()")
            cursor.execute("DROP TABLE test_writes")
