"""Two app server processes: an edit through one is visible through the other at once,
and so is a change made by a management command.

Real processes (gunicorn, one worker each) on 127.0.0.1 and a shared SQLite database,
once sharing a real redis-server, once with the default cache (a folder the
machine's processes share); an editor unpublishes and
republishes through the admin of server A while a reader reads through server B.
"""

import contextlib
import http.cookiejar
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import SHARED_SLUG, copy_demo_site
from tests.redis_server import free_port

ROOT = Path(__file__).resolve().parent.parent
TITLE = "PyTorch 2.4 Released"

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)


class Browser:
    """urllib with cookies, enough to log in to the Django admin and post a form."""

    def __init__(self, base):
        self.base = base
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path):
        try:
            with self.opener.open(self.base + path, timeout=20) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def post(self, path, data, referer):
        request = urllib.request.Request(
            self.base + path,
            data=urllib.parse.urlencode(data, doseq=True).encode(),
            headers={"Referer": self.base + referer},
        )
        with self.opener.open(request, timeout=20) as response:
            return response.status, response.read().decode()

    def csrf(self, html):
        return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)


def start_server(env, port, cwd=ROOT):
    """gunicorn with one worker on ``port``, serving the project at ``cwd``."""
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "gunicorn"),
            "skillo.wsgi:application",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "1",
            "--no-control-socket",
        ],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/robots.txt", timeout=1)
            return process
        except OSError:
            time.sleep(0.2)
    process.kill()
    raise RuntimeError(f"gunicorn did not start on port {port}")


def site_environment(folder, static_root):
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(static_root),
    }
    env.pop("CACHE_URL", None)
    return env


@pytest.fixture(scope="module")
def servers_site(tmp_path_factory, demo_site):
    """A copy of the demo site's SQLite file, and the collected static files: made once,
    the file copied for each cache below (the servers only read the static files)."""
    folder = tmp_path_factory.mktemp("demo-site")
    env = site_environment(folder, folder / "static")
    copy_demo_site(demo_site, folder / "db.sqlite3", folder / "media")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return folder


@pytest.fixture(scope="module", params=["redis", "default cache"])
def environment(request, servers_site, tmp_path_factory):
    """The servers' environment: a copy of the migrated SQLite file with the demo
    articles, and a fresh cache."""
    folder = tmp_path_factory.mktemp("servers")
    env = site_environment(folder, servers_site / "static")
    env["MEDIA_ROOT"] = str(servers_site / "media")  # the demo's pictures, only read
    if request.param == "redis":
        if not shutil.which("redis-server"):
            pytest.skip("redis-server is not installed")
        env["CACHE_URL"] = request.getfixturevalue("redis_server").url.replace("/0", "/1")
    with (
        contextlib.closing(sqlite3.connect(servers_site / "db.sqlite3")) as source,
        contextlib.closing(sqlite3.connect(folder / "db.sqlite3")) as copy,
    ):
        source.backup(copy)
    return env


@pytest.fixture(scope="module")
def servers(environment):
    env = environment
    ports = free_port(), free_port()
    processes = [start_server(env, port) for port in ports]
    yield [f"http://127.0.0.1:{port}" for port in ports]
    for process in processes:
        process.terminate()
        process.wait(timeout=10)


def article_action(editor, name):
    status, page = editor.get("/admin/news/article/")
    assert status == 200
    rows = dict(re.findall(r'name="_version_(\d+)" value="(\d+)"', page))
    pk = re.search(r'href="/admin/news/article/(\d+)/change/[^"]*">PyTorch 2.4', page).group(1)
    version = rows[pk]
    data = {
        "csrfmiddlewaretoken": editor.csrf(page),
        "action": name,
        "_selected_action": pk,
        f"_version_{pk}": version,
        "index": "0",
    }
    return editor.post("/admin/news/article/", data, referer="/admin/news/article/")


def test_an_edit_through_one_server_is_seen_through_the_other_at_once(servers):
    server_a, server_b = servers
    reader = Browser(server_b)
    article = f"/articles/{SHARED_SLUG}/"
    for _ in range(2):  # The second visit of each page is served from Redis.
        assert reader.get(article)[0] == 200
        assert TITLE in reader.get("/")[1]

    editor = Browser(server_a)
    status, page = editor.get("/admin/login/")
    status, page = editor.post(
        "/admin/login/?next=/admin/",
        {"csrfmiddlewaretoken": editor.csrf(page), "username": "editor", "password": "editor"},
        referer="/admin/login/",
    )
    assert "Log out" in page or "logout" in page

    status, page = article_action(editor, "unpublish_selected")
    assert status == 200
    assert reader.get(article)[0] == 404
    assert TITLE not in reader.get("/")[1]

    article_action(editor, "publish_selected")
    assert reader.get(article)[0] == 200
    assert TITLE in reader.get("/")[1]


def test_a_management_command_changing_content_is_seen_by_every_server_at_once(
    servers, environment, tmp_path
):
    readers = [Browser(server) for server in servers]
    article = f"/articles/{SHARED_SLUG}/"
    for reader in readers:
        for _ in range(2):  # The second visit is served from the cache.
            assert "Now updated from the command line" not in reader.get(article)[1]
    exported = subprocess.run(
        [sys.executable, "manage.py", "export_articles", SHARED_SLUG],
        cwd=ROOT, env=environment, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    changed = tmp_path / "pytorch-2-4.txt"
    changed.write_text(exported.replace("\n\n", "\n\nNow updated from the command line.\n\n", 1))
    subprocess.run(
        [sys.executable, "manage.py", "import_articles", str(changed)],
        cwd=ROOT, env=environment, check=True, capture_output=True,
    )  # fmt: skip
    for reader in readers:
        assert "Now updated from the command line" in reader.get(article)[1]
