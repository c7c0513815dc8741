"""The media storage on a filesystem without hard links (CIFS, some FUSE mounts): a
file still appears under its name whole, and never over another file. Such a
filesystem is stood for by link() refusing as they refuse it (EPERM): this machine has
none to mount."""

import errno
import os

import pytest
from django.core.files.base import ContentFile

from images.storage import FileSystemStorage

DATA = b"\xff\xd8" + b"a rendition, whole" * 1000


def content(data=DATA):
    return ContentFile(data)


@pytest.fixture
def no_hard_links(monkeypatch):
    def refuse(source, target, *args, **kwargs):
        raise PermissionError(errno.EPERM, "Operation not permitted", source)

    monkeypatch.setattr(os, "link", refuse)


def test_a_file_is_saved_whole_under_its_name_without_hard_links(tmp_path, no_hard_links):
    storage = FileSystemStorage(location=tmp_path)
    name = storage.save("renditions/ab/picture-w800.jpg", content())
    assert name == "renditions/ab/picture-w800.jpg"
    assert (tmp_path / name).read_bytes() == DATA
    assert sorted(p.name for p in (tmp_path / "renditions/ab").iterdir()) == [
        "picture-w800.jpg"
    ]  # no partial file left


def test_a_second_file_of_that_name_does_not_replace_the_first(tmp_path, no_hard_links):
    storage = FileSystemStorage(location=tmp_path)
    first = storage.save("originals/ab/x.jpg", content())
    second = storage.save("originals/ab/x.jpg", content(b"other bytes"))
    assert first != second
    assert (tmp_path / first).read_bytes() == DATA
    assert (tmp_path / second).read_bytes() == b"other bytes"
