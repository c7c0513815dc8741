"""Withdrawn is gone, everywhere, at once: through a real varnishd in front of gunicorn.

Each test warms every address that shows a piece of content (query variants, feeds,
sitemaps, the API, a live story's updates) until Varnish holds it, withdraws the content
as the newsroom does, and then asks each address again: from the first request on, none
may hold the content (a hard purge: no copy served from grace while the new one is
fetched). An edit of content still public is the other case: served from grace (soft).

The figure printed is how long after the action every address was seen without the
content; the assertion is that no reader got it, not a speed.
"""

import os
import re
import time

import pytest

from tests.varnish.servers import get
from tests.varnish.test_varnish import Editor, cached
from tests.waiting import poll

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)

# A story published a minute ago (in the news sitemap, the feeds and the home page's
# first page), with a topic of its own; prints its id and slug.
NEW_STORY = """
from datetime import timedelta
from django.utils import timezone
from tests.factories import ArticleFactory
article = ArticleFactory(
    title={title!r}, body="## What happened\\n\\n{words}.\\n\\n## Why\\n\\nIt did.",
    published_at=timezone.now() - timedelta(minutes=1), event_date=timezone.localdate(),
    tags=[{topic!r}],
)
print(article.pk, article.slug)
"""

WITH_LIVE_ENTRY = """
from django.contrib.auth import get_user_model
from django.utils import timezone
from live import desk
from live.models import LiveCoverage
coverage = LiveCoverage.objects.create(article_id={pk}, state="live", starts_at=timezone.now())
entry = desk.post_entry(coverage, get_user_model().objects.get(username="editor"), body={words!r})
print(entry.pk)
"""

WITH_COMMENT = """
from members.comments import purge_conversation, render
from members.models import Comment, Member
member = Member.objects.create(email="reader-{pk}@example.org", name="A reader")
comment = Comment.objects.create(
    article_id={pk}, member=member, body={words!r}, body_html=render({words!r}),
    state=Comment.State.APPROVED,
)
purge_conversation({pk})
print(comment.pk)
"""

HIDE_COMMENT = """
from django.contrib.auth import get_user_model
from members import comments
from members.models import Comment, Moderation
comments.moderate(
    Comment.objects.filter(pk={pk}), Moderation.Action.HIDE, "spam",
    get_user_model().objects.get(username="editor"),
)
"""

DELETE_ENTRY = """
from django.contrib.auth import get_user_model
from live import desk
from live.models import Entry
desk.delete_entry(Entry.objects.get(pk={pk}), get_user_model().objects.get(username="editor"))
"""


def shell(site, code):
    return site.manage("shell", "-c", code).strip().splitlines()[-1]


def new_story(site, name):
    """A public story named ``name``: (its id, its slug, the words only it holds)."""
    words = f"Only the {name} story says this"
    pk, slug = shell(
        site, NEW_STORY.format(title=f"The {name} story", words=words, topic=name)
    ).split()
    return int(pk), slug, words


def story_addresses(slug, topic):
    return [
        f"/articles/{slug}/", f"/articles/{slug}/?utm_source=1",
        f"/articles/{slug}/?utm_source=mastodon&utm_medium=social", "/", "/?utm_source=1",
        "/feed/", "/feed/atom/", "/feed.json", "/sitemap-news.xml", "/sitemaps/articles.xml",
        f"/api/v1/articles/{slug}/", "/api/v1/articles/", f"/tags/{topic}/",
        f"/tags/{topic}/feed/",
    ]  # fmt: skip


def admin_action(site, name, pk):
    """An editor's action on one article in the admin's list, through Varnish."""
    editor = Editor(site.varnish.url).log_in()
    _, _, page = editor.open("/admin/news/article/?q=")
    versions = dict(re.findall(r'name="_version_(\d+)" value="(\d+)"', page))
    data = {
        "csrfmiddlewaretoken": editor.csrf(page),
        "action": name,
        "_selected_action": str(pk),
        f"_version_{pk}": versions[str(pk)],
        "index": "0",
    }
    status, _, _ = editor.open("/admin/news/article/", data, referer="/admin/news/article/")
    assert status == 200


def warm(site, paths):
    for path in paths:
        cached(site, path)


def shows(response, markers):
    """Whether a reader gets the content: any of ``markers`` in a page that is not a 404
    or a 410 (with no markers: any such page)."""
    found = response.status not in (404, 410)
    return found and (not markers or any(marker in response.text for marker in markers))


def gone_everywhere(site, paths, markers, what, capsys, timeout=2):
    """Ask every address through Varnish until none shows ``markers`` (``timeout``
    seconds at most); fails naming each answer that still showed them."""
    started, left, leaks = time.monotonic(), set(paths), []

    def look():
        for path in sorted(left):
            response = get(site.varnish.url, path)
            if shows(response, markers):
                leaks.append(f"{path}: {response.status} {response.cache}")
            else:
                left.discard(path)
        return not left

    poll(look, timeout)
    with capsys.disabled():
        print(f"\n{what}: gone from {len(paths)} addresses through Varnish "
              f"{time.monotonic() - started:.2f} s after the action")  # fmt: skip
    assert not left, f"{what}: still shown at {sorted(left)}"
    assert not leaks, f"{what}: a reader still got it after the action: {leaks}"


def test_an_unpublished_article_is_gone_from_every_cached_address_at_once(site, capsys):
    pk, slug, words = new_story(site, "unpublished")
    paths = story_addresses(slug, "unpublished")
    warm(site, paths)
    assert all(shows(get(site.varnish.url, path), [slug]) for path in paths)

    admin_action(site, "unpublish_selected", pk)

    gone_everywhere(site, paths, [slug, words], "an unpublished article", capsys)


def test_a_deleted_article_is_gone_from_every_cached_address_at_once(site, capsys):
    pk, slug, words = new_story(site, "deleted")
    paths = story_addresses(slug, "deleted")
    warm(site, paths)

    shell(site, f"from news.models import Article; Article.objects.get(pk={pk}).delete()")

    gone_everywhere(site, paths, [slug, words], "a deleted article", capsys)


def test_a_hidden_comment_is_gone_from_the_conversation_and_the_story_at_once(site, capsys):
    pk, slug, _ = new_story(site, "commented")
    words = "A comment the moderators will hide"
    comment = shell(site, WITH_COMMENT.format(pk=pk, words=words))
    paths = [f"/comments/{pk}/", f"/comments/{pk}/?utm_source=1", f"/articles/{slug}/"]
    warm(site, paths)
    assert all(words in get(site.varnish.url, path).text for path in paths)

    shell(site, HIDE_COMMENT.format(pk=comment))

    gone_everywhere(site, paths, [words], "a hidden comment", capsys)


def live_addresses(pk, slug):
    return [
        f"/live/{pk}/updates/?since=0", f"/live/{pk}/updates/?since=0&utm_source=1",
        f"/live/{pk}/", f"/live/{pk}/?order=oldest", f"/live/{pk}/feed/", f"/live/{pk}/feed.json",
        f"/articles/{slug}/",
    ]  # fmt: skip


def test_a_deleted_live_entry_is_gone_from_every_cached_address_at_once(site, capsys):
    pk, slug, _ = new_story(site, "live-entry")
    words = "An entry the desk will delete"
    entry = shell(site, WITH_LIVE_ENTRY.format(pk=pk, words=words))
    paths = live_addresses(pk, slug)
    warm(site, paths)
    assert all(words in get(site.varnish.url, path).text for path in paths)

    shell(site, DELETE_ENTRY.format(pk=entry))

    gone_everywhere(site, paths, [words], "a deleted live entry", capsys)


def test_an_unpublished_live_story_is_gone_from_its_updates_and_feeds_at_once(site, capsys):
    pk, slug, _ = new_story(site, "live-story")
    words = "An entry of a story the desk will unpublish"
    shell(site, WITH_LIVE_ENTRY.format(pk=pk, words=words))
    paths = [*live_addresses(pk, slug), f"/live/{pk}/updates/?since=1"]
    warm(site, paths)

    admin_action(site, "unpublish_selected", pk)

    # An address never asked before too: the app's own page cache keys it as ?since=1.
    paths.append(f"/live/{pk}/updates/?since=1&page=2")
    # Not a word of the story's: every address answers 404.
    gone_everywhere(site, paths, [], "an unpublished live story", capsys)


def test_an_edit_of_a_public_article_is_served_from_grace_while_it_is_rebuilt(site):
    pk, slug, words = new_story(site, "edited")
    path = f"/articles/{slug}/"
    copy = cached(site, path).copy

    shell(site, f"""
from news.models import Article
article = Article.objects.get(pk={pk})
article.body += "\\n\\nAn added paragraph."
article.save()
""")  # fmt: skip

    first = get(site.varnish.url, path)
    assert (first.status, first.cache, first.copy) == (200, "STALE", copy)
    assert words in first.text and "An added paragraph." not in first.text
    assert poll(lambda: "An added paragraph." in get(site.varnish.url, path).text, 30)
