"""What the OpenAPI schema says of each answer, held against the answer itself: the
fields' formats, and the 400, 401, 404 and 429 bodies a client gets."""

import re

import pytest

from tests.factories import ArticleFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(api):
    return api.get("/api/v1/schema/").json()


def test_facts_verified_is_declared_as_the_month_it_is(api, schema):
    ArticleFactory()
    declared = schema["components"]["schemas"]["Article"]["properties"]["facts_verified"]
    value = api.json("/api/v1/articles/")["results"][0]["facts_verified"]
    assert "format" not in declared  # "date" would promise YYYY-MM-DD
    assert re.fullmatch(declared["pattern"].strip("^$"), value)
