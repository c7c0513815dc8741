"""Backups and restores killed halfway (kill -9), then run again: the second run cleans
up after the first. Each command runs in a process of its own, on a SQLite database and
a media folder of its own, and is stopped at a known point: a patch in the process
prints STOPPED and waits there, and the test kills it then. No sleeping: the test waits
for that line, with a deadline.

What is checked afterwards: no file in the media folder that no image uses (orphans),
every original named by the SHA-256 of its bytes (not "<sha256>_XXXXXXX.jpg"), and no
hidden work folder beside a backup.
"""

import hashlib
import json
import os
import select
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.pictures import picture
from textfiles.textformat import TAGS_FILE_HEADER

ROOT = Path(__file__).resolve().parent.parent
DEADLINE = 120  # seconds for a command to reach its stopping point, or to finish
PICTURES = 3
FOOTER = (
    "Published date reflects the original event date (2024-07-24). This article is original "
    "Skillo editorial written from the sources above; facts were verified in September 2026."
)

# Run in the command's process: STOP_AT names where it stops, the rest of argv is the
# command line of manage.py.
STOPPED_COMMAND = """
import os, sys
import django
django.setup()
from django.core.files import File
from django.core.management import call_command
from textfiles import importer, library
from textfiles.management.commands import export_site

def stop():
    print("STOPPED", flush=True)
    sys.stdin.read()  # until killed
    raise SystemExit("not killed")

def after(module, name, calls=1):
    real, made = getattr(module, name), []
    def stopping(*args, **kwargs):
        result = real(*args, **kwargs)
        made.append(1)
        if len(made) == calls:
            stop()
        return result
    setattr(module, name, stopping)

class HalfWritten(File):
    # The storage reads the original the second time (check_upload reads it first):
    # write half of it, then stop.
    reads = 0
    def chunks(self, chunk_size=None):
        HalfWritten.reads += 1
        if HalfWritten.reads < 4:  # the second picture's
            yield from super().chunks(chunk_size)
            return
        self.seek(0)
        data = self.read()
        yield data[: len(data) // 2]
        stop()

point = os.environ["STOP_AT"]
if point == "between two pictures":
    after(library, "_restore", calls=2)
elif point == "halfway through an original":
    library.File = HalfWritten
elif point == "while the articles are written":
    importer.import_articles = lambda *args, **kwargs: stop()
elif point == "after the commit":
    from textfiles import journal
    journal.Journal.discard = lambda self: stop()
elif point == "while the backup is written":
    after(export_site, "write_library")
call_command(*sys.argv[1:])
"""


def environment(site):
    environ = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "skillo.settings.development",
        "DATABASE_URL": f"sqlite:///{site / 'db.sqlite3'}",
        "MEDIA_ROOT": str(site / "media"),
        "CACHE_URL": "locmem://",
    }
    environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return environ


def manage(site, *arguments, succeed=True):
    """Run ``manage.py ARGUMENTS``; it must succeed, or with ``succeed=False`` fail."""
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=environment(site),
        capture_output=True, text=True, timeout=DEADLINE,
    )  # fmt: skip
    assert (done.returncode == 0) == succeed, done.stderr
    return done


def kill_when_stopped(site, point, *arguments):
    """Run ``manage.py ARGUMENTS`` until it stops at ``point``, then kill -9 it."""
    process = subprocess.Popen(
        [sys.executable, "-c", STOPPED_COMMAND, *arguments], cwd=ROOT,
        env={**environment(site), "STOP_AT": point}, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        give_up = time.monotonic() + DEADLINE
        line = ""
        while line != "STOPPED\n":
            left = give_up - time.monotonic()
            ready, _, _ = select.select([process.stdout], [], [], max(left, 0))
            assert ready, f"the command did not reach {point!r} in {DEADLINE} s"
            line = process.stdout.readline()
            assert line, f"the command ended before {point!r}: {process.stderr.read()}"
        os.kill(process.pid, signal.SIGKILL)
        assert process.wait(timeout=DEADLINE) == -signal.SIGKILL
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            stream.close()


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """An empty, migrated database, copied for each test."""
    site = tmp_path_factory.mktemp("migrated")
    manage(site, "migrate", "-v", "0")
    return site / "db.sqlite3"


@pytest.fixture
def site(tmp_path, migrated):
    site = tmp_path / "site"
    site.mkdir()
    shutil.copy(migrated, site / "db.sqlite3")
    return site


@pytest.fixture
def backup(tmp_path):
    """A site backup written as export_site writes one: pictures in the library, one of
    them an article's lead image."""
    folder = tmp_path / "backup"
    (folder / "articles").mkdir(parents=True)
    (folder / "images").mkdir()
    (folder / "tags.txt").write_text(TAGS_FILE_HEADER)
    records = []
    for number in range(1, PICTURES + 1):
        # The last is the lead image, which must be 1,200 pixels wide.
        data = (
            picture(1200, 675, seed=number)
            if number == PICTURES
            else picture(640, 360, seed=number)
        )
        key = hashlib.sha256(data).hexdigest()[:16]
        (folder / "images" / f"{key}.jpg").write_bytes(data)
        records.append(
            {
                "id": number, "file": f"{key}.jpg", "alt_text": f"Picture {number}",
                "decorative": False, "caption": "", "credit": "Photo: Skillo",
                "licence": "own", "focal_x": 0.5, "focal_y": 0.5,
                "original_name": f"picture-{number}.jpg",
                "uploaded_at": "2026-11-02T03:04:05+00:00",
            }
        )  # fmt: skip
    (folder / "images" / "library.json").write_text(json.dumps(records))
    (folder / "articles" / "a-title.txt").write_text(
        f"A title\n\nFormat: plain text\nSlug: a-title\nLead image: {key}\nId: 7\n\n"
        f"Some news.\n\n{FOOTER}\n"
    )
    return folder


def media_files(site):
    media = site / "media"
    return sorted(str(p.relative_to(media)) for p in media.rglob("*") if p.is_file())


def stored_images(site):
    with sqlite3.connect(site / "db.sqlite3") as database:
        return dict(database.execute("SELECT file, sha256 FROM images_image").fetchall())


def assert_every_file_is_in_use_and_named_by_content(site):
    images = stored_images(site)
    assert len(images) == PICTURES
    files = {"originals": [], "renditions": [], "anything else": []}
    for name in media_files(site):
        files.get(name.split("/")[0], files["anything else"]).append(name)
    originals, renditions = files["originals"], files["renditions"]
    assert files["anything else"] == []
    assert sorted(originals) == sorted(images)
    for name, sha256 in images.items():
        content = hashlib.sha256((site / "media" / name).read_bytes()).hexdigest()
        assert (content, name) == (sha256, f"originals/{sha256[:2]}/{sha256}.jpg")
    prefixes = {sha256[:24] for sha256 in images.values()}
    orphans = [name for name in renditions if name.split("/")[2][:24] not in prefixes]
    assert orphans == []


@pytest.mark.parametrize(
    "point",
    ["between two pictures", "halfway through an original", "while the articles are written"],
)
def test_a_restore_run_again_after_a_kill_leaves_no_orphans_and_names_by_content(
    site, backup, point
):
    kill_when_stopped(site, point, "import_site", str(backup))
    assert media_files(site), "the killed restore had written files"
    assert stored_images(site) == {}
    retry = manage(site, "import_site", str(backup))
    assert "file(s) left by a restore that did not finish." in retry.stdout
    assert_every_file_is_in_use_and_named_by_content(site)


def test_a_restore_killed_after_its_commit_keeps_its_files_at_the_next_run(site, backup):
    kill_when_stopped(site, "after the commit", "import_site", str(backup))
    assert len(stored_images(site)) == PICTURES
    # The next restore is refused (the database has the site), but cleans first: the
    # files the journal names are in use, so only the journal goes.
    manage(site, "import_site", str(backup), succeed=False)
    assert_every_file_is_in_use_and_named_by_content(site)


def test_an_export_run_again_after_a_kill_leaves_no_hidden_folder(site, backup, tmp_path):
    manage(site, "import_site", str(backup))
    backups = tmp_path / "backups"
    backups.mkdir()
    kill_when_stopped(site, "while the backup is written", "export_site", str(backups / "b"))
    assert [p for p in backups.iterdir() if p.is_dir()], "the killed export left its folder"
    manage(site, "export_site", str(backups / "b"))
    assert sorted(p.name for p in backups.iterdir()) == ["b"]
    assert (backups / "b" / "images" / "library.json").is_file()
