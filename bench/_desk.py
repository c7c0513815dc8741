"""Child process of bench/desk.py: times the article form's requests in-process
(django.test.Client, logged in as an editor) in a seeded database, printing JSON.

    DJANGO_SETTINGS_MODULE=bench.settings DATABASE_URL=... PAGE_CACHE=0 \\
        python -m bench._desk [--repeat 15]
"""

import argparse
import json
import statistics
import sys
import time


def heavy_article():
    """A published article with several topics, sources, related links and authors: the
    form with the most rows to draw and save."""
    from django.db.models import Count

    from news.models import Article

    recent = list(
        Article.objects.published().order_by("-published_at").values_list("pk", flat=True)[:500]
    )
    return (
        Article.objects.filter(pk__in=recent)
        .annotate(
            n_tags=Count("tagged_items", distinct=True),
            n_sources=Count("sources", distinct=True),
            n_links=Count("related_links", distinct=True),
        )
        .order_by("-n_sources", "-n_links", "-n_tags", "-pk")
        .first()
    )


def editor_client():
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    user, _ = get_user_model().objects.get_or_create(
        username="bench-editor", defaults={"is_staff": True}
    )
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(user)
    return client


def timed(request, repeat, check):
    """Median and slowest milliseconds of ``request()`` over ``repeat`` runs after one to
    warm up, and the queries of the last run. ``check(response)`` must hold for each."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    times = []
    for n in range(repeat + 1):
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = request(n)
            elapsed = (time.perf_counter() - started) * 1000
        if not check(response):
            body = response.content.decode(errors="replace")[:1500]
            raise SystemExit(f"unexpected answer {response.status_code}: {body}")
        if n:
            times.append(elapsed)
    return {
        "median_ms": statistics.median(times),
        "max_ms": max(times),
        "queries": len(queries),
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()

    import django

    django.setup()
    from django.urls import reverse

    from bench.editors import form_fields
    from news.models import Article

    client = editor_client()
    article = heavy_article()
    add_url = reverse("admin:news_article_add")
    change_url = reverse("admin:news_article_change", args=[article.pk])

    def ok(response):
        return response.status_code == 200

    def saved(response):
        return response.status_code == 302 and "/login/" not in response.get("Location", "")

    def save_change(n):
        fields = form_fields(client.get(change_url).content.decode(), "article_form")
        fields = [[k, v + f"\n\nBench edit {n}." if k == "body" else v] for k, v in fields]
        fields.append(["_continue", "Save"])
        return timed_post(change_url, fields)

    def save_new(n):
        fields = dict(form_fields(client.get(add_url).content.decode(), "article_form"))
        fields.update(
            title=f"Bench desk article {n} {time.time_ns()}",
            body=f"## What happened\n\nA new release, number {n}.\n",
            tags="bench, release",
            event_date="2026-11-30",
            published_at_0="2026-11-30",
            published_at_1="09:00",
            facts_verified="2026-11",
            **{"sources-0-title": "Release notes", "sources-0-publisher": "Bench"},
        )
        fields["_save"] = "Save"
        return timed_post(add_url, list(fields.items()))

    # Only the POST is timed: the form it was filled from was loaded before.
    posts = {}

    def timed_post(url, fields):
        from urllib.parse import urlencode

        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        body = urlencode([tuple(pair) for pair in fields])
        with CaptureQueriesContext(connection) as queries:
            started = time.perf_counter()
            response = client.post(url, body, content_type="application/x-www-form-urlencoded")
            elapsed = (time.perf_counter() - started) * 1000
        posts.setdefault(url, []).append((elapsed, len(queries)))
        return response

    form_data = dict(form_fields(client.get(change_url).content.decode(), "article_form"))
    results = {
        "articles": Article.objects.count(),
        "article": article.slug,
        "open add form": timed(lambda n: client.get(add_url), args.repeat, ok),
        "open change form": timed(lambda n: client.get(change_url), args.repeat, ok),
        "preview while typing": timed(
            lambda n: client.post(reverse("admin:news_article_preview"), form_data),
            args.repeat,
            ok,
        ),
        "autosave while typing": timed(
            lambda n: client.post(
                reverse("admin:news_article_autosave"),
                {"article": article.pk, "title": article.title, "body": f"{article.body} {n}"},
            ),
            args.repeat,
            ok,
        ),
    }
    for name, request, url in (
        ("save changes", save_change, change_url),
        ("save new article", save_new, add_url),
    ):
        posts.clear()
        timed(request, args.repeat, saved)  # each run loads the form, then saves it
        times = [ms for ms, _ in posts[url][1:]]
        results[name] = {
            "median_ms": statistics.median(times),
            "max_ms": max(times),
            "queries": posts[url][-1][1],
        }
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
