"""The Wagtail reference of the speed issue: what a Wagtail blog post page costs,
measured the way bench/pages.py measures Skillo's article page.

    .venv/bin/python bench/reference.py                 # 1,000 posts, 21 timed requests
    .venv/bin/python bench/reference.py --quick         # 50 posts, 5 timed requests
    .venv/bin/python bench/reference.py --posts 5000 --repeat 11

The issue asks that Skillo's uncached article page be at least 5x faster than "a
Wagtail reference site's blog post, in the same benchmark run". That reference is
bench/wagtail_reference/, a small self-contained Wagtail project modelled on Wagtail's
bakerydemo blog, the usual example of a Wagtail blog post:

- a ``blog`` app with BlogIndexPage (routable, a sub-URL per tag) and BlogPage: title,
  subtitle, introduction, a StreamField body (heading, rich text paragraph, image,
  quote and embed blocks), date published, tags through modelcluster's
  ClusterTaggableManager, authors through an orderable inline to a Person snippet;
- a ``base`` app with the Person and footer text snippets, generic settings read by
  the footer, standard pages for the rest of the top menu, and bakerydemo's navigation
  tags: the top menu (the site root's live children in menus, shown twice, for mobile
  and desktop), breadcrumbs (the page's ancestors) and the footer text;
- bakerydemo's base and blog post templates: title, introduction, date, authors with
  their names and avatar picture, body, tags linking to the index filtered by each;
- production settings: DEBUG off, ALLOWED_HOSTS 127.0.0.1, the cached template
  loader, bakerydemo's middleware without the debug toolbar, SQLite at the path in
  REFERENCE_DATABASE, Wagtail's database search backend.

Seeded (manage.py seed_blog) with N posts of 3,500-5,000 characters of body, 3 tags
(from as many tags as Skillo's benchmark seeds for that many articles) and 1-2 authors
each, under one BlogIndexPage under the site root; no images (its image fields are
empty, so renditions cost it nothing). Pinned: wagtail 8.0.1 on Django 6.1.3, the
Django that Skillo pins (bench/wagtail_reference/requirements.txt).

It runs in a virtualenv of its own, .venv-wagtail/ in the repository (made once, again
when requirements.txt changes), on a fresh SQLite database in a temp folder: migrate,
seed, then in a child process django.test.Client times, as bench/_inprocess.py does
(its own ``measure``), the post in the middle of the index's list and a minimal view
that returns that page's bytes from memory through the same middleware. Prints one JSON
object to stdout; progress goes to stderr.
"""

import argparse
import contextlib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._server import ROOT, BenchError, exit_cleanly_on_sigterm, log, tags_for

REFERENCE = Path(__file__).resolve().parent / "wagtail_reference"
REQUIREMENTS = REFERENCE / "requirements.txt"
VENV = ROOT / ".venv-wagtail"
VENV_PYTHON = VENV / "bin" / "python"
# Written last: a virtualenv without it (an install cut short) is made again.
VENV_MARKER = VENV / ".installed"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1000, help="blog posts to seed")
    parser.add_argument("--repeat", type=int, default=21, help="timed in-process requests")
    parser.add_argument("--quick", action="store_true", help="50 posts, 5 timed requests")
    args = parser.parse_args()
    if args.quick:
        args.posts, args.repeat = 50, 5
    return args


def run(command, env=None, timeout=600, stdout=None):
    """Run a step with its output on our stderr (or ``stdout``); BenchError if it fails."""
    try:
        return subprocess.run(
            command, cwd=REFERENCE, env=env, check=True, timeout=timeout,
            stdout=stdout or sys.stderr,
        )  # fmt: skip
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
        raise BenchError(f"{' '.join(map(str, command))} failed: {error}") from error


def requirements_digest():
    return hashlib.sha256(REQUIREMENTS.read_bytes()).hexdigest()


def ensure_venv():
    """The reference's virtualenv, made on first use (or when requirements.txt has
    changed) with this Python: Wagtail and its pins stay out of Skillo's .venv.
    Returns the seconds it took, 0 when it was already there."""
    if VENV_MARKER.exists() and VENV_MARKER.read_text() == requirements_digest():
        return 0.0
    started = time.perf_counter()
    log(f"Making {VENV.relative_to(ROOT)}/ (wagtail, {REQUIREMENTS.relative_to(ROOT)})")
    VENV_MARKER.unlink(missing_ok=True)
    run([sys.executable, "-m", "venv", "--clear", str(VENV)], timeout=300)
    pip = [str(VENV_PYTHON), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    run([*pip, "-r", str(REQUIREMENTS)], timeout=1200)
    VENV_MARKER.write_text(requirements_digest())
    seconds = time.perf_counter() - started
    log(f"  made in {seconds:.0f} s")
    return seconds


def reference_env(database):
    """The reference site's environment: its settings, its database, nothing of Skillo's
    (no PYTHONPATH, no DATABASE_URL)."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "DJANGO_SETTINGS_MODULE", "DATABASE_URL", "VIRTUAL_ENV")
    }
    return {
        **env,
        "DJANGO_SETTINGS_MODULE": "reference_site.settings",
        "REFERENCE_DATABASE": str(database),
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def prepare_database(env, posts):
    """Migrate and seed a fresh database; returns the seconds seeding took."""
    manage = [str(VENV_PYTHON), "manage.py"]
    log("Migrating the reference database")
    started = time.perf_counter()
    run([*manage, "migrate", "--noinput", "--verbosity", "0"], env=env, timeout=600)
    log(f"  migrated in {time.perf_counter() - started:.0f} s")
    log(f"Seeding {posts:,} blog posts")
    started = time.perf_counter()
    command = [*manage, "seed_blog", "--posts", str(posts), "--tags", str(tags_for(posts))]
    run(command, env=env, timeout=max(600, posts))
    seconds = time.perf_counter() - started
    log(f"  seeded in {seconds:.0f} s")
    return seconds


@contextlib.contextmanager
def reference_site(posts=1000):
    """A freshly seeded reference site of ``posts`` posts, for as long as the block
    lasts: yields ``measure(repeat)``, which times its blog post page in a new process
    each call and returns {"django", "wagtail", "posts", "queries", "median_ms",
    "p99_ms", "minimal_median_ms"} (milliseconds: the median and p99 of ``repeat``
    requests, and the minimal view's median as the yardstick)."""
    ensure_venv()
    with tempfile.TemporaryDirectory(prefix="skillo-bench-wagtail-") as folder:
        env = reference_env(Path(folder) / "reference.sqlite3")
        prepare_database(env, posts)

        def measure(repeat):
            log(f"Timing the blog post page ({repeat} requests)")
            result = run(
                [str(VENV_PYTHON), "measure.py", "--repeat", str(repeat)],
                env=env, timeout=600, stdout=subprocess.PIPE,
            )  # fmt: skip
            try:
                measured = json.loads(result.stdout)
            except ValueError as error:
                raise BenchError(f"measure.py printed no JSON: {result.stdout[:200]!r}") from error
            keys = (
                "django", "wagtail", "posts", "queries", "median_ms", "p99_ms",
                "minimal_median_ms",
            )  # fmt: skip
            return {key: measured[key] for key in keys}

        yield measure


def measure_reference(posts=1000, repeat=21):
    """The reference's blog post page, timed once on a fresh site (see reference_site)."""
    with reference_site(posts) as measure:
        return measure(repeat)


def main():
    exit_cleanly_on_sigterm()
    args = parse_args()
    try:
        result = measure_reference(args.posts, args.repeat)
    except BenchError as error:
        sys.exit(f"Wagtail reference failed: {error}")
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
