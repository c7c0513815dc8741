"""Child process of bench/pages.py and bench/load.py: picks the benchmark's URLs in a
seeded database and times each page in-process (django.test.Client), printing JSON.

    DJANGO_SETTINGS_MODULE=bench.settings DATABASE_URL=... PAGE_CACHE=0 \\
        python -m bench._inprocess [--repeat 11] [--pick-only | --count-only | --only PAGE]
"""

import argparse
import json
import statistics
import sys
import time


def pick_urls():
    """The pages to measure, as (name, path), chosen to be realistic and heavy: the most
    used topic, an article with several tags, sources and related links, the busiest
    author."""
    from django.db.models import Count
    from django.urls import reverse

    from news.models import Article
    from news.topics import all_topics
    from people.models import Author

    published = Article.objects.published()
    recent = list(published.order_by("-published_at").values_list("pk", flat=True)[:500])
    article = (
        Article.objects.filter(pk__in=recent, related_links__target__isnull=False)
        .annotate(
            n_tags=Count("tagged_items", distinct=True),
            n_sources=Count("sources", distinct=True),
            n_links=Count("related_links", distinct=True),
        )
        .filter(n_tags__gte=3, n_sources__gte=2, n_links__gte=2)
        .order_by("-published_at")
        .first()
    ) or published.order_by("-published_at").first()
    tag = min(all_topics(), key=lambda topic: (-topic.article_count, topic.name))
    years = published.dates("event_date", "year")
    # The year before the latest one is complete: a full archive page.
    year = years[max(0, len(years) - 2)].year
    months = published.filter(event_date__year=year).dates("event_date", "month")
    month = months[len(months) // 2].month
    author = Author.objects.annotate(n=Count("authorships")).order_by("-n", "pk").first()
    return [
        ("home", "/"),
        ("home page 2", "/?page=2"),
        ("article", article.get_absolute_url()),
        ("tag", reverse("news:tag", args=[tag.slug])),
        ("tag timeline", reverse("news:tag-timeline", args=[tag.slug])),
        ("archive year", reverse("news:archive-year", args=[year])),
        ("archive month", reverse("news:archive-month", args=[year, month])),
        ("tag index", reverse("news:tags")),
        *([("author", reverse("news:author", args=[author.slug]))] if author else []),
        *search_pages(),
        ("RSS feed", reverse("news:feed")),
        ("tag feed", reverse("news:tag-feed", args=[tag.slug])),
        ("sitemap.xml", reverse("sitemap")),
        ("news sitemap", reverse("news:sitemap-news")),
    ]


def search_pages():
    """A search page for each query kind of the speed issue, in the synthetic articles'
    words (devdata/synthetic.py): a rare product, a common theme, the word in every
    article, two words, a quoted phrase and the first letters of a word."""
    from urllib.parse import urlencode

    from django.urls import reverse

    from devdata.synthetic import COMMON_WORD, PRODUCTS

    queries = {
        "rare word": PRODUCTS[-1].lower(),  # the Zipf tail
        "common word": "security",
        "very common word": COMMON_WORD,
        "two words": "faster scheduler",
        "quoted phrase": '"garbage collector"',
        "prefix": "postg",
    }
    return [
        (f"search: {kind}", f"{reverse('search:results')}?{urlencode({'q': query})}")
        for kind, query in queries.items()
    ]


def measure(client, path, repeat, before=None):
    """Queries of one request and the median of ``repeat`` timed ones, after a warm-up.

    ``before``: called before each request, untimed (to make fragments stale)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    before = before or (lambda: None)
    response = client.get(path)
    if response.status_code != 200:
        raise SystemExit(f"GET {path} answered {response.status_code}")
    before()
    with CaptureQueriesContext(connection) as captured:
        client.get(path)
    # Counted now: the captured list is a view of the connection's log, which the next
    # request clears.
    queries = len(captured)
    # Timed without capturing: recording each query's SQL costs time too.
    timings = []
    for _ in range(repeat):
        before()
        started = time.perf_counter()
        client.get(path)
        timings.append(time.perf_counter() - started)
    timings.sort()
    return queries, statistics.median(timings) * 1000, timings[int(len(timings) * 0.99)] * 1000


# Pages measured again with their fragments made stale before each request, as after a
# change (pagecache.fragments): an edit of the article, every card of the page changed.
RENDERED = {"article": "article, after its edit", "home": "home, every card changed"}


def stale_fragments(name, path):
    """What to purge before each request of ``name`` for its RENDERED row."""
    from django.urls import resolve

    from news.dependencies import ARTICLE
    from news.models import Article
    from pagecache import purges

    if name == "article":
        keys = {ARTICLE(Article.objects.get(slug=resolve(path).kwargs["slug"]).pk)}
    else:
        keys = ARTICLE.each(Article.objects.published()[:21].values_list("pk", flat=True))
    return lambda: purges.purge(keys)


def startproject_middleware():
    """The MIDDLEWARE that Django's startproject writes, read from its own template: the
    yardstick the speed issue measured at 0.12 ms."""
    import ast
    from pathlib import Path

    import django

    template = Path(django.__file__).parent / "conf/project_template/project_name/settings.py-tpl"
    for node in ast.parse(template.read_text()).body:
        if isinstance(node, ast.Assign) and node.targets[0].id == "MIDDLEWARE":
            return ast.literal_eval(node.value)
    raise SystemExit(f"No MIDDLEWARE in {template}")


def measure_minimal_view(client, article_path, repeat, default_middleware=False):
    """The yardstick in the same process: the article page's bytes from memory through
    all of the middleware (bench/urls.py), so that each page's time can be read as a
    multiple of Django's floor on whatever machine runs the benchmark. With
    ``default_middleware``, through startproject's instead: the issue's own yardstick,
    which says how fast this machine is against the one the issue was measured on."""
    import os
    import tempfile

    from django.test import Client, override_settings

    from bench.urls import MINIMAL_PATH

    name = "minimal view, default middleware" if default_middleware else "minimal view"
    with tempfile.NamedTemporaryFile(suffix=".html") as page:
        page.write(client.get(article_path).content)
        page.flush()
        os.environ["BENCH_MINIMAL_PAGE"] = page.name
        if default_middleware:
            with override_settings(MIDDLEWARE=startproject_middleware()):
                # A new client loads the middleware of the settings of its first request.
                queries, median_ms, p99_ms = measure(
                    Client(HTTP_HOST="127.0.0.1"), MINIMAL_PATH, repeat
                )
        else:
            queries, median_ms, p99_ms = measure(client, MINIMAL_PATH, repeat)
    print(f"  {name:<24} {queries:>3} queries {median_ms:>8.2f} ms", file=sys.stderr)
    return {"page": name, "queries": None, "median_ms": median_ms, "p99_ms": p99_ms}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--pick-only", action="store_true", help="the URLs, no timing")
    parser.add_argument("--count-only", action="store_true", help="how many articles")
    parser.add_argument("--only", metavar="PAGE", help="time this page alone, e.g. article")
    args = parser.parse_args()

    import django

    django.setup()
    from django.test import Client

    if args.count_only:
        from news.models import Article

        json.dump({"articles": Article.objects.count()}, sys.stdout)
        return
    pages = pick_urls()
    results = []
    if not args.pick_only:
        client = Client(HTTP_HOST="127.0.0.1")
        for name, path in pages:
            if args.only and name != args.only:
                continue
            queries, median_ms, p99_ms = measure(client, path, args.repeat)
            print(
                f"  {name:<24} {queries:>3} queries {median_ms:>8.1f} ms, p99 {p99_ms:>8.1f} ms",
                file=sys.stderr,
            )
            results.append(
                {"page": name, "queries": queries, "median_ms": median_ms, "p99_ms": p99_ms}
            )
        for name, path in pages:
            if name not in RENDERED or args.only:
                continue
            queries, median_ms, p99_ms = measure(
                client, path, args.repeat, before=stale_fragments(name, path)
            )
            print(
                f"  {RENDERED[name]:<24} {queries:>3} queries {median_ms:>8.1f} ms, "
                f"p99 {p99_ms:>8.1f} ms",
                file=sys.stderr,
            )
            results.append(
                {
                    "page": RENDERED[name],
                    "queries": queries,
                    "median_ms": median_ms,
                    "p99_ms": p99_ms,
                }
            )
        article = dict(pages)["article"]
        # Alone (bench/pages.py's turn-about rounds), the page comes with the issue's
        # yardstick; in the full run, with this site's own.
        results.append(measure_minimal_view(client, article, args.repeat, bool(args.only)))
    json.dump({"pages": pages, "results": results}, sys.stdout)


if __name__ == "__main__":
    main()
