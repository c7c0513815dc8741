"""A real varnishd with deploy/varnish/skillo.vcl in front of a real gunicorn.

The demo content in a SQLite file of the module's own (tests/varnish/conftest.py).
Varnish says what it did in ``X-Cache``: HIT, STALE (a purged or expired page, served
while the new one is fetched), MISS or PASS; ``X-Varnish`` names the stored copy served.
Changes are made as the newsroom makes them: an editor's admin action, a management
command. Nothing here measures speed; "within a second" is a bound on a poll.
"""

import http.cookiejar
import json
import os
import re
import signal
import sqlite3
import time
import urllib.parse
import urllib.request
from urllib.parse import urlsplit

import pytest
from django.urls import resolve

from pagecache.dependencies import view_attribute
from tests.conftest import SHARED_SLUG
from tests.varnish.servers import get
from tests.waiting import poll

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)

TITLE = "PyTorch 2.4 Released"
ARTICLE = f"/articles/{SHARED_SLUG}/"
SESSION_COOKIE = "sessionid"


def purge(site, keys, hard=False):
    headers = {"xkey-purge": keys, **({"xkey-hard": "1"} if hard else {})}
    assert get(site.varnish.url, "/", "PURGE", headers).status == 200


def cached(site, path):
    """Request ``path`` through Varnish until it is a hit; the hit."""
    for _ in range(50):
        response = get(site.varnish.url, path)
        assert response.status == 200, (path, response.status)
        if response.cache == "HIT":
            return response
        time.sleep(0.05)
    raise AssertionError(f"{path} is never a hit: {response.cache}")


class Editor:
    """urllib with cookies: logs in to the admin and runs an action on the article."""

    def __init__(self, base):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def open(self, path, data=None, referer=None):
        request = urllib.request.Request(
            self.base + path,
            data=urllib.parse.urlencode(data, doseq=True).encode() if data else None,
            headers={"Referer": self.base + referer} if referer else {},
        )
        with self.opener.open(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read().decode()

    def csrf(self, html):
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)

    def log_in(self):
        _, _, page = self.open("/admin/login/")
        _, _, page = self.open(
            "/admin/login/?next=/admin/",
            {"csrfmiddlewaretoken": self.csrf(page), "username": "editor", "password": "editor"},
            referer="/admin/login/",
        )
        assert any(cookie.name == SESSION_COOKIE for cookie in self.cookies)
        return self

    def article_action(self, name):
        _, _, page = self.open("/admin/news/article/")
        versions = dict(re.findall(r'name="_version_(\d+)" value="(\d+)"', page))
        pk = re.search(r'href="/admin/news/article/(\d+)/change/[^"]*">PyTorch 2.4', page)[1]
        data = {
            "csrfmiddlewaretoken": self.csrf(page),
            "action": name,
            "_selected_action": pk,
            f"_version_{pk}": versions[pk],
            "index": "0",
        }
        status, _, _ = self.open("/admin/news/article/", data, referer="/admin/news/article/")
        assert status == 200


def api(site, path):
    return json.loads(get(site.app.url, path).body)


def edit_by_command(site, tmp_path, sentence):
    """Change the article's text as an import does (manage.py, a process of its own)."""
    exported = site.manage("export_articles", SHARED_SLUG)
    changed = tmp_path / "article.txt"
    changed.write_text(exported.replace("\n\n", f"\n\n{sentence}\n\n", 1))
    site.manage("import_articles", str(changed))


# A worker (background.worker) that runs the queued purges alone: the demo's other tasks
# and the periodic ones are not this test's.
RUN_QUEUED_PURGES = """
from background.worker import Worker

class Purges(Worker):
    def tasks(self):
        return super().tasks().filter(task_path="pagecache.varnish.purge_varnish")

Purges("test-worker", batch=True).run()
"""


def queued_purges(site):
    """(Varnish, keys) of each purge task the worker has still to run."""
    with sqlite3.connect(site.folder / "db.sqlite3") as db:
        rows = db.execute(
            "SELECT args_kwargs FROM django_tasks_database_dbtaskresult WHERE task_path = "
            "'pagecache.varnish.purge_varnish' AND status = 'READY'"
        ).fetchall()
    return [tuple(json.loads(row)["args"][:2]) for (row,) in rows]


@pytest.fixture(scope="module")
def content(site):
    """Addresses of the demo content: the article, one of its tags, an author."""
    article = api(site, f"/api/v1/articles/{SHARED_SLUG}/")
    tag = article["tags"][0]["slug"]
    author = api(site, "/api/v1/authors/")["results"][0]["slug"]
    year, month = article["published_at"][:4], int(article["published_at"][5:7])
    index = get(site.app.url, "/sitemap.xml").text
    sections = re.findall(r"<loc>[^<]*(/sitemaps/[^<]+)</loc>", index)
    return {"article": article, "tag": tag, "author": author, "year": year, "month": month,
            "sitemap": sections[0]}  # fmt: skip


def cached_pages(content):
    """One address of each kind of cached page (cached_page views)."""
    tag, author, year, month = (content[k] for k in ("tag", "author", "year", "month"))
    return [
        "/", ARTICLE, "/tags/", f"/tags/{tag}/", f"/tags/{tag}/timeline/", f"/tags/{tag}/feed/",
        f"/tags/{tag}/feed.json", "/authors/", f"/authors/{author}/", f"/authors/{author}/feed/",
        f"/authors/{author}/feed/atom/", f"/archive/{year}/", f"/archive/{year}/{month}/",
        "/about/editorial/", "/corrections/", "/corrections/feed/", "/feed/", "/feed/atom/",
        "/feed.json", "/sitemap.xml", content["sitemap"], "/search/?q=python",
        "/api/v1/articles/", f"/api/v1/articles/{SHARED_SLUG}/", "/api/v1/tags/",
        f"/api/v1/tags/{tag}/", "/api/v1/authors/", f"/api/v1/authors/{author}/",
    ]  # fmt: skip


def test_every_cached_page_names_its_keys(site, content):
    article_key = f"article:{content['article']['id']}"
    specific = {
        ARTICLE: {article_key},
        f"/api/v1/articles/{SHARED_SLUG}/": {article_key},
        "/": {article_key},
        "/api/v1/articles/": {article_key},
    }
    for path in cached_pages(content):
        declared = view_attribute(resolve(urlsplit(path).path).func, "page_dependencies")
        assert declared is not None, f"{path} is not a cached page"
        built, stored = get(site.app.url, path), get(site.app.url, path)
        assert built.status == stored.status == 200, path
        keys = set(built.headers["xkey"].split(" "))
        assert {"schedule", *declared, *specific.get(path, ())} <= keys, path
        # Served from Django's cache: the same keys; so does a 304 for Varnish's copy.
        assert stored.headers["xkey"] == built.headers["xkey"], path
        assert stored.headers["Surrogate-Control"].startswith("max-age="), path
        again = get(site.app.url, path, headers={"If-None-Match": stored.headers["ETag"]})
        assert again.status == 304 and again.headers["xkey"] == built.headers["xkey"], path
        # Readers through Varnish are not sent the keys, nor Varnish's own lifetime.
        through = get(site.varnish.url, path)
        assert through.status == 200 and through.cache in {"HIT", "MISS", "STALE"}, path
        assert "xkey" not in through.headers and "Surrogate-Control" not in through.headers
    tag_page = get(site.app.url, f"/tags/{content['tag']}/").headers["xkey"]
    assert re.search(r"(^| )tag:\d+( |$)", tag_page)
    author_page = get(site.app.url, f"/authors/{content['author']}/").headers["xkey"]
    assert re.search(r"(^| )author:\d+ ", author_page)
    assert re.search(r"(^| )author-articles:\d+ ", author_page)


def test_an_edit_purges_exactly_the_pages_that_show_it(site, content, tmp_path):
    purge(site, "schedule", hard=True)  # Start from an empty cache.
    article_key = f"article:{content['article']['id']}"
    pages = cached_pages(content)
    others = [item["slug"] for item in api(site, "/api/v1/articles/?page_size=50")["results"]]
    pages += [f"/articles/{slug}/" for slug in others if slug != SHARED_SLUG]
    # An edit of the text (not of title, dates, tags, links or authors) purges the pages
    # showing the article and the feeds (news/purge.py): those whose keys name them.
    keys = {path: set(get(site.app.url, path).headers["xkey"].split(" ")) for path in pages}
    affected = {path for path in pages if keys[path] & {article_key, "feeds"}}
    assert {ARTICLE, "/", "/feed/", "/sitemap.xml", "/api/v1/articles/"} <= affected
    untouched = set(pages) - affected
    assert {"/tags/", "/about/editorial/", "/authors/"} <= untouched
    assert any(path.startswith("/articles/") for path in untouched)
    time.sleep(2.5)  # pagecache.store.RACE_MARGIN: pages built now are stored and kept long.
    copies = {path: cached(site, path).copy for path in pages}

    edit_by_command(site, tmp_path, "Edited for the Varnish test.")

    first = {path: get(site.varnish.url, path) for path in pages}
    # Soft: the purged pages are served stale (at once) while the new ones are fetched.
    assert {path for path in pages if first[path].cache == "STALE"} == affected
    assert all(first[path].cache == "HIT" for path in untouched)
    assert all(first[path].copy == copies[path] for path in untouched)
    fresh = poll(lambda: "Edited for the Varnish test." in get(site.varnish.url, ARTICLE).text, 5)
    assert fresh, "the edited article never came through Varnish"
    for path in affected:
        assert poll(lambda path=path: cached(site, path).copy != copies[path], 5), path
    assert all(cached(site, path).copy == copies[path] for path in untouched)


def test_an_editor_never_gets_a_cached_page_nor_leaves_one(site):
    editor = Editor(site.varnish.url).log_in()
    session = next(c.value for c in editor.cookies if c.name == SESSION_COOKIE)
    cached(site, "/tags/")  # Not showing the article, so kept by the purge below.
    purge(site, f"article:{api(site, f'/api/v1/articles/{SHARED_SLUG}/')['id']}", hard=True)

    for path in ("/", ARTICLE):
        response = get(site.varnish.url, path, headers={"Cookie": f"{SESSION_COOKIE}={session}"})
        assert response.status == 200 and response.cache == "PASS", path
        assert "private" in response.headers["Cache-Control"], path
        # The name production settings may give the cookie passes too.
        prefixed = f"_ga=GA1.2.3; __Host-{SESSION_COOKIE}={session}"
        assert get(site.varnish.url, path, headers={"Cookie": prefixed}).cache == "PASS"
    status, headers, _ = editor.open("/admin/news/article/")
    assert status == 200 and headers["X-Cache"] == "PASS"
    # The editor's request stored nothing: the next reader's is fetched anew.
    assert get(site.varnish.url, ARTICLE).cache == "MISS"
    assert get(site.varnish.url, ARTICLE).cache == "HIT"
    # Other cookies (analytics, a CSRF token) are dropped: the reader is served a hit.
    reader = get(site.varnish.url, "/tags/", headers={"Cookie": "_ga=GA1.2.3; csrftoken=abc"})
    assert reader.cache == "HIT"
    # API clients with a token are never served from nor stored in the cache either.
    token = get(site.varnish.url, "/api/v1/articles/", headers={"Authorization": "Token x"})
    assert token.cache == "PASS"


def test_a_publish_is_visible_through_varnish_within_a_second(site):
    editor = Editor(site.varnish.url).log_in()
    for path in (ARTICLE, "/", "/feed/"):
        cached(site, path)
    editor.article_action("unpublish_selected")
    gone = poll(
        lambda: (
            get(site.varnish.url, ARTICLE).status == 404
            and TITLE not in get(site.varnish.url, "/").text
        ),
        timeout=1,
    )
    assert gone, "the unpublished article was still shown through Varnish after a second"
    for path in ("/", "/feed/"):
        cached(site, path)

    editor.article_action("publish_selected")
    shown = poll(
        lambda: (
            get(site.varnish.url, ARTICLE).status == 200
            and TITLE in get(site.varnish.url, "/").text
            and TITLE in get(site.varnish.url, "/feed/").text
        ),
        timeout=1,
    )
    assert shown, "the published article was not shown through Varnish within a second"


def test_a_purge_while_varnish_is_down_is_sent_by_the_worker_when_it_is_back(site, tmp_path):
    article_key = f"article:{api(site, f'/api/v1/articles/{SHARED_SLUG}/')['id']}"
    before = cached(site, ARTICLE)
    os.killpg(site.varnish.process.pid, signal.SIGSTOP)  # Hung: takes no request.
    try:
        edit_by_command(site, tmp_path, "Edited while Varnish was down.")
        queued = queued_purges(site)
        assert [target for target, _ in queued] == [site.varnish.url]
        assert article_key in queued[0][1]
    finally:
        os.killpg(site.varnish.process.pid, signal.SIGCONT)
    # No app server process sends it again: a worker does (a task due at once).
    site.manage("shell", "-c", RUN_QUEUED_PURGES)
    assert not queued_purges(site), "the queued purge was never sent"
    assert "Edited while Varnish was down." not in before.text
    assert poll(lambda: "Edited while Varnish was down." in get(site.varnish.url, ARTICLE).text, 5)


def test_varnish_serves_the_pages_it_has_while_the_app_server_is_down(site):
    pages = ["/", ARTICLE, "/tags/", "/feed/"]
    copies = {path: cached(site, path) for path in pages}
    site.app.stop()
    try:
        for path in pages:
            response = get(site.varnish.url, path)
            assert (response.status, response.cache) == (200, "HIT"), path
        # Purged while the app is down: still served (stale), the failed refetch dropped.
        purge(site, "schedule")
        for _ in range(3):
            for path in pages:
                response = get(site.varnish.url, path)
                assert (response.status, response.cache) == (200, "STALE"), path
                assert response.body == copies[path].body, path
        # What Varnish does not have cannot be served.
        assert get(site.varnish.url, "/tags/no-such-topic/").status == 503
    finally:
        site.app.start()
    # The probe finds it healthy again within a few seconds (skillo.vcl, skillo_alive).
    assert poll(lambda: get(site.varnish.url, "/").cache == "HIT", 30)


def restart_as(site, release):
    """Restart the app server as ``release`` (None: the site's own) and wait, up to 30 s,
    until Varnish serves a new copy of the article: the new release's first process
    purges the other release's pages in the background, and that purge landing during
    the next test would turn its hit into a stale copy. The new copy, or None."""
    old = cached(site, ARTICLE).copy
    site.app.stop()
    if release is None:
        site.app.env.pop("SKILLO_RELEASE", None)
    else:
        site.app.env["SKILLO_RELEASE"] = release
    site.app.start()
    return poll(lambda: (renewed := cached(site, ARTICLE).copy) != old and renewed, 30)


def test_a_new_release_purges_every_page_varnish_holds_of_the_old_one(site):
    """A deploy (here: the same code under another SKILLO_RELEASE) reaches the edge: the
    new release's first process purges the old release's pages, which every page names
    among its keys, so each is fetched anew on its next request."""
    pages = ["/", ARTICLE, "/tags/", "/feed/"]
    copies = {path: cached(site, path).copy for path in pages}
    before = get(site.app.url, "/").headers["xkey"]
    try:
        restart_as(site, "the-next-release")
        after = get(site.app.url, "/").headers["xkey"]
        assert re.search(r"(^| )release:\w+$", before) and after != before
        for path in pages:
            renewed = poll(lambda path=path: cached(site, path).copy != copies[path], 5)
            assert renewed, f"{path}: Varnish still serves the old release's page"
    finally:
        restart_as(site, None)


def test_a_fediverse_server_and_a_reader_never_get_each_others_answer(site):
    """One address, two documents: the page is kept for readers (one copy whatever
    their browser's Accept), the ActivityStreams object always comes from the app."""
    page = cached(site, ARTICLE)
    assert "Accept" in page.headers["Vary"]
    activity = get(site.varnish.url, ARTICLE, headers={"Accept": "application/activity+json"})
    assert activity.status == 200
    assert activity.headers["Content-Type"].startswith("application/activity+json")
    assert json.loads(activity.body)["type"] == "Article"
    assert activity.cache == "PASS"
    firefox = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    again = get(site.varnish.url, ARTICLE, headers={"Accept": firefox})
    assert again.cache == "HIT" and again.copy == page.copy
    assert again.headers["Content-Type"].startswith("text/html")
