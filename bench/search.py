"""Search benchmark: fill a throwaway database with synthetic articles and time searches.

    .venv/bin/python bench/search.py --articles 100000            # SQLite in a temp folder
    tests/with-postgres.sh .venv/bin/python bench/search.py --articles 100000

It times what the search page does (count the matches, fetch the first page of ten with
rank and highlighted passage) for queries of rare, common and very common words, two
words, a quoted phrase and a prefix (the query kinds of issue 16), a prefix with a star,
and misspelt words that find nothing, for which the page looks for "Did you mean"
(search.suggest). It prints the median, 95th and 99th percentile per kind, and how many
of a kind's queries were offered a suggestion. Nothing is sent over the network.
"""

import argparse
import os
import random
import re
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=15, help="timed runs per query")
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="print each query that found nothing and its suggestion",
    )
    return parser.parse_args()


def setup(folder):
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{folder}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.development")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def vocabulary():
    words = set()
    for path in (ROOT / "textfiles" / "demo_content").rglob("*.txt"):
        words.update(w.lower() for w in re.findall(r"[A-Za-z]{3,}", path.read_text()))
    return sorted(words)


def seed(count, words):
    from django.db import transaction
    from django.utils import timezone

    from news.models import Article

    rng = random.Random(42)
    # Zipf-like word frequencies, as in real text.
    weights = [1 / (rank + 1) for rank in range(len(words))]
    rng.shuffle(weights)
    now = timezone.now()
    batch = []
    started = time.perf_counter()
    with transaction.atomic():
        for i in range(count):
            body = " ".join(rng.choices(words, weights, k=250))
            title = " ".join(rng.choices(words, weights, k=7)).capitalize()
            batch.append(
                Article(
                    title=title,
                    slug=f"bench-{i}",
                    summary=" ".join(rng.choices(words, weights, k=20)),
                    body=body,
                    body_html=f"<p>{body}</p>",
                    body_text=body,
                    search_extra=" ".join(rng.choices(words, weights, k=5)),
                    event_date=(now - timedelta(days=i % 3000)).date(),
                    published_at=now - timedelta(minutes=i),
                    facts_verified=now.date().replace(day=1),
                    status=Article.Status.PUBLISHED,
                )
            )
            if len(batch) == 2000:
                Article.objects.bulk_create(batch)
                batch = []
        Article.objects.bulk_create(batch)
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return time.perf_counter() - started


def frequencies(words, sample):
    from news.models import Article

    texts = Article.objects.values_list("body_text", flat=True)[:sample]
    counts = dict.fromkeys(words, 0)
    for text in texts:
        for word in set(text.split()):
            counts[word] = counts.get(word, 0) + 1
    return sorted(counts, key=counts.get)


def time_query(query, repeat):
    """What the search page does: count, the first page, and for no results, the
    suggestion (search.views). The matches, and the suggestion or None."""
    from search.query import search
    from search.suggest import suggest

    timings, hits, offered = [], 0, None
    for _ in range(repeat):
        started = time.perf_counter()
        results = search(query)
        hits = results.count()
        page = list(results[:10])
        for article in page:
            _ = article.headline
        if not hits:
            offered = suggest(query)
        timings.append(time.perf_counter() - started)
    return timings, hits, offered


def typos(words, count):
    """Words of six letters or more misspelt a way each (a letter dropped, two swapped, one
    changed, one doubled), none of them a word itself."""
    from search.query import search

    made = []
    for n, word in enumerate(w for w in words if len(w) >= 6):
        middle = len(word) // 2
        typo = [
            word[:middle] + word[middle + 1 :],
            word[: middle - 1] + word[middle] + word[middle - 1] + word[middle + 1 :],
            word[:middle] + ("x" if word[middle] != "x" else "z") + word[middle + 1 :],
            word[:middle] + word[middle] + word[middle:],
        ][n % 4]
        if not search(typo).count():
            made.append((typo, word))
        if len(made) == count:
            break
    return made


def main():
    args = parse_args()
    # With DATABASE_URL set to a database that already holds the same number of bench
    # articles, seeding is skipped: handy when iterating on the search code.
    with tempfile.TemporaryDirectory() as folder:
        setup(folder)
        from django.db import connection

        from news.models import Article

        words = vocabulary()
        existing = Article.objects.filter(slug__startswith="bench-").count()
        seconds = 0.0 if existing == args.articles else seed(args.articles, words)
        by_frequency = frequencies(words, 2000)
        kinds = {
            "rare word": by_frequency[len(by_frequency) // 10 : len(by_frequency) // 10 + 5],
            "common word": by_frequency[-60:-55],
            "very common word": by_frequency[-5:],
            "two common words": [
                f"{a} {b}"
                for a, b in zip(by_frequency[-30:-25], by_frequency[-40:-35], strict=True)
            ],
            # Two of the commonest words side by side: a phrase found in most articles,
            # the costliest kind for a phrase check.
            "quoted phrase": [
                f'"{a} {b}"' for a, b in zip(by_frequency[-5:], by_frequency[-6:-1], strict=True)
            ],
            # The first letters of common words, as typed: each matches several words.
            "prefix": [word[:4] for word in by_frequency[-60:-55]],
            # The same with the star readers type to say so (issue 16).
            "prefix with *": [f"{word[:4]}*" for word in by_frequency[-60:-55]],
        }
        # Nothing found, so the page looks for a suggestion (search.suggest): a rare and a
        # common word misspelt, a misspelt word beside a common one, two misspelt words,
        # and a word nothing is near (the vocabulary is read, nothing is offered).
        rare_typos = typos(by_frequency[len(by_frequency) // 10 :], 5)
        common_typos = typos(by_frequency[-100:], 5)
        kinds["typo, rare word"] = [typo for typo, _ in rare_typos]
        kinds["typo, common word"] = [typo for typo, _ in common_typos]
        kinds["typo and a word"] = [
            f"{typo} {word}"
            for (typo, _), word in zip(rare_typos, by_frequency[-30:-25], strict=True)
        ]
        kinds["two typos"] = [
            f"{a} {b}" for (a, _), (b, _) in zip(rare_typos, common_typos, strict=True)
        ]
        kinds["nothing near"] = ["qzxjvk", "zzxqwvy", "xqjzvwk", "jqxzvvw", "vzqxjwk"]
        print(
            f"{connection.vendor}: {args.articles} articles seeded in {seconds:.1f} s; "
            f"{args.repeat} runs per query"
        )
        print(
            f"{'query kind':<18} {'matches (mean)':>15} {'suggested':>10} {'median ms':>10} "
            f"{'p95 ms':>8} {'p99 ms':>8}"
        )
        for kind, queries in kinds.items():
            timings, hits, offered = [], [], 0
            for query in queries:
                t, h, suggestion = time_query(query, args.repeat)
                timings += t
                hits.append(h)
                offered += suggestion is not None
                if args.verbose and not h:
                    print(f"  {query!r} -> {suggestion!r}", file=sys.stderr)
            timings.sort()
            print(
                f"{kind:<18} {statistics.mean(hits):>15.0f} "
                f"{f'{offered}/{len(queries)}':>10} "
                f"{statistics.median(timings) * 1000:>10.1f} "
                f"{timings[int(len(timings) * 0.95)] * 1000:>8.1f} "
                f"{timings[int(len(timings) * 0.99)] * 1000:>8.1f}"
            )


if __name__ == "__main__":
    main()
