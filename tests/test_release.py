"""What a deploy or a settings change alters is seen at once, whatever the cache holds.

Real servers (gunicorn) started twice over one SQLite file with the demo site, with the
default cache and with a real redis-server: between the two starts a template of the
project is edited, or TIME_ZONE or MEDIA_URL changed, and the second server's pages show
it at once (pagecache.release names the release in every key the cache keeps output
under). The project is served from a copy, so that its templates can be edited.
"""

import contextlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import copy_demo_site
from tests.redis_server import free_port
from tests.test_pagecache_servers import Browser, site_environment, start_server

ROOT = Path(__file__).resolve().parent.parent
LEFT_OUT = shutil.ignore_patterns(
    ".venv*", ".git", "media", "staticfiles", "node_modules", "__pycache__", "*.sqlite3"
)

pytestmark = pytest.mark.skipif(
    os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="runs its own servers on a SQLite file; once, in the SQLite pass, is enough",
)


@pytest.fixture(scope="module")
def project(tmp_path_factory, demo_site):
    """A copy of the project, with the demo site (its lead images in its media folder)."""
    copy = tmp_path_factory.mktemp("release") / "skillo"
    shutil.copytree(ROOT, copy, ignore=LEFT_OUT)
    env = site(copy)
    copy_demo_site(demo_site, copy / "db.sqlite3", copy / "media")
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=copy, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return copy


def site(project, **settings):
    env = site_environment(project, project / "staticfiles")
    env["MEDIA_ROOT"] = str(project / "media")
    env.update(settings)
    return env


@pytest.fixture(params=["default cache", "redis"])
def cache(request):
    """The settings of the cache both starts use."""
    if request.param == "default cache":
        return {}
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed")
    # A database of its own, emptied: nothing kept by another test is read.
    redis = request.getfixturevalue("redis_server")
    url = redis.url.replace("/0", "/3")
    subprocess.run(["redis-cli", "-u", url, "flushdb"], check=True, capture_output=True)
    return {"CACHE_URL": url}


@contextlib.contextmanager
def served(project, **settings):
    process = start_server(site(project, **settings), port := free_port(), cwd=project)
    try:
        yield Browser(f"http://127.0.0.1:{port}")
    finally:
        process.terminate()
        process.wait(timeout=10)


def read_twice(browser, path):
    """The page, read twice: the second answer comes from the page cache."""
    status, _ = browser.get(path)
    assert status == 200, path
    status, page = browser.get(path)
    assert status == 200, path
    return page


def illustrated_article(project):
    """The address of a published article with a lead image, and its card's title."""
    with contextlib.closing(sqlite3.connect(project / "db.sqlite3")) as db:
        slug, title = db.execute(
            "SELECT slug, title FROM news_article WHERE lead_image_id IS NOT NULL "
            "AND status = 'published' ORDER BY published_at DESC LIMIT 1"
        ).fetchone()
    return f"/articles/{slug}/", title


@contextlib.contextmanager
def edited(path, old, new):
    original = path.read_text()
    assert old in original
    path.write_text(original.replace(old, new))
    try:
        yield
    finally:
        path.write_text(original)


def test_a_template_edited_between_two_starts_is_seen_at_once(project, cache):
    article, _ = illustrated_article(project)
    with served(project, **cache) as browser:
        assert "data-edited" not in read_twice(browser, article)
        assert "card--edited" not in read_twice(browser, "/")
    templates = project / "templates"
    card = templates / "includes/article_card.html"
    with (
        edited(templates / "images/picture.html", "<picture", '<picture data-edited="yes"'),
        edited(card, 'class="card"', 'class="card card--edited"'),
        served(project, **cache) as browser,
    ):
        assert 'data-edited="yes"' in read_twice(browser, article)
        assert "card--edited" in read_twice(browser, "/")


def test_a_time_zone_changed_between_two_starts_is_seen_at_once(project, cache):
    # The demo's PyTorch 2.4 article was published at midnight UTC on 24 July 2024; its
    # topic's page lists it as a card.
    card = re.compile(r"PyTorch 2\.4 .*?</a></h2>\s*<p class=\"meta\"><time[^>]*>([^<]+)<", re.S)
    with served(project, TIME_ZONE="UTC", **cache) as browser:
        assert card.search(read_twice(browser, "/tags/pytorch/")).group(1) == "24 July 2024"
    with served(project, TIME_ZONE="America/New_York", **cache) as browser:
        assert card.search(read_twice(browser, "/tags/pytorch/")).group(1) == "23 July 2024"


def test_a_media_url_changed_between_two_starts_is_seen_at_once(project, cache):
    article, _ = illustrated_article(project)
    with served(project, **cache) as browser:
        assert 'srcset="/media/' in read_twice(browser, article)
    with served(project, MEDIA_URL="https://media.example/", **cache) as browser:
        page = read_twice(browser, article)
    assert 'srcset="https://media.example/' in page
    assert '"/media/' not in page


RELEASE = "import django; django.setup(); from pagecache.release import release; print(release())"


@pytest.fixture(scope="module")
def two_checkouts(tmp_path_factory):
    """The same code installed at two paths, as on two machines."""
    copies = []
    for machine in ("a", "b"):
        copy = tmp_path_factory.mktemp(f"machine-{machine}") / "srv" / machine / "skillo"
        shutil.copytree(ROOT, copy, ignore=LEFT_OUT)
        copies.append(copy)
    return copies


def release_of(checkout, **settings):
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in {"DJANGO_SETTINGS_MODULE", "SKILLO_RELEASE", "TIME_ZONE"}
    }
    # Every path of its own, as each machine has.
    env |= {
        "DJANGO_SETTINGS_MODULE": "skillo.settings.production",
        "SECRET_KEY": "k" * 60,
        "SITE_URL": "https://news.example",
        "ALLOWED_HOSTS": "news.example",
        "DATABASE_URL": f"sqlite:///{checkout / 'db.sqlite3'}",
        "STATIC_ROOT": str(checkout / "staticfiles"),
        "MEDIA_ROOT": str(checkout.parent / "media"),
        "CACHE_URL": "dummy://",
        **settings,
    }
    result = subprocess.run(
        [sys.executable, "-c", RELEASE], cwd=checkout, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_two_machines_with_the_same_release_at_different_paths_share_the_release_id(
    two_checkouts,
):
    a, b = (release_of(checkout, SKILLO_RELEASE="3f2c9e1") for checkout in two_checkouts)
    assert a == b


def test_without_skillo_release_the_code_digest_does_not_depend_on_the_path(two_checkouts):
    a, b = (release_of(checkout) for checkout in two_checkouts)
    assert a == b


def test_a_setting_that_changes_pages_changes_the_release_id_on_the_same_release(
    two_checkouts,
):
    a, _ = two_checkouts
    utc = release_of(a, SKILLO_RELEASE="3f2c9e1", TIME_ZONE="UTC")
    paris = release_of(a, SKILLO_RELEASE="3f2c9e1", TIME_ZONE="Europe/Paris")
    assert utc != paris


def test_the_projects_own_install_metadata_does_not_change_the_release(two_checkouts):
    """pip writes skillo.egg-info into a checkout it installs; another machine's copy of
    the same code has none, or its own: it must name the same release."""
    a, b = two_checkouts
    shutil.rmtree(a / "skillo.egg-info", ignore_errors=True)
    (b / "skillo.egg-info").mkdir(exist_ok=True)
    (b / "skillo.egg-info" / "SOURCES.txt").write_text("skillo/settings/base.py\n")
    assert release_of(a) == release_of(b)
