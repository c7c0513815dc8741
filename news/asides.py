"""What an article page lists beside the article: the articles referencing it, "More on
these topics", and its previous and next articles in its first topic by event date.

Querysets of published articles, each ordered and limited, for the page and the API
alike. The listed articles come with their title, slug and dates only.
"""

from dataclasses import dataclass

from django.db.models import Count, OuterRef, Q, Subquery

from . import models
from .models import Article, TaggedArticle

LISTED = ("title", "slug", "event_date", "published_at")
REFERENCING_LIMIT = 50
MORE_LIMIT = 5
# Previous and next in a topic of more articles than this are found by walking the
# articles by event date from the article's own, each checked for the topic, instead of
# reading every article of the topic. (Lists need twenty articles, not one:
# models.BIG_TOPIC.)
NEIGHBOURS_LISTED = 300
# "More on these topics" ranks the newest articles of the article's topics (by id, which
# the index on tags holds), not every article of them.
MORE_WINDOW = 200


@dataclass(frozen=True)
class Asides:
    referenced_by: list
    more_on_topics: list
    # The topic previous and next are walked in: the first by name.
    topic: object
    previous: object
    next: object

    @property
    def articles(self):
        """Every article listed, for the page's dependencies."""
        neighbours = [a for a in (self.previous, self.next) if a is not None]
        return [*self.referenced_by, *self.more_on_topics, *neighbours]


def referenced_by(article):
    return Article.objects.referencing(article).only(*LISTED)[:REFERENCING_LIMIT]


def more_on_topics(article, tags, sizes):
    """Published articles ranked by the topics they share with ``article``, then by
    recency; leaving out the article and the editor's own picks among its related links
    (those by target and those by title that lead to an article).

    Topics bigger than BIG_TOPIC say little about what is related and cost a scan of
    their every article, so they count only when the article has no smaller topic; then
    it is the newest articles of its smallest topic.
    """
    links = article.related_links.all()
    candidates = (
        Article.objects.published()
        .exclude(pk=article.pk)
        .exclude(pk__in=[link.target_id for link in links if link.target_id])
        .exclude(
            slug__in=[
                link.title_match_slug
                for link in links
                if not link.target_id and link.title_match_slug
            ]
        )
        .only(*LISTED)
    )
    small = [tag.pk for tag in tags if sizes.get(tag.pk, 0) <= models.BIG_TOPIC]
    if not small:
        smallest = min(tags, key=lambda tag: sizes.get(tag.pk, 0))
        return candidates.filter(models.tagged(smallest.pk, sizes.get(smallest.pk, 0))).order_by(
            "-published_at", "-pk"
        )[:MORE_LIMIT]
    taggings = TaggedArticle.objects.filter(tag__in=small)
    window = taggings.order_by("-content_object").values("content_object").distinct()[:MORE_WINDOW]
    shared = (
        taggings.filter(content_object=OuterRef("pk"))
        .values("content_object")
        .annotate(n=Count("*"))
        .values("n")
    )
    return (
        candidates.filter(pk__in=window)
        .annotate(shared=Subquery(shared))
        .order_by("-shared", "-published_at", "-pk")[:MORE_LIMIT]
    )


def neighbours(article, topic, sizes):
    """The previous and next published articles in ``topic`` by event date, then
    publication time, then id."""
    day, published = article.event_date, article.published_at
    in_topic = (
        Article.objects.published()
        .exclude(pk=article.pk)
        .filter(models.tagged(topic.pk, sizes.get(topic.pk, 0), big=NEIGHBOURS_LISTED))
        .only(*LISTED)
    )
    earlier = (
        Q(event_date__lt=day)
        | Q(event_date=day, published_at__lt=published)
        | Q(event_date=day, published_at=published, pk__lt=article.pk)
    )
    # The event date's bound, besides the exact order: it lets the index on (status,
    # event date, ...) be walked from the article outwards until one of the topic's
    # articles turns up, rather than every article of a big topic read and sorted.
    previous = (
        in_topic.filter(earlier, event_date__lte=day)
        .order_by("-event_date", "-published_at", "-pk")
        .first()
    )
    following = (
        in_topic.filter(event_date__gte=day)
        .exclude(earlier)
        .order_by("event_date", "published_at", "pk")
        .first()
    )
    return previous, following


def asides(article, topics, sizes):
    """The asides of ``article`` (read with its related links: ``for_detail()``), which
    has the tags ``topics``. ``sizes`` is {tag id: published articles}
    (news.topics.topic_sizes())."""
    tags = sorted(topics, key=lambda tag: tag.name.casefold())
    topic = tags[0] if tags else None
    more, previous, following = [], None, None
    if topic is not None:
        more = list(more_on_topics(article, tags, sizes))
        previous, following = neighbours(article, topic, sizes)
    return Asides(list(referenced_by(article)), more, topic, previous, following)
