"""No value of a public page's query parameter makes a 500 (issue 56.11: ``/?page=`` with
23 digits was "bigint out of range" on PostgreSQL, and an overflow on SQLite): a property
test (Hypothesis) of what a browser, a crawler or an attacker may put in the address."""

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from live.models import Entry, LiveCoverage
from tests.factories import ArticleFactory, AuthorFactory

pytestmark = pytest.mark.django_db

# Any text, and the values that broke or nearly broke a page before: numbers past any
# column's range, signs, exponents, other scripts' digits (int() takes "٣" but not "²").
values = st.one_of(
    st.text(max_size=40),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.sampled_from(
        ["\x00", "1\x00", "²", "٣", "1e9", "-0", "+3", " 3", "3_0", "last", "0", "9" * 400]
    ),
)

# Every public address that reads a query parameter, with the parameters it reads.
PAGES = {
    "/": ["page"],
    "/tags/": ["page"],
    "/tags/python/": ["page"],
    "/authors/ada-lovelace/": ["page"],
    "/archive/2024/": ["page"],
    "/archive/2024/7/": ["page"],
    "/corrections/": ["page"],
    "/search/": ["q", "page"],
    "/newsletter/archive/": ["page"],
    "/live/{live}/": ["page", "order"],
    "/live/{live}/updates/": ["since", "page"],
    "/api/v1/articles/": ["page_size", "cursor", "q", "tag", "author", "ordering"],
    "/api/v1/tags/": ["page"],
    "/api/v1/authors/": ["page"],
}


@pytest.fixture
def site():
    author = AuthorFactory(name="Ada Lovelace", slug="ada-lovelace")
    article = ArticleFactory(title="Python ships", tags=["python"], authors=[author])
    coverage = LiveCoverage.objects.create(
        article=ArticleFactory(title="Keynote"),
        state=LiveCoverage.State.LIVE,
        starts_at=timezone.now(),
    )
    Entry.objects.create(coverage=coverage, body="It starts.")
    return {"live": coverage.pk, "article": article}


@pytest.mark.parametrize("path", PAGES)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
@example(data=None)
def test_no_query_value_makes_a_server_error(site, path, data):
    address = path.format(**site)
    names = PAGES[path]
    if data is None:
        # The case that was found: a page number past any column's range, in every parameter.
        query = dict.fromkeys(names, "99999999999999999999999")
    else:
        query = {name: data.draw(values, label=name) for name in names}
    response = Client(raise_request_exception=True).get(address, query)
    assert response.status_code < 500, (address, query)


# Every public form, with the fields it reads; {story} and {comment} are filled in.
FORMS = {
    "/newsletter/": ["email", "what", "frequency", "topics", "authors", "website"],
    "/account/": ["email", "next", "website"],
    "/account/name/": ["name"],
    "/account/stories/{story}/write/": ["body", "parent", "website"],
    "/account/comments/{comment}/edit/": ["body"],
    "/comments/{comment}/report/": ["reason"],
    "/account/stories/{story}/save/": ["next"],
}


@pytest.fixture
def member(site, settings):
    from members.models import Comment, CommentSettings, Member, MemberSession, token_hash

    CommentSettings.objects.create(first_comment_waits=False)
    ada = Member.objects.create(email="ada@example.org", name="Ada")
    MemberSession.objects.create(
        member=ada, token=token_hash("secret"), expires_at=timezone.now() + timedelta(days=1)
    )
    comment = Comment.objects.create(
        article=site["article"], member=ada, body="First", body_html="<p>First</p>",
        state=Comment.State.APPROVED,
    )  # fmt: skip
    client = Client(raise_request_exception=True)
    client.cookies[settings.MEMBER_COOKIE_NAME] = "secret"
    return client, {"story": site["article"].pk, "comment": comment.pk}


@pytest.mark.parametrize("path", FORMS)
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
@example(data=None)
def test_no_form_value_makes_a_server_error(member, path, data):
    client, ids = member
    address = path.format(**ids)
    names = FORMS[path]
    if data is None:
        # The cases that were found: NUL in a text, a digit no int() reads.
        form = dict.fromkeys(names, "a\x00b") | {"parent": "²"}
    else:
        form = {name: data.draw(values, label=name) for name in names}
    response = client.post(address, form)
    assert response.status_code < 500, (address, form)
