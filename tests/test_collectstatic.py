"""make serve's collectstatic (manage.py collectstatic_if_changed): skipped when nothing it
would collect has changed, run when something has."""

import os
from io import StringIO

import pytest
from django.core.management import call_command

from skillo.settings import base


@pytest.fixture
def site(settings, tmp_path):
    """A STATIC_ROOT of its own and one more folder of sources, to change."""
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "note.txt").write_text("first")
    settings.STATIC_ROOT = tmp_path / "collected"
    settings.STATICFILES_DIRS = [*base.STATICFILES_DIRS, extra]
    return extra, settings.STATIC_ROOT


def collect():
    out = StringIO()
    call_command("collectstatic_if_changed", verbosity=1, stdout=out)
    return out.getvalue()


def test_nothing_changed_since_the_last_collect_collects_nothing(site):
    _, collected = site
    assert "copied to" in collect()
    before = {path: path.stat().st_mtime_ns for path in collected.rglob("*")}
    assert collect().strip() == "Static files unchanged since they were collected."
    assert {path: path.stat().st_mtime_ns for path in collected.rglob("*")} == before


def test_a_changed_source_file_is_collected(site):
    extra, collected = site
    collect()
    note = extra / "note.txt"
    note.write_text("second")
    # An edit made later than the last collect (collectstatic copies a file newer than its
    # copy), not within the file system's clock tick of it.
    later = note.stat().st_mtime + 10
    os.utime(note, (later, later))
    assert "copied to" in collect()
    assert (collected / "note.txt").read_text() == "second"


def test_a_setting_of_the_storage_changed_collects_again(site, settings):
    collect()
    settings.STATIC_URL = "/assets/"
    assert "copied to" in collect()
