"""Child process of bench/reference.py, run with .venv-wagtail's python in this folder:
times a blog post page of the seeded reference site in-process, printing JSON.

    DJANGO_SETTINGS_MODULE=reference_site.settings REFERENCE_DATABASE=... \\
        python measure.py [--repeat 21]

The timing is Skillo's own (bench/_inprocess.py ``measure``), loaded from its file so
that Skillo's packages stay off this process's path.
"""

import argparse
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path

INPROCESS = Path(__file__).resolve().parent.parent / "_inprocess.py"


def skillo_measure():
    """``measure(client, path, repeat)`` of bench/_inprocess.py: warm-up, queries of one
    request, median and 99th percentile of ``repeat`` timed ones."""
    spec = importlib.util.spec_from_file_location("skillo_bench_inprocess", INPROCESS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.measure


def middle_post():
    """The post in the middle of the index's list (newest first): neither the newest
    nor the oldest, as a reader following a link would land on."""
    from blog.models import BlogPage

    posts = BlogPage.objects.live().order_by("-date_published", "pk")
    count = posts.count()
    if not count:
        raise SystemExit("The reference site has no blog posts: seed it first.")
    return count, posts[count // 2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()

    import django

    django.setup()
    import wagtail
    from django.test import Client
    from reference_site.urls import MINIMAL_PATH

    measure = skillo_measure()
    count, post = middle_post()
    path = post.url
    client = Client(HTTP_HOST="127.0.0.1")
    queries, median_ms, p99_ms = measure(client, path, args.repeat)
    print(
        f"  {path:<24} {queries:>3} queries {median_ms:>8.1f} ms, p99 {p99_ms:>8.1f} ms",
        file=sys.stderr,
    )
    # The yardstick: the same page's bytes from memory through the same middleware.
    with tempfile.NamedTemporaryFile(suffix=".html") as page:
        page.write(client.get(path).content)
        page.flush()
        os.environ["BENCH_MINIMAL_PAGE"] = page.name
        _, minimal_median_ms, _ = measure(client, MINIMAL_PATH, args.repeat)
    print(f"  {'minimal view':<24}     {' ' * 8}{minimal_median_ms:>8.2f} ms", file=sys.stderr)
    json.dump(
        {
            "django": django.get_version(),
            "wagtail": wagtail.__version__,
            "posts": count,
            "path": path,
            "queries": queries,
            "median_ms": median_ms,
            "p99_ms": p99_ms,
            "minimal_median_ms": minimal_median_ms,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
