"""Read replicas (skillo.replicas, DATABASE_REPLICA_URLS): readers' public pages read from
a PostgreSQL streaming replica, but never from one that has not replayed the last change
that purged pages; the admin and every write use the primary.

The live tests start a primary and its streaming replica (pg_basebackup), a Redis for the
shared cache and two gunicorn servers with the production settings (two app machines),
then hold the replica behind the primary with ``pg_wal_replay_pause()``. They bring their
own servers, so they run once per make test: in the PostgreSQL pass (skipped in the
SQLite one). The settings tests need no server.
"""

import os
import runpy
import shutil
import subprocess
import sys
from datetime import timedelta
from http.client import HTTPConnection
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse
from django.utils import timezone

from .conftest import SHARED_SLUG
from .postgres_server import Cluster, Replica, postgres_bin
from .redis_server import RedisServer
from .test_admin import form_data
from .test_outage import SEED, Server
from .waiting import until

BASE = Path(__file__).resolve().parent.parent / "skillo" / "settings" / "base.py"
SUITE_ON_POSTGRES = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
ARTICLE = f"/articles/{SHARED_SLUG}/"


# Settings: the replicas' databases and router, from the environment.


def settings_with(monkeypatch, **environ):
    for name in ("DATABASE_URL", "DATABASE_REPLICA_URLS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(BASE))


def test_without_replica_urls_there_is_one_database_and_no_router(monkeypatch):
    found = settings_with(monkeypatch, DATABASE_URL="postgres://u@db.internal/skillo")
    assert list(found["DATABASES"]) == ["default"]
    assert found["DATABASE_ROUTERS"] == []


def test_each_replica_url_is_a_database_read_through_the_router(monkeypatch):
    found = settings_with(
        monkeypatch,
        DATABASE_URL="postgres://u@db.internal/skillo",
        DATABASE_REPLICA_URLS="postgres://u@r1.internal/skillo, postgres://u@r2.internal:6432/skillo",
    )
    databases = found["DATABASES"]
    assert list(databases) == ["default", "replica1", "replica2"]
    hosts = [database["HOST"] for database in databases.values()]
    assert hosts == ["db.internal", "r1.internal", "r2.internal"]
    assert databases["replica2"]["PORT"] == 6432
    assert found["DATABASE_ROUTERS"] == ["skillo.replicas.ReplicaRouter"]


@pytest.mark.parametrize(
    "primary, replicas",
    [
        ("postgres://u@db.internal/skillo", "mysql://u:s3cret@r1.internal/skillo"),
        ("postgres://u@db.internal/skillo", "not an address s3cret"),
        ("sqlite:////tmp/skillo.sqlite3", "postgres://u:s3cret@r1.internal/skillo"),
    ],
)
def test_a_replica_url_that_is_not_postgresql_stops_the_start_naming_the_setting(
    monkeypatch, primary, replicas
):
    with pytest.raises(ImproperlyConfigured, match="DATABASE_REPLICA_URLS") as refused:
        settings_with(monkeypatch, DATABASE_URL=primary, DATABASE_REPLICA_URLS=replicas)
    assert "s3cret" not in str(refused.value)


# Live: a primary, its streaming replica, Redis, two app servers.


def live(test):
    test = pytest.mark.skipif(
        not SUITE_ON_POSTGRES,
        reason="brings its own PostgreSQL primary and replica, so it runs once: in the "
        "PostgreSQL pass",
    )(test)
    return pytest.mark.skipif(
        postgres_bin() is None or not shutil.which("redis-server"),
        reason="needs PostgreSQL's initdb and pg_basebackup, and redis-server",
    )(test)


class AppServer(Server):
    def wait_until_up(self):
        # A booting worker may take longer than a request's timeout on a busy machine.
        def answers():
            http = HTTPConnection("127.0.0.1", self.port, timeout=10)
            try:
                http.request("GET", "/robots.txt")
                return http.getresponse().status == 200
            except OSError:
                return False
            finally:
                http.close()

        until(answers, "gunicorn to answer", timeout=120)


def sql(cluster, query, *params):
    with psycopg.connect(
        host="127.0.0.1", port=cluster.port, user="postgres", dbname="skillo", autocommit=True
    ) as conn:
        cursor = conn.execute(query, params)
        return cursor.fetchall() if cursor.description else None


def caught_up(primary, replica):
    """Wait until the replica has replayed everything the primary has written."""
    (written,) = sql(primary, "SELECT pg_current_wal_insert_lsn()")[0]
    until(
        lambda: sql(replica, "SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", written)[0][0],
        "the replica to replay the primary's changes",
    )


@pytest.fixture(scope="module")
def stack(production_static):
    primary = Cluster()
    replica = Replica(primary)
    redis = RedisServer()
    log = open(primary.root / "servers.log", "wb")  # noqa: SIM115
    servers = []
    try:
        primary.create()
        redis.start()
        environ = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
            "DATABASE_URL": primary.url,
            "SECRET_KEY": "replicas-test-" + "k" * 50,
            "ALLOWED_HOSTS": "127.0.0.1",
            "SITE_URL": "http://127.0.0.1",
            "LOCAL_TRIAL": "true",
            "DEBUG": "false",
            "SECURE_SSL_REDIRECT": "false",
            "STATIC_ROOT": str(production_static),
            "CACHE_URL": redis.url,
            "EMAIL_STORIES_ON_PUBLISH": "false",
        }
        manage = [sys.executable, str(BASE.parent.parent.parent / "manage.py")]
        subprocess.run(
            [*manage, "shell", "-v", "0", "-c", SEED], env=environ, check=True, timeout=300
        )
        replica.create()
        environ["DATABASE_REPLICA_URLS"] = replica.url
        servers = [AppServer(environ, 600, log), AppServer(environ, 600, log)]
        for server in servers:
            server.wait_until_up()
        yield primary, replica, *servers
    finally:
        for server in servers:
            server.close()
        log.close()
        replica.remove()
        primary.remove()
        redis.close()


@pytest.fixture
def paused(stack):
    """The replica, caught up, then held there: the primary's changes from now on are not
    replayed until the test ends."""
    primary, replica, *servers = stack
    caught_up(primary, replica)
    # A reader first: the servers know where the primary was before the pause.
    assert servers[0].status("/") == 200
    sql(replica, "SELECT pg_wal_replay_pause()")
    until(
        lambda: sql(replica, "SELECT pg_get_wal_replay_pause_state()")[0][0] == "paused",
        "the replica's replay to pause",
    )
    yield primary, replica, *servers
    sql(replica, "SELECT pg_wal_replay_resume()")
    caught_up(primary, replica)


def editor_login(server):
    cookies = {}
    page = server.request("/admin/login/", cookies=cookies)[2]
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    login = {"username": "editor", "password": "editor-pw", "csrfmiddlewaretoken": token}
    assert server.request("/admin/login/", login, cookies)[0] == 302
    return cookies


def publish(server, cookies, title, slug):
    add = reverse("admin:news_article_add")
    page = server.request(add, cookies=cookies)[2]
    token = page.split('name="csrfmiddlewaretoken" value="')[1].split('"')[0]
    yesterday = (timezone.now() - timedelta(days=1)).date().isoformat()
    data = form_data(
        csrfmiddlewaretoken=token, _save="Save", title=title, slug=slug,
        published_at_0=yesterday, event_date=yesterday,
    )  # fmt: skip
    assert server.request(add, data, cookies)[0] == 302, "the admin did not save the article"


def on_replica(replica, slug):
    return sql(replica, "SELECT count(*) FROM news_article WHERE slug = %s", slug)[0][0] == 1


@live
def test_a_public_page_is_read_from_the_replica(paused):
    primary, _, reader, _ = paused
    # Changed on the primary by hand: no purge says so, the paused replica has not seen it.
    (title,) = sql(primary, "SELECT title FROM news_article WHERE slug = %s", SHARED_SLUG)[0]
    sql(primary, "UPDATE news_article SET title = 'Retitled on the primary only'")
    try:
        # ?page=2: a page of its own in the page cache, built now.
        page = reader.request(f"{ARTICLE}?page=2")[2]
    finally:
        sql(primary, "UPDATE news_article SET title = %s", title)
    assert title in page and "Retitled on the primary only" not in page


@live
def test_a_search_page_is_read_from_the_replica_count_and_results_alike(paused):
    primary, _, reader, _ = paused
    # Unpublished on the primary by hand: the paused replica still has it published.
    sql(primary, "UPDATE news_article SET status = 'draft' WHERE slug = %s", SHARED_SLUG)
    try:
        page = reader.request("/search/?q=pytorch")[2]
    finally:
        sql(primary, "UPDATE news_article SET status = 'published' WHERE slug = %s", SHARED_SLUG)
    assert f'href="{ARTICLE}"' in page


@live
def test_the_first_reader_after_a_publication_gets_the_new_page_though_the_replica_lags(paused):
    _, replica, editors_server, readers_server = paused
    assert "Go 1.23 released" not in readers_server.request("/")[2]
    cookies = editor_login(editors_server)
    publish(editors_server, cookies, "Go 1.23 released", "go-1-23-released")
    assert not on_replica(replica, "go-1-23-released")
    # The purge emptied the home page; the reader's request builds it again, from the
    # primary (the replica is behind), and the page cache keeps that.
    assert "Go 1.23 released" in readers_server.request("/")[2]
    assert "Go 1.23 released" in readers_server.request("/")[2]
    assert "Go 1.23 released" in editors_server.request("/")[2]


@live
def test_the_editor_and_the_admin_read_and_write_the_primary(paused):
    _, replica, server, _ = paused
    cookies = editor_login(server)
    publish(server, cookies, "Rust 1.81 released", "rust-1-81-released")
    assert not on_replica(replica, "rust-1-81-released")
    changelist = server.request(reverse("admin:news_article_changelist"), cookies=cookies)[2]
    assert "Rust 1.81 released" in changelist
    # The editor's "View on site": their own page, not the replica's 404.
    assert server.request("/articles/rust-1-81-released/", cookies=cookies)[0] == 200


@live
def test_readers_are_served_from_the_primary_while_the_replica_is_down(stack):
    primary, replica, reader, _ = stack
    replica.stop()
    try:
        assert reader.status(f"{ARTICLE}?page=3") == 200
    finally:
        replica.start()
    caught_up(primary, replica)
