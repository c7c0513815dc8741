"""The release (pagecache.release): what it changes with, and what it does not."""

import threading

from pagecache import release


def test_the_release_is_the_same_in_every_thread_of_a_process():
    # A lazy setting (django-axes' username field) reads differently before and after it
    # is first used: the release must not.
    release.release.cache_clear()
    found = []
    thread = threading.Thread(target=lambda: found.append(release.release()))
    thread.start()
    thread.join()
    release.release.cache_clear()
    assert found == [release.release()]


def test_a_setting_that_changes_output_changes_the_release(settings):
    before = release.release()
    settings.TIME_ZONE = "America/New_York"
    assert release.release() != before
    settings.TIME_ZONE = "UTC"
    settings.MEDIA_URL = "https://media.example/"
    assert release.release() != before


def test_the_configured_release_names_the_code(settings):
    settings.SKILLO_RELEASE = "2026-12-01-a"
    named = release.release()
    settings.SKILLO_RELEASE = "2026-12-01-b"
    assert release.release() != named
    assert release.code_digest() == "2026-12-01-b"


def test_secrets_are_not_part_of_the_release(settings):
    before = release.release()
    settings.SECRET_KEY = "another secret " * 4
    assert release.release() == before


def test_the_code_is_the_project_s_files_not_its_uploads_or_tests(settings, tmp_path):
    names = {
        path.relative_to(settings.BASE_DIR).parts[0]
        for path in release.code_files(settings.BASE_DIR)
    }
    assert {"news", "templates", "static", "pagecache"} <= names
    assert not names & {"tests", "media", ".venv", ".git", "staticfiles"}
