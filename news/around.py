"""What an article page lists besides the article, in one hand-written query.

The page lists the articles linking to it, "More on these topics" and its neighbours in
its first topic. Built with the ORM, the four querysets took longer to build and compile
in Python (about 10 ms) than the database took to answer them; written out here they
cost a string join. Each part is its own ordered, limited SELECT; UNION ALL sends them
together. The SQL is plain enough for SQLite and PostgreSQL alike.
"""

from datetime import UTC

from django.db import connections
from django.utils import timezone

# Read at each call: topics bigger than models.BIG_TOPIC are checked article by article
# (EXISTS) instead of joined, as the querysets elsewhere do.
from . import models

# What a listed article is made of (by from_db: a quarter of the cost of keywords, which
# work out every other field's default).
NAMES = ["id", "title", "slug", "event_date", "published_at"]
COLUMNS = ", ".join(f"a.{name}" for name in NAMES)
REFERENCING_LIMIT = 50
MORE_LIMIT = 5
# Previous and next in a topic of more articles than this are found by walking the
# articles by event date from the article's own, each checked for the topic, instead of
# reading every article of the topic: at 100,000 articles, a topic of 864 took 3 ms each
# way by reading them all. (Lists need twenty articles, not one: models.BIG_TOPIC.)
NEIGHBOURS_LISTED = 300
# "More on these topics" ranks the newest articles of the article's topics (by id, which
# the index on tags holds): reading every candidate's publication time was most of an
# article page on SQLite, whose rows keep it after the body.
MORE_WINDOW = 200


def _in(values):
    return ", ".join(["%s"] * len(values))


def _tagged(tag_id, size, big=None):
    """SQL and parameters for 'article a has the tag', as news.models.tagged() builds it:
    the topic's articles listed first, or, past ``big`` articles (models.BIG_TOPIC),
    each candidate checked."""
    if size <= (models.BIG_TOPIC if big is None else big):
        return "a.id IN (SELECT content_object_id FROM news_taggedarticle WHERE tag_id = %s)", [
            tag_id
        ]
    return (
        "EXISTS (SELECT 1 FROM news_taggedarticle t "
        "WHERE t.content_object_id = a.id AND t.tag_id = %s)",
        [tag_id],
    )


def _referencing(article, public):
    """Published articles whose related links point to ``article``: by target, or by
    its title (Article.objects.referencing())."""
    sql = (
        f"SELECT {COLUMNS} FROM news_article a WHERE {public} AND a.id <> %s AND a.id IN ("
        "SELECT l.article_id FROM news_relatedlink l WHERE l.target_id = %s "
        "OR (l.target_id IS NULL AND l.title_upper = UPPER(%s))) "
        f"ORDER BY a.published_at DESC, a.id DESC LIMIT {REFERENCING_LIMIT}"
    )
    return sql, [article.pk, article.pk, article.title]


def _more(article, tag_ids, sizes, public):
    """Published articles ranked by tags shared with ``article``, then recency.

    Leaves out the article itself and the editor's own picks among its related links.
    Topics bigger than BIG_TOPIC say little about what is related and cost a scan of
    their every article, so they count only when the article has no smaller topic; then
    it is the newest articles of its smallest topic. The shared tags are counted per
    candidate by a subquery (a GROUP BY over the articles would sort their every column),
    among the newest MORE_WINDOW candidates.
    """
    links = article.related_links.all()
    left_out = [article.pk, *(link.target_id for link in links if link.target_id)]
    picked_slugs = [
        link.title_match_slug for link in links if not link.target_id and link.title_match_slug
    ]
    where = f"{public} AND a.id NOT IN ({_in(left_out)})"
    params = [*left_out]
    if picked_slugs:
        where += f" AND a.slug NOT IN ({_in(picked_slugs)})"
        params += picked_slugs
    small = [pk for pk in tag_ids if sizes.get(pk, 0) <= models.BIG_TOPIC]
    if not small:
        smallest = min(tag_ids, key=lambda pk: sizes.get(pk, 0))
        condition, condition_params = _tagged(smallest, sizes.get(smallest, 0))
        sql = (
            f"SELECT {COLUMNS} FROM news_article a WHERE {where} AND {condition} "
            f"ORDER BY a.published_at DESC, a.id DESC LIMIT {MORE_LIMIT}"
        )
        return sql, [*params, *condition_params]
    # The window's candidates come with their count of shared tags from the tag index
    # alone (one GROUP BY), instead of a count per candidate. The tag ids are written in
    # (integers, from the database): every part's parameters start with ``public``'s.
    tag_ids = ", ".join(str(int(pk)) for pk in small)
    sql = (
        f"SELECT {COLUMNS} FROM (SELECT content_object_id AS id, COUNT(*) AS shared "
        f"FROM news_taggedarticle WHERE tag_id IN ({tag_ids}) GROUP BY content_object_id "
        f"ORDER BY content_object_id DESC LIMIT {MORE_WINDOW}) w "
        f"INNER JOIN news_article a ON a.id = w.id WHERE {where} "
        f"ORDER BY w.shared DESC, a.published_at DESC, a.id DESC LIMIT {MORE_LIMIT}"
    )
    return sql, params


def _neighbours(article, topic, sizes, public, date, published):
    """The previous and next published articles in ``topic`` by event date, then
    publication time, then id."""
    condition, condition_params = _tagged(topic.pk, sizes.get(topic.pk, 0), NEIGHBOURS_LISTED)
    earlier = (
        "(a.event_date < %s OR (a.event_date = %s AND a.published_at < %s) "
        "OR (a.event_date = %s AND a.published_at = %s AND a.id < %s))"
    )
    earlier_params = [date, date, published, date, published, article.pk]
    base = f"SELECT {COLUMNS} FROM news_article a WHERE {public} AND a.id <> %s AND {condition}"
    # The event date's bound, besides the exact order above: it lets the index on
    # (status, event date, ...) be walked from the article outwards until one of the
    # topic's articles turns up. Without it, for a big topic (checked article by article)
    # SQLite walked every published article and sorted them: 540 ms at 100,000.
    previous = (
        f"{base} AND a.event_date <= %s AND {earlier} "
        "ORDER BY a.event_date DESC, a.published_at DESC, a.id DESC LIMIT 1"
    )
    following = (
        f"{base} AND a.event_date >= %s AND NOT {earlier} "
        "ORDER BY a.event_date ASC, a.published_at ASC, a.id ASC LIMIT 1"
    )
    return previous, following, [article.pk, *condition_params, date, *earlier_params]


def around(article, sizes, using="default"):
    """(referenced_by, more_on_topics, topic, previous, next) for ``article``.

    ``sizes`` is {tag id: published articles} (news.topics.topic_sizes()). Needs
    ``for_detail()`` on ``article``, so that its tags and related links are loaded. The
    listed articles come with pk, title, slug, event_date and published_at only.
    """
    connection = connections[using]
    ops = connection.ops
    public, public_params = models.public_condition("a", connection)
    date = ops.adapt_datefield_value(article.event_date)
    published = ops.adapt_datetimefield_value(article.published_at)

    tags = sorted(article.tags.all(), key=lambda tag: tag.name.casefold())
    parts = [("refs", *_referencing(article, public))]
    topic = tags[0] if tags else None
    if tags:
        parts.append(("more", *_more(article, [tag.pk for tag in tags], sizes, public)))
        previous, following, params = _neighbours(article, topic, sizes, public, date, published)
        parts += [("previous", previous, params), ("next", following, params)]

    selects, params = [], []
    for kind, sql, part_params in parts:
        # Wrapped, since a part of a compound SELECT cannot have its own LIMIT.
        selects.append(f"SELECT %s AS kind, part.* FROM ({sql}) part")
        # Every part starts with the public condition.
        params += [kind, *public_params, *part_params]
    found = {"refs": [], "more": [], "previous": [], "next": []}
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join(selects), params)
        for kind, *values in cursor.fetchall():
            if timezone.is_naive(values[-1]):  # SQLite keeps UTC without a zone
                values[-1] = values[-1].replace(tzinfo=UTC)
            found[kind].append(models.Article.from_db(using, NAMES, values))
    return (
        found["refs"],
        found["more"],
        topic,
        next(iter(found["previous"]), None),
        next(iter(found["next"]), None),
    )
