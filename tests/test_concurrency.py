"""Twenty editors create articles with the same title at the same moment.

Each request goes through the whole admin path (session, CSRF middleware, form, inlines,
revision) in its own thread with its own database connection, all released together.
"""

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test import Client

from news.models import Article

from .test_admin import ADD_URL, form_data

EDITORS = 20

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(
        connection.vendor != "postgresql",
        reason=(
            "needs PostgreSQL: SQLite's test database is a shared-cache in-memory database "
            "whose table locks fail at once instead of waiting, and SQLite runs one writer "
            "at a time anyway"
        ),
    ),
]


def post_together(clients, data):
    """POST ``data`` to the add view from every client at once; the responses."""
    start = threading.Barrier(len(clients))
    responses = [None] * len(clients)

    def run(i, client):
        try:
            start.wait()
            responses[i] = client.post(ADD_URL, data)
        except BaseException as error:  # reported by the test, not lost in the thread
            responses[i] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return responses


@pytest.fixture
def editors(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    clients = []
    for _ in range(EDITORS):
        # got_request_exception reaches every client in flight, so a client that raised
        # would blame the other threads' requests for its error: read status codes instead.
        client = Client(raise_request_exception=False)
        client.force_login(user)
        clients.append(client)
    return clients


def outcome(response):
    if isinstance(response, BaseException):
        return repr(response)
    return response.status_code


def test_same_title_without_a_slug_gives_each_article_its_own_slug(editors):
    responses = post_together(editors, form_data(slug=""))
    assert Counter(map(outcome, responses)) == {302: EDITORS}
    slugs = sorted(Article.objects.values_list("slug", flat=True))
    assert len(slugs) == EDITORS
    assert len(set(slugs)) == EDITORS
    assert "go-1-22-released" in slugs


def test_same_prefilled_slug_saves_once_and_tells_everyone_else(editors):
    # The admin fills the slug in from the title, so the browsers all send the same one.
    responses = post_together(editors, form_data())
    assert Counter(map(outcome, responses)) == {302: 1, 200: EDITORS - 1}
    for response in responses:
        if response.status_code == 200:
            assert "A story at this address already exists" in response.content.decode()
    assert list(Article.objects.values_list("slug", flat=True)) == ["go-1-22-released"]
