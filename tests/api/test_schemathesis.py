"""The API against its own OpenAPI schema, by schemathesis: every answer's status, body,
headers and media type as documented, schema-valid requests answered, schema-invalid
ones refused. Through the WSGI application in this process (no server), on a few
articles with topics, authors and a month of facts checked."""

import json

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.renderers import OpenApiJsonRenderer
from hypothesis import HealthCheck, settings
from rest_framework.throttling import AnonRateThrottle

from skillo.wsgi import application
from tests.api import schemathesis_hooks  # noqa: F401 (the cursor format, the date ranges)
from tests.factories import ArticleFactory


@pytest.fixture(autouse=True)
def requests_keep_the_test_transaction(db):
    """As Django's test client does: a request's start and end close the connection when
    it is in a transaction, which on PostgreSQL ends the test's own. (schemathesis calls
    the WSGI application itself.)"""
    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture(autouse=True)
def content(db, monkeypatch):
    # Hundreds of requests from one address: the limit would answer most of them with
    # a 429 (documented, so no failure) and leave the rest of the API untested.
    monkeypatch.setitem(AnonRateThrottle.THROTTLE_RATES, "anon", "1000000/min")
    ArticleFactory(title="Kernel release", tags=["Linux"], authors=["Ann Lee"])
    ArticleFactory(title="Compiler news", tags=["Rust", "Go"], authors=["Bo Chen", "Ann Lee"])
    ArticleFactory(title="Desk note")


def generated_schema():
    """What /api/v1/schema/ serves, made without a request. schemathesis.pytest needs its
    schema when pytest collects, before any test may use the database (a request does:
    the page cache's purges); and its lazy loader (from_fixture) fails on pytest 9
    (it reads the node's private ``_nodeid``, which pytest 9 no longer has)."""
    return json.loads(OpenApiJsonRenderer().render(SchemaGenerator().get_schema(public=True)))


schema = schemathesis.openapi.from_dict(generated_schema())
schema.app = application  # as schemathesis.openapi.from_wsgi sets it


def test_the_schema_tested_is_the_one_served(api):
    assert api.get("/api/v1/schema/").json() == generated_schema()


@schema.parametrize()
# Bounded: about 30 s for the six operations on a busy machine; st run goes further
# (docs/api.md). Every check is on (schemathesis' default, as --checks all). The
# function-scoped articles are what each example reads, and no example changes them.
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
def test_the_api_answers_as_its_schema_says(case):
    # The WSGI client does not decode compressed answers as an HTTP client does.
    case.call_and_validate(headers={"Accept-Encoding": "identity"})
