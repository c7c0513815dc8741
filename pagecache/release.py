"""The release: a name for what the site's output is made with, in every key under which
the cache keeps output (whole pages, fragments, remembered values), so that a deploy or
a settings change is seen at once on every server, whatever the cache still holds.

It digests two things:

- the code: ``SKILLO_RELEASE`` (say, the commit a deploy installs) or, without it, the
  project's own files (Python, templates, static files) and the installed packages'
  versions, read once per process. A digest of the files rather than the git commit by
  default: it also changes with an edit not committed yet, and where no .git was
  deployed;
- the settings: every setting but secrets, connections and paths (``TIME_ZONE``,
  ``MEDIA_URL``, ``LANGUAGE_CODE``, ``STATIC_URL``... all change what pages say).

Never where the code sits: two machines with the same commit installed at different
paths (``BASE_DIR``, ``STATIC_ROOT``, ``MEDIA_ROOT``) share their pages in the cache, and
the start of one does not purge the other's pages from Varnish.

The dependency tokens themselves carry no release (pagecache.store): a purge made by a
server of one release reaches the pages of every release, as in a rolling deploy.
"""

import contextlib
import functools
import hashlib
import json
import os
import re
import sys
from pathlib import Path, PurePath

from django.conf import settings
from django.core.signals import setting_changed
from django.utils.functional import LazyObject, Promise

# Settings left out of the digest: secrets, and what says where things are rather than
# what pages show (the cache's own settings hold the release's consequences). Paths
# (pathlib's, in BASE_DIR, STATIC_ROOT, TEMPLATES...) count as "a path" whatever they
# say; these are paths in plain strings.
PRIVATE = re.compile(r"SECRET|PASSWORD|TOKEN|API_KEY|PRIVATE")
LEFT_OUT = {"DATABASES", "CACHES", "SKILLO_RELEASE", "FILE_UPLOAD_TEMP_DIR"}
# What of the project's folder is code, templates or static files.
SUFFIXES = {
    ".py", ".html", ".txt", ".xml", ".json", ".css", ".js", ".svg", ".png", ".ico",
    ".jpg", ".webp", ".avif", ".woff", ".woff2",
}  # fmt: skip
# Folders of the project that pages are not made from.
SKIPPED = {
    "__pycache__", "node_modules", "tests", "bench", "docs", "deploy", "media", "staticfiles",
}  # fmt: skip
METADATA_FOLDERS = (".dist-info", ".egg-info")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def code_files(root):
    """The project's files that pages are made from, in a stable order."""
    skipped = {Path(settings.MEDIA_ROOT).resolve(), Path(settings.STATIC_ROOT).resolve()}
    for folder, subfolders, files in os.walk(root):
        subfolders[:] = sorted(
            name
            for name in subfolders
            if not name.startswith(".")
            and name not in SKIPPED
            # pip's metadata of the project's own install (skillo.egg-info): written by
            # each machine's install, not copied with the code, so two machines of one
            # commit named two releases and never shared a page.
            and not name.endswith(METADATA_FOLDERS)
            and (Path(folder) / name).resolve() not in skipped
        )
        for name in sorted(files):
            if Path(name).suffix in SUFFIXES:
                yield Path(folder) / name


@functools.cache
def code_digest():
    """Of the installed code: ``SKILLO_RELEASE``, or the project's files and packages."""
    if settings.SKILLO_RELEASE:
        return settings.SKILLO_RELEASE
    digest = hashlib.blake2b(digest_size=10)
    root = Path(settings.BASE_DIR)
    for path in code_files(root):
        digest.update(str(path.relative_to(root)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    digest.update("\n".join(installed_packages()).encode())
    return digest.hexdigest()


def installed_packages():
    """Names and versions of the installed distributions, from their metadata folders'
    names (``Django-6.1.3.dist-info``): reading each one's metadata took longer than
    digesting the project's files."""
    found, project = set(), Path(settings.BASE_DIR).resolve()
    for entry in sys.path:
        if Path(entry or ".").resolve() == project:
            continue  # the project's own install metadata (skillo.egg-info), per machine
        with contextlib.suppress(OSError):
            found.update(
                name for name in os.listdir(entry or ".") if name.endswith(METADATA_FOLDERS)
            )
    return sorted(found)


def _value(value):
    # A stable text for any setting: lazy values by what they stand for (their repr
    # changes once they are read), sets sorted, any path as just a path (where a machine installed
    # the code is no part of the release), objects without a JSON form by their repr,
    # less the memory addresses that differ between processes.
    if isinstance(value, LazyObject | Promise):
        return str(value)
    if isinstance(value, PurePath):
        return "a path"
    if isinstance(value, set | frozenset):
        # In order: a set's own order changes with each process's string hashing.
        return sorted(value, key=repr)
    if callable(value):
        return f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', value)}"
    return ADDRESS.sub("", repr(value))


def settings_digest():
    shown = {
        name: getattr(settings, name)
        for name in dir(settings)
        if name.isupper() and name not in LEFT_OUT and not PRIVATE.search(name)
    }
    text = json.dumps(shown, sort_keys=True, default=_value)
    return hashlib.blake2b(text.encode(), digest_size=6).hexdigest()


@functools.cache
def release():
    """The release's name: short, and safe in a cache key and a header."""
    return hashlib.blake2b(
        f"{code_digest()}\n{settings_digest()}".encode(), digest_size=6
    ).hexdigest()


def key(name):
    """``name`` as a cache key of this release."""
    return f"{name}@{release()}"


def _settings_changed(**kwargs):
    # A test's override_settings changes the release as a new start would.
    release.cache_clear()
    if kwargs["setting"] in {"SKILLO_RELEASE", "BASE_DIR"}:
        code_digest.cache_clear()


setting_changed.connect(_settings_changed)
