"""A member behind a real varnishd with deploy/varnish/skillo.vcl (issue 47): the
portal and the story's personal part reach the app with the member's cookie and are
never stored; the story's page stays one cached page for everyone. Needs varnishd and
gunicorn (tests/varnish/conftest.py): one of make test's server tests."""

import json
import os

import pytest

from tests.conftest import SHARED_SLUG
from tests.varnish.conftest import site, varnishd  # noqa: F401 (fixtures)
from tests.varnish.servers import get
from tests.varnish.test_varnish import cached, purge
from tests.waiting import poll

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)

ARTICLE = f"/articles/{SHARED_SLUG}/"
MEMBER = """
from datetime import timedelta
from django.utils import timezone
from members.models import Member, MemberSession, SavedStory, token_hash
from news.models import Article
member = Member.objects.create(email="ada@example.org")
MemberSession.objects.create(
    member=member, token=token_hash("ada-token"), expires_at=timezone.now() + timedelta(days=1)
)
article = Article.objects.get(slug="%s")
SavedStory.objects.create(member=member, article=article)
print(article.pk)
"""


@pytest.fixture(scope="module")
def story(site):  # noqa: F811
    return int(site.manage("shell", "-c", MEMBER % SHARED_SLUG).split()[-1])


def as_member(path, base):
    return get(base, path, headers={"Cookie": "member=ada-token"})


def test_the_portal_reaches_the_app_with_the_members_cookie_and_is_never_kept(site, story):  # noqa: F811
    for _ in range(2):
        response = as_member("/account/", site.varnish.url)
        assert response.status == 200 and response.cache == "PASS"
        assert "Signed in as <strong>ada@example.org</strong>" in response.text
    stranger = get(site.varnish.url, "/account/")
    assert "ada@example.org" not in stranger.text and "Sign in to Skillo" in stranger.text


def test_a_storys_personal_part_is_never_stored(site, story):  # noqa: F811
    path = f"/account/stories/{story}/"
    for _ in range(2):
        response = as_member(path, site.varnish.url)
        assert response.cache == "PASS" and "private" in response.headers["Cache-Control"]
        assert json.loads(response.body) == {**json.loads(response.body), "signed_in": True}
        assert json.loads(response.body)["saved"] is True
    assert json.loads(get(site.varnish.url, path).body)["signed_in"] is False


def test_the_story_page_is_one_cached_page_for_members_and_readers(site, story):  # noqa: F811
    for _ in range(50):
        reader = get(site.varnish.url, ARTICLE)
        if reader.cache == "HIT":
            break
    assert reader.cache == "HIT" and "Set-Cookie" not in reader.headers
    member = as_member(ARTICLE, site.varnish.url)
    assert member.cache == "HIT" and member.headers["X-Varnish"].split()[1:] == [
        reader.headers["X-Varnish"].split()[1]
    ]
    assert "ada@example.org" not in member.text
    assert f'data-story="/account/stories/{story}/"' in member.text


BLOCK = """
from members import comments
from members.models import Member
comments.block(Member.objects.filter(email="ada@example.org"), "spam", None)
"""
COMMENT = """
from members.models import Comment, Member
from news.models import Article
Comment.objects.create(
    article=Article.objects.get(slug="%s"), member=Member.objects.get(email="ada@example.org"),
    body="Seen through Varnish", body_html="<p>Seen through Varnish</p>", state="approved",
)
"""


def test_a_blocked_members_comments_leave_the_cached_conversation(site, story):  # noqa: F811
    site.manage("shell", "-c", COMMENT % SHARED_SLUG)
    path = f"/comments/{story}/"
    purge(site, f"comments:{story}")
    assert poll(lambda: "Seen through Varnish" in cached(site, path).text, 5)
    site.manage("shell", "-c", BLOCK)
    assert poll(lambda: "Seen through Varnish" not in get(site.varnish.url, path).text, 5)
    assert poll(lambda: cached(site, path).cache == "HIT", 5)
    assert "Seen through Varnish" not in cached(site, path).text
