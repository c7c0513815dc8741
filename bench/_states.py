"""Child process of bench/states.py: each page's server time in three states, in-process
(django.test.Client, the page cache off), printing JSON.

- warm: every fragment and remembered value kept (the second reader after a change);
- after an edit: the page's newest article changed (its purge), the rest kept;
- cold: nothing kept, every cache emptied before each request (the first reader after
  a deploy).

    DJANGO_SETTINGS_MODULE=bench.settings DATABASE_URL=... PAGE_CACHE=0 \\
        python -m bench._states [--repeat 50]
"""

import argparse
import json
import sys

# The pages of the speed issue, by bench._inprocess.pick_urls()'s names.
PAGES = {
    "article": "article",
    "home": "home",
    "topic": "tag",
    "author": "author",
    "archive": "archive month",
}
STATES = ("warm", "after an edit", "cold")


def edited_article(name, path):
    """The article whose edit the page shows: the article itself, else the newest of
    the list."""
    from django.urls import resolve

    from news.models import Article

    kwargs = resolve(path).kwargs
    published = Article.objects.published()
    if name == "article":
        return published.get(slug=kwargs["slug"]).pk
    if name == "topic":
        published = published.filter(tags__slug=kwargs["slug"])
    elif name == "author":
        published = published.filter(authorships__author__slug=kwargs["slug"])
    elif name == "archive":
        published = published.filter(
            event_date__year=kwargs["year"], event_date__month=kwargs["month"]
        )
    return published.order_by("-published_at", "-pk").values_list("pk", flat=True).first()


def before_each(state, name, path):
    from django.core.cache import caches

    from news.dependencies import ARTICLE
    from pagecache import purges

    if state == "warm":
        return lambda: None
    if state == "cold":
        return lambda: [cache.clear() for cache in caches.all()]
    keys = {ARTICLE(edited_article(name, path))}
    return lambda: purges.purge(keys)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()

    import django

    django.setup()
    from django.test import Client

    from bench._inprocess import measure, pick_urls

    urls = dict(pick_urls())
    client = Client(HTTP_HOST="127.0.0.1")
    results = []
    for page, picked in PAGES.items():
        path = urls[picked]
        for state in STATES:
            queries, median_ms, _ = measure(
                client, path, args.repeat, before_each(state, page, path)
            )
            print(
                f"  {page:<8} {state:<14} {queries:>3} queries {median_ms:7.2f} ms", file=sys.stderr
            )
            results.append(
                {"page": page, "path": path, "state": state, "queries": queries, "ms": median_ms}
            )
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
