"""Imports that go wrong: unreadable and malformed files, a run cut short. Each leaves the
database as it was and says which file (and line) to fix."""

import errno
import os
import threading
import time
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import OperationalError

from news.models import RelatedLink

from .factories import ArticleFactory
from .test_import_export import database_state, write

pytestmark = pytest.mark.django_db


def run_import(*paths):
    """The import command's error output; it must fail."""
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_articles", *map(str, paths), stdout=StringIO(), stderr=err)
    return err.getvalue()


@pytest.fixture
def folder(tmp_path):
    """A folder with one good article, beside an article already in the database."""
    ArticleFactory(title="Already here", body="Old text.")
    write(tmp_path, "a-good.txt", title="A good one")
    return tmp_path


def test_a_file_that_is_not_utf8_names_file_and_line(folder):
    path = write(folder, "latin1.txt", title="Cafe news")
    path.write_bytes(path.read_bytes().replace(b"Cafe", "Caf\xe9".encode("latin-1")))
    before = database_state()
    assert f"{path}:1: not UTF-8 text (invalid continuation byte at byte 3)." in run_import(folder)
    assert database_state() == before


def test_a_nul_character_names_file_and_line(folder):
    # SQLite would store it, PostgreSQL refuses it halfway through the writes.
    write(folder, "nul.txt", body="What happened\n\nA\x00B")
    before = database_state()
    assert f"{folder / 'nul.txt'}:5: a NUL character; not a text file." in run_import(folder)
    assert database_state() == before


def test_a_folder_named_like_an_article_is_reported_not_a_crash(folder):
    (folder / "b-folder.txt").mkdir()
    before = database_state()
    assert f"{folder / 'b-folder.txt'}: not a regular file." in run_import(folder)
    assert database_state() == before


def serve_as_writer(fifo, done, deadline=30):
    """Open ``fifo`` for writing and close it at once, whenever a reader waits on it, until
    ``done`` is set (or the deadline passes). Never blocks: a non-blocking open for
    writing fails with ENXIO while no one reads, so it polls instead."""
    give_up = time.monotonic() + deadline
    while not done.is_set() and time.monotonic() < give_up:
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError as error:
            if error.errno != errno.ENXIO:  # the FIFO is gone: nothing left to serve
                return
        done.wait(0.01)


def test_a_fifo_is_reported_instead_of_hanging_the_import(folder):
    fifo = folder / "pipe.txt"
    os.mkfifo(fifo)
    # Reading a FIFO waits for a writer. This one opens and closes it as soon as a reader
    # waits, so an import that reads the FIFO fails this test instead of hanging it.
    done = threading.Event()
    writer = threading.Thread(target=serve_as_writer, args=(fifo, done), daemon=True)
    writer.start()
    try:
        assert f"{fifo}: not a regular file." in run_import(folder)
    finally:
        done.set()
        writer.join(timeout=5)
    assert not writer.is_alive()


def test_a_file_without_read_permission_is_named(folder, monkeypatch):
    # As root chmod 000 changes nothing, so the refusal is simulated where the file is read.
    locked = write(folder, "locked.txt", title="Locked")
    read_bytes = Path.read_bytes

    def refuse(path):
        if path == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return read_bytes(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    before = database_state()
    assert f"{locked}: cannot be read (Permission denied)." in run_import(folder)
    assert database_state() == before


@pytest.fixture
def five_files(tmp_path):
    """Five articles to import, the third an update of an article already stored."""
    ArticleFactory(title="Third", body="The stored text.")
    for number, name in enumerate(["first", "second", "third", "fourth", "fifth"], 1):
        write(tmp_path, f"{number}-{name}.txt", title=name.title(), body=f"{name} text.")
    return tmp_path


def fail_on_third_write(monkeypatch, error):
    """Interrupt the import in the middle of the third file: after its article and
    sources are written, before its related links."""
    bulk_create = RelatedLink.objects.bulk_create
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise error
        return bulk_create(*args, **kwargs)

    monkeypatch.setattr(RelatedLink.objects, "bulk_create", interrupted)


def test_a_database_error_in_the_third_of_five_files_names_it_and_keeps_nothing(
    five_files, monkeypatch
):
    fail_on_third_write(monkeypatch, OperationalError("server closed the connection"))
    before = database_state()
    err = run_import(five_files)
    assert f"{five_files / '3-third.txt'}:1: the import stopped while writing" in err
    assert "server closed the connection" in err
    assert database_state() == before


def test_an_interrupted_import_keeps_nothing(five_files, monkeypatch):
    # Ctrl-C: no message to give, but nothing of the first two files or the third stays.
    fail_on_third_write(monkeypatch, KeyboardInterrupt())
    before = database_state()
    with pytest.raises(KeyboardInterrupt):
        call_command("import_articles", str(five_files), stdout=StringIO())
    assert database_state() == before
