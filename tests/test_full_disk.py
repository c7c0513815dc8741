"""A full disk (issue 27, point 3): an upload is a form error that says so and keeps
what the editor typed, no file is left behind, and a save whose database cannot grow
names that cause rather than an unreachable database.

The disk is real: a tmpfs of 1 MiB mounted for the test (make test runs as root) and
filled to leave a chosen number of bytes."""

import io
import os
import subprocess

import pytest
from django.db import connection
from django.tasks import TaskResultStatus
from django.test import Client
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from images.models import Image
from images.storage import FileSystemStorage

from .background_tasks import run_queued
from .factories import ArticleFactory
from .pictures import picture
from .test_admin import form_data
from .test_image_uploads import ADD_URL, editor, post_image  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

UPLOAD = picture(2400, 1350, seed=27)


class SmallDisk:
    def __init__(self, root):
        self.root = root

    def leave(self, free):
        """Fill the disk until about ``free`` bytes are left."""
        filler = self.root / "filler"
        filler.write_bytes(b"")
        stats = os.statvfs(self.root)
        filler.write_bytes(b"\0" * max(stats.f_bavail * stats.f_frsize - free, 0))

    def files(self):
        """Every file on it but the filler, hidden ones included, as paths under it."""
        return sorted(
            str(path.relative_to(self.root))
            for path in self.root.rglob("*")
            if path.is_file() and path.name != "filler"
        )


@pytest.fixture
def small_disk(tmp_path, settings):
    root = tmp_path / "disk"
    root.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(root)],
        capture_output=True, text=True,
    )  # fmt: skip
    if mounted.returncode != 0:
        pytest.fail(f"These tests mount a small tmpfs and need root: {mounted.stderr.strip()}")
    settings.MEDIA_ROOT = root / "media"
    try:
        yield SmallDisk(root)
    finally:
        subprocess.run(["umount", "--lazy", str(root)], check=True)


def test_a_write_that_fills_the_disk_leaves_no_file(small_disk):
    small_disk.leave(len(UPLOAD) // 2)
    storage = FileSystemStorage(location=small_disk.root / "media")
    with pytest.raises(OSError, match="No space left"):
        storage.save("originals/ab/picture.jpg", io.BytesIO(UPLOAD))
    assert small_disk.files() == []


def test_an_upload_whose_original_does_not_fit_is_a_form_error_and_leaves_no_file(
    editor,  # noqa: F811
    small_disk,
):
    small_disk.leave(len(UPLOAD) // 2)
    response = post_image(editor, UPLOAD)
    assert response.status_code == 200
    (error,) = response.context["adminform"].form.non_field_errors()
    assert error.startswith("The server has no space left on its disk; nothing was saved.")
    assert not Image.objects.exists()
    assert small_disk.files() == []


def test_renditions_that_do_not_fit_wait_for_space_and_leave_no_partial_file(editor, small_disk):  # noqa: F811
    # The original fits; its renditions, made by the worker, do not.
    small_disk.leave(len(UPLOAD) + 8192)
    assert post_image(editor, UPLOAD).status_code == 302
    image = Image.objects.get()
    run_queued()
    (result,) = DBTaskResult.objects.filter(task_path="images.tasks.make_renditions")
    assert result.status == TaskResultStatus.READY  # to be tried again, later
    assert "No space left" in result.traceback
    image.refresh_from_db()
    assert not image.renditions_ready
    # Whole renditions may be there, never a partial one.
    assert not [name for name in small_disk.files() if ".partial-" in name]
    (small_disk.root / "filler").unlink()
    DBTaskResult.objects.update(run_after=timezone.now())
    run_queued()
    image.refresh_from_db()
    assert image.crops_ready


def test_the_form_on_a_full_disk_keeps_the_words_the_editor_typed(editor, small_disk):  # noqa: F811
    small_disk.leave(len(UPLOAD) // 2)
    page = post_image(editor, UPLOAD, caption="The new run queue").content.decode()
    assert 'value="A laptop showing a terminal"' in page
    assert "The new run queue" in page


def test_the_same_upload_succeeds_once_there_is_space_again(editor, small_disk):  # noqa: F811
    small_disk.leave(len(UPLOAD) // 2)
    post_image(editor, UPLOAD)
    (small_disk.root / "filler").unlink()
    assert post_image(editor, UPLOAD).status_code == 302
    image = Image.objects.get()
    # Named by its content, as if the failed try had never been.
    assert image.file.name == f"originals/{image.sha256[:2]}/{image.sha256}.jpg"


@pytest.mark.sqlite_only(reason="fills SQLite's file: max_page_count is SQLite's")
def test_a_save_into_a_full_database_names_the_full_disk_and_shows_the_text(admin_user):
    # As a browser sees it: the project's error handler, not the exception.
    admin_client = Client(raise_request_exception=False)
    admin_client.force_login(admin_user)
    ArticleFactory(title="Already there")
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        (pages,) = cursor.fetchone()
        # SQLite's own "database or disk is full" once the file would grow.
        cursor.execute(f"PRAGMA max_page_count = {pages}")
    try:
        response = admin_client.post(
            "/admin/news/article/add/",
            form_data(body="## Grown\n\n" + "A long new paragraph. " * 2000),
        )
    finally:
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA max_page_count = 4294967294")
    page = response.content.decode()
    assert response.status_code == 503
    assert "no space left on its disk" in page
    assert "cannot reach its database" not in page
    assert "A long new paragraph." in page
