import random
import time
from bisect import bisect_right

import factory.random
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, reset_queries, transaction
from django.utils import timezone

from devdata import synthetic
from devdata.synthetic import rng
from maintenance import statistics
from news.models import (
    Article,
    ArticleAuthor,
    RelatedLink,
    RetiredSlug,
    Source,
    Tag,
    TaggedArticle,
)
from news.slugs import slug_from_title
from newsletters.models import Subscriber
from pagecache import purges
from people.models import Author

# Rendered Markdown bodies shared by the articles (see devdata/synthetic.py): one per ten
# articles, at most this many; rendering them is most of a small run's time.
MAX_BODY_POOL = 300
PROGRESS_STEPS = 10
# One author per this many articles (at least 2, at most MAX_AUTHORS): a newsroom's staff
# and contributors, a few of them writing most of the articles.
ARTICLES_PER_AUTHOR = 100
MAX_AUTHORS = 300
FIRST_NAMES = ["Ada", "Grace", "Linus", "Margaret", "Ken", "Barbara", "Guido", "Frances",
               "Dennis", "Radia", "Bjarne", "Sophie", "Donald", "Hedy", "Tim", "Karen"]  # fmt: skip
LAST_NAMES = ["Lovelace", "Hopper", "Torvalds", "Hamilton", "Thompson", "Liskov", "Rossum",
              "Allen", "Ritchie", "Perlman", "Stroustrup", "Wilson", "Knuth", "Lamarr"]  # fmt: skip


class Command(BaseCommand):
    help = (
        "Add synthetic articles (with sources, related links and Zipf-distributed tags) "
        "for benchmarks: about 3% drafts, 1% scheduled, 30% backdated; and active "
        "newsletter subscribers. Inserts in batches, one transaction each, bypassing "
        "Article.save()."
    )

    def add_arguments(self, parser):
        parser.add_argument("--articles", type=int, default=0, help="how many articles")
        parser.add_argument("--tags", type=int, default=0, help="how many distinct tags")
        parser.add_argument(
            "--subscribers",
            type=int,
            default=0,
            help="how many active newsletter subscribers (reader<n>@example.org, every "
            "story as it is published) to have in all; those already there count",
        )
        parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
        parser.add_argument("--batch-size", type=int, default=1000, help="articles a batch")

    def handle(self, *args, articles, tags, subscribers, seed, batch_size, **options):
        check_arguments(articles, tags, subscribers, batch_size)
        self.verbosity, self.batch_size = options["verbosity"], batch_size
        started = time.perf_counter()
        factory.random.reseed_random(seed)
        with transaction.atomic():
            tag_rows = ensure_tags(synthetic.tag_names(tags))
            authors = ensure_authors(
                min(MAX_AUTHORS, max(2, articles // ARTICLES_PER_AUTHOR)) if articles else 0
            )
        seeder = Seeder(tag_rows, pool_size=min(articles // 10 + 1, MAX_BODY_POOL))
        # Bylines drawn from a generator of their own: the articles, tags and links of a
        # seed stay what they were before the seeder wrote bylines.
        seeder.bylines = Bylines(authors, seed)
        done = 0
        while done < articles:
            size = min(batch_size, articles - done)
            with transaction.atomic():
                seeder.insert_batch(size)
            # With DEBUG on Django keeps the last 9,000 queries, here megabytes each.
            reset_queries()
            done += size
            self.progress(done, articles, started)
        added = seed_subscribers(subscribers, batch_size)
        analyze()
        # bulk_create sends no signals: every cached page and count is stale.
        purges.purge_everything()
        self.stdout.write(
            self.style.SUCCESS(
                f"Seeded {articles:,} articles, {seeder.counts['sources']:,} sources, "
                f"{seeder.counts['links']:,} related links and {seeder.counts['tagged']:,} "
                f"taggings over {len(tag_rows):,} tags, {seeder.counts['bylines']:,} bylines "
                f"by {len(authors):,} authors"
                + (f", {added:,} subscribers" if subscribers else "")
                + f" in {time.perf_counter() - started:.1f} s."
            )
        )

    def progress(self, done, total, started):
        # About PROGRESS_STEPS lines whatever the batch size.
        previous = done - min(self.batch_size, done)
        step = max(1, total // PROGRESS_STEPS)
        if self.verbosity >= 1 and (done // step > previous // step or done == total):
            elapsed = time.perf_counter() - started
            self.stdout.write(f"  {done:>9,} / {total:,} articles, {elapsed:.1f} s")


def check_arguments(articles, tags, subscribers, batch_size):
    if not articles and not subscribers:
        raise CommandError("Say what to add: --articles (with --tags), --subscribers or both.")
    if subscribers < 0:
        raise CommandError("--subscribers must be 0 or more.")
    if articles < 0:
        raise CommandError("--articles must be 0 or more.")
    if tags < 0:
        raise CommandError("--tags must be 0 or more.")
    if articles > 0 and tags == 0:
        raise CommandError("--tags must be at least 1 when adding articles (each gets 1-6).")
    if batch_size < 1:
        raise CommandError("--batch-size must be at least 1.")


def seed_subscribers(total, batch_size):
    """Active subscribers up to ``total`` in all, each getting every story as it is
    published: what a send to everyone (bench/newsletter.py) needs. The addresses are at
    example.org, a domain reserved for examples (RFC 2606): mail to them reaches no one."""
    have = Subscriber.objects.count()
    now = timezone.now()
    for start in range(have, total, batch_size):
        with transaction.atomic():
            Subscriber.objects.bulk_create(
                Subscriber(
                    email=f"reader{n}@example.org",
                    state=Subscriber.State.ACTIVE,
                    source="seed_synthetic",
                    confirmed_at=now,
                )
                for n in range(start, min(total, start + batch_size))
            )
    return max(0, total - have)


def ensure_tags(names):
    """Tag rows for ``names``, in the same (popularity) order; existing tags are reused,
    matched case-insensitively as TAGGIT_CASE_INSENSITIVE does."""
    existing = {tag.name.casefold(): tag for tag in Tag.objects.all()}
    taken = set(Tag.objects.values_list("slug", flat=True))
    # The ascii_tag_slug signal does not run in bulk_create: same slug rule, done here.
    new = [
        Tag(name=name, slug=synthetic.unique_slug(slug_from_title(name, "tag"), taken))
        for name in names
        if name.casefold() not in existing
    ]
    Tag.objects.bulk_create(new, batch_size=1000)
    created = {tag.name.casefold(): tag for tag in new}
    return [existing.get(name.casefold()) or created[name.casefold()] for name in names]


def ensure_authors(count):
    """``count`` authors named "Synthetic ..." (reused if they exist)."""
    names = [
        f"{first} {last}" for last in LAST_NAMES for first in FIRST_NAMES
    ]  # 224 names, then numbered
    wanted = [
        f"Synthetic {names[n % len(names)]}"
        + (f" {n // len(names) + 1}" if n >= len(names) else "")
        for n in range(count)
    ]
    existing = {author.name: author for author in Author.objects.filter(name__in=wanted)}
    taken = set(Author.objects.values_list("slug", flat=True))
    new = [
        Author(name=name, slug=synthetic.unique_slug(slug_from_title(name, "author"), taken),
               role="Staff writer")
        for name in wanted
        if name not in existing
    ]  # fmt: skip
    Author.objects.bulk_create(new)
    created = {author.name: author for author in Author.objects.filter(name__in=wanted)}
    return [created[name] for name in wanted]


class Bylines:
    """Each article's authors: none for 10% (agency copy, "Skillo editorial"), two for
    15%, else one; authors by Zipf popularity."""

    def __init__(self, authors, seed):
        self.authors = authors
        self.weights = synthetic.zipf_cumulative(len(authors)) if authors else []
        self.rng = random.Random(seed)

    def for_article(self, article):
        if not self.authors:
            return []
        roll = self.rng.random()
        count = 0 if roll < 0.10 else 2 if roll < 0.25 else 1
        picked = []
        for _ in range(count * 3):
            if len(picked) >= count:
                break
            at = self.rng.random() * self.weights[-1]
            author = self.authors[min(len(self.authors) - 1, bisect_right(self.weights, at))]
            if author not in picked:
                picked.append(author)
        return [
            ArticleAuthor(article=article, author=author, position=position)
            for position, author in enumerate(picked)
        ]


class Seeder:
    """Builds and inserts batches of articles, remembering what earlier batches made."""

    def __init__(self, tags, pool_size):
        self.tags = tags
        self.tag_weights = synthetic.zipf_cumulative(len(tags))
        self.tag_by_name = {tag.name.casefold(): tag for tag in tags}
        self.pool = synthetic.body_pool(pool_size)
        self.taken_slugs = set(Article.objects.values_list("slug", flat=True))
        self.taken_slugs.update(RetiredSlug.objects.values_list("slug", flat=True))
        self.known = []  # (pk, title) of the articles seeded so far: related-link targets
        self.counts = {"sources": 0, "links": 0, "tagged": 0, "bylines": 0}
        self.bylines = Bylines([], 0)

    def insert_batch(self, size):
        articles, sources, tags = [], [], []
        for _ in range(size):
            article, article_sources, article_tags = self.build_article()
            articles.append(article)
            sources += article_sources
            tags.append(article_tags)
        Article.objects.bulk_create(articles)
        links = []
        for article in articles:
            # Links point back in time, to articles seeded before this one.
            links += self.related_links(article)
            self.known.append((article.pk, article.title))
        tagged = [
            TaggedArticle(content_object_id=article.pk, tag=tag)
            for article, article_tags in zip(articles, tags, strict=True)
            for tag in article_tags
        ]
        bylines = [row for article in articles for row in self.bylines.for_article(article)]
        for model, rows in (
            (Source, sources),
            (RelatedLink, links),
            (TaggedArticle, tagged),
            (ArticleAuthor, bylines),
        ):
            model.objects.bulk_create(rows, batch_size=2000)
        self.counts["bylines"] += len(bylines)
        self.counts["sources"] += len(sources)
        self.counts["links"] += len(links)
        self.counts["tagged"] += len(tagged)

    def build_article(self):
        product = synthetic.zipf_pick(synthetic.PRODUCTS, synthetic.PRODUCT_WEIGHTS)
        version = f"{rng.randint(1, 30)}.{rng.randint(0, 12)}"
        article = synthetic.SyntheticArticleFactory.build(
            pooled=rng.choice(self.pool), product=product, version=version
        )
        article.slug = synthetic.unique_slug(slug_from_title(article.title), self.taken_slugs)
        sources = synthetic.build_sources(article, product, version)
        tags = self.pick_tags(product)
        # What refresh_search_extra() would store: search indexes tags and sources too.
        article.search_extra = " ".join(
            [tag.name for tag in tags] + [f"{s.title} {s.publisher}" for s in sources]
        )
        return article, sources, tags

    def pick_tags(self, product):
        """1-6 tags: the product's own tag when there is one, the rest by popularity."""
        wanted = rng.randint(1, 6)
        picked = {}
        own = self.tag_by_name.get(product.casefold())
        if own:
            picked[own.pk] = own
        for _ in range(wanted * 3):
            if len(picked) >= wanted:
                break
            tag = synthetic.zipf_pick(self.tags, self.tag_weights)
            picked[tag.pk] = tag
        return list(picked.values())

    def related_links(self, article):
        """0-3 links: most to an earlier article, some by title alone (an existing
        article's title, or one nobody has written yet)."""
        links = []
        for position in range(rng.choices(range(4), weights=[35, 30, 20, 15])[0]):
            roll = rng.random()
            if self.known and roll < 0.7:
                pk, title = rng.choice(self.known)
                links.append(RelatedLink(article=article, target_id=pk, title=title))
            elif self.known and roll < 0.85:
                links.append(RelatedLink(article=article, title=rng.choice(self.known)[1]))
            else:
                wanted = synthetic.headline(rng.choice(synthetic.PRODUCTS), "1.0")
                links.append(RelatedLink(article=article, title=wanted))
            links[-1].position = position
        return links


def analyze():
    # Fresh statistics, so the planner treats the seeded tables as it would in production
    # (PostgreSQL's autovacuum would get there only later), and on SQLite the search index
    # merged as a site's nightly upkeep leaves it.
    if connection.vendor == "sqlite":
        statistics.refresh()
        return
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
