"""Fixtures of the Varnish tests: a real varnishd with deploy/varnish/skillo.vcl in front
of a real gunicorn serving the demo content from a SQLite file of its own.

Without varnishd (Debian's varnish and varnish-modules) the tests that need it skip with a
message, except in CI (CI=true), where they fail: .ci/run installs it.
"""

import os
import subprocess
import sys

import pytest

from tests.conftest import CI, copy_demo_site
from tests.varnish.servers import ROOT, AppServer, Varnish, find_varnishd, free_port


@pytest.fixture(scope="session")
def varnishd():
    path = find_varnishd()
    if path is None:
        message = "varnishd is not installed: apt-get install -y varnish varnish-modules"
        if CI:
            pytest.fail(message + " (.ci/run installs it)")
        pytest.skip(message)
    return path


@pytest.fixture(scope="module")
def site(tmp_path_factory, varnishd, demo_site):
    """gunicorn behind varnishd, purges going to it: ``site.app``, ``site.varnish``,
    ``site.env`` (for manage.py) and ``site.folder``."""
    folder = tmp_path_factory.mktemp("varnish-site")
    varnish_port = free_port()
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DEBUG": "false",
        "ALLOWED_HOSTS": "127.0.0.1",
        "DATABASE_URL": f"sqlite:///{folder / 'db.sqlite3'}",
        "STATIC_ROOT": str(folder / "static"),
        # The demo's images: not in the checkout's media/.
        "MEDIA_ROOT": str(folder / "media"),
        "VARNISH_PURGE_URLS": f"http://127.0.0.1:{varnish_port}",
        "CACHE_URL": f"file://{folder / 'cache'}",
    }
    for name in ("SURROGATE_KEY_HEADERS", "VARNISH_MAX_AGE", "CDN_MAX_AGE"):
        env.pop(name, None)
    copy_demo_site(demo_site, folder / "db.sqlite3", folder / "media")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    app = AppServer(env, folder).start()
    varnish = Varnish(varnishd, folder / "varnish", app.port, port=varnish_port)
    try:
        varnish.start()
    except BaseException:
        app.stop()
        raise
    site = Site(app, varnish, env, folder)
    yield site
    varnish.stop()
    app.stop()


class Site:
    def __init__(self, app, varnish, env, folder):
        self.app, self.varnish, self.env, self.folder = app, varnish, env, folder

    def manage(self, *args, env=None):
        return subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env={**self.env, **(env or {})}, check=True, capture_output=True,
            text=True,
        ).stdout  # fmt: skip
