"""An article page's parts, read in hand-written queries for the one article it shows.

What ``ArticleQuerySet.for_detail()`` prefetches (topics, sources with their archived
copies, corrections, related links with their targets, bylines with authors, portraits
and links), the same objects in the same places, so that templates and models read them
as they always do. Building and compiling the six prefetch querysets took about 6 ms of
an 15 ms article page here, the database a fraction of it (as news.around found for the
page's lists). The SQL is written once per model from its fields, and each value goes
through the converters the ORM would apply, so that it stays right as fields change;
tests/test_detail.py renders a page both ways and compares.
"""

import functools

from django.db import connections

from images.models import Image
from people.models import Author, AuthorLink
from sources.models import SourceURL

from .models import (
    Article,
    ArticleAuthor,
    ArticleCard,
    Correction,
    RelatedLink,
    Source,
    Tag,
    TaggedArticle,
    public_condition,
)


class _Reader:
    """A model's columns under a table alias, and how to make instances of its rows."""

    def __init__(self, model, alias, connection, only=None):
        self.model, self.alias = model, alias
        self.fields = [f for f in model._meta.concrete_fields if only is None or f.attname in only]
        self.names = [f.attname for f in self.fields]
        quote = connection.ops.quote_name
        self.sql = ", ".join(f"{alias}.{quote(f.column)}" for f in self.fields)
        self.converters = []
        for field in self.fields:
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            self.converters.append((column, found))

    def make(self, values, connection):
        converted = []
        for value, (column, converters) in zip(values, self.converters, strict=True):
            for convert in converters:
                value = convert(value, column, connection)
            converted.append(value)
        return self.model.from_db(connection.alias, self.names, converted)

    def __len__(self):
        return len(self.fields)


@functools.cache
def _queries(alias):
    connection = connections[alias]
    quote = connection.ops.quote_name

    def table(model):
        return quote(model._meta.db_table)

    tag = _Reader(Tag, "t", connection)
    source = _Reader(Source, "s", connection)
    correction = _Reader(Correction, "c", connection)
    link = _Reader(RelatedLink, "l", connection)
    target = _Reader(Article, "a", connection, only={"id", "title", "slug"})
    authorship = _Reader(ArticleAuthor, "aa", connection)
    author = _Reader(Author, "au", connection)
    photo = _Reader(Image, "i", connection)
    author_link = _Reader(AuthorLink, "al", connection)
    article = _Reader(Article, "art", connection)
    lead_image = _Reader(Image, "li", connection)
    # The article's kept page (news.kept), and the serial it was kept under.
    card = _Reader(
        ArticleCard, "kc", connection, only={"article_id", "serial", "page_version", "page"}
    )
    # published()'s rule, with the parameters load_parts passes for each.
    public = {alias: public_condition(alias, connection)[0] for alias in ("a", "m")}
    sql = {
        "article": (
            f"SELECT {article.sql}, {lead_image.sql}, {card.sql} FROM {table(Article)} art "
            f"LEFT OUTER JOIN {table(Image)} li ON li.id = art.lead_image_id "
            f"LEFT OUTER JOIN {table(ArticleCard)} kc ON kc.article_id = art.id "
            "WHERE art.slug = %s"
        ),
        "tags": (
            f"SELECT {tag.sql} FROM {table(Tag)} t INNER JOIN {table(TaggedArticle)} x "
            "ON x.tag_id = t.id WHERE x.content_object_id = %s ORDER BY t.name, t.id"
        ),
        "sources": (
            f"SELECT {source.sql}, (SELECT u.archive_url FROM {table(SourceURL)} u "
            "WHERE u.url = s.url AND u.archive_url <> '' LIMIT 1) "
            f"FROM {table(Source)} s WHERE s.article_id = %s ORDER BY s.position, s.id"
        ),
        "corrections": (
            f"SELECT {correction.sql} FROM {table(Correction)} c WHERE c.article_id = %s "
            "ORDER BY c.published_at, c.id"
        ),
        "related_links": (
            f"SELECT {link.sql}, {target.sql}, "
            f"CASE WHEN a.id IS NOT NULL AND {public['a']} THEN 1 ELSE 0 END, "
            f"(SELECT m.slug FROM {table(Article)} m WHERE {public['m']} "
            "AND m.title_upper = UPPER(l.title) ORDER BY m.published_at DESC LIMIT 1) "
            f"FROM {table(RelatedLink)} l LEFT OUTER JOIN {table(Article)} a "
            "ON a.id = l.target_id WHERE l.article_id = %s ORDER BY l.position, l.id"
        ),
        "authorships": (
            f"SELECT {authorship.sql}, {author.sql}, {photo.sql} "
            f"FROM {table(ArticleAuthor)} aa INNER JOIN {table(Author)} au "
            f"ON au.id = aa.author_id LEFT OUTER JOIN {table(Image)} i ON i.id = au.photo_id "
            "WHERE aa.article_id = %s ORDER BY aa.position, aa.id"
        ),
        "links": (
            f"SELECT {author_link.sql} FROM {table(AuthorLink)} al "
            "WHERE al.author_id IN ({}) ORDER BY al.position, al.id"
        ),
    }
    readers = {
        "article": article,
        "lead_image": lead_image,
        "card": card,
        "tag": tag,
        "source": source,
        "correction": correction,
        "link": link,
        "target": target,
        "authorship": authorship,
        "author": author,
        "photo": photo,
        "author_link": author_link,
    }
    return sql, readers


def load_article(slug, public=True, using="default"):
    """The article at ``slug`` with its lead image, or None: published ones only unless
    ``public`` is False (editors' previews), by the rule of Article.is_published()."""
    connection = connections[using]
    sql, read = _queries(using)
    with connection.cursor() as cursor:
        cursor.execute(sql["article"], [slug])
        row = cursor.fetchone()
    if row is None:
        return None
    cut, image_cut = len(read["article"]), len(read["article"]) + len(read["lead_image"])
    article = read["article"].make(row[:cut], connection)
    image, card = row[cut:image_cut], row[image_cut:]
    Article.lead_image.field.set_cached_value(
        article, read["lead_image"].make(image, connection) if image[0] is not None else None
    )
    # None when no card row was made yet (news.cards.with_rows).
    article.stored_page = read["card"].make(card, connection) if card[0] is not None else None
    if public and not article.is_published():
        return None
    return article


def fill_prefetched(instance, name, objects):
    """Put ``objects`` where a prefetch of ``name`` would: ``instance.<name>.all()``."""
    queryset = getattr(instance, name).get_queryset()
    queryset._result_cache = objects
    queryset._prefetch_done = True
    instance._prefetched_objects_cache[name] = queryset


def _reading(article, using):
    """The connection, queries and row readers, and published()'s parameters, for
    reading ``article``'s parts into its prefetch cache."""
    connection = connections[using]
    sql, read = _queries(using)
    _, public = public_condition("a", connection)
    if not hasattr(article, "_prefetched_objects_cache"):
        article._prefetched_objects_cache = {}
    return connection, sql, read, public


def load_parts(article, using="default"):
    """Read ``article``'s parts as ``for_detail()`` would have prefetched them."""
    connection, sql, read, public = _reading(article, using)
    with connection.cursor() as cursor:
        cursor.execute(sql["tags"], [article.pk])
        tags = [read["tag"].make(row, connection) for row in cursor.fetchall()]

        cursor.execute(sql["sources"], [article.pk])
        sources = []
        for row in cursor.fetchall():
            source = read["source"].make(row[:-1], connection)
            source.archive_url = row[-1]
            sources.append(source)

        cursor.execute(sql["corrections"], [article.pk])
        corrections = [read["correction"].make(row, connection) for row in cursor.fetchall()]

        links = _related_links(cursor, article, sql, read, public, connection)

        cursor.execute(sql["authorships"], [article.pk])
        authorships, authors = [], {}
        first, second = len(read["authorship"]), len(read["authorship"]) + len(read["author"])
        for row in cursor.fetchall():
            authorship = read["authorship"].make(row[:first], connection)
            author = read["author"].make(row[first:second], connection)
            photo = row[second:]
            Author.photo.field.set_cached_value(
                author, read["photo"].make(photo, connection) if photo[0] is not None else None
            )
            ArticleAuthor.author.field.set_cached_value(authorship, author)
            authorships.append(authorship)
            authors.setdefault(author.pk, []).append(author)

        author_links = {pk: [] for pk in authors}
        if authors:
            marks = ", ".join(["%s"] * len(authors))
            cursor.execute(sql["links"].format(marks), list(authors))
            for row in cursor.fetchall():
                link = read["author_link"].make(row, connection)
                author_links[link.author_id].append(link)

    _fill_parts(
        article,
        sources=sources,
        corrections=corrections,
        related_links=links,
        authorships=authorships,
    )
    fill_prefetched(article, "tags", tags)
    for pk, same_author in authors.items():
        for author in same_author:
            author._prefetched_objects_cache = {}
            for link in author_links[pk]:
                AuthorLink.author.field.set_cached_value(link, author)
            fill_prefetched(author, "links", author_links[pk])
    return article


def load_live_parts(article, tags, using="default"):
    """What a kept page (news.kept) does not hold: the related links, whose targets'
    titles and publication change with other articles. ``tags``, (id, name, slug) rows
    kept with the page, become the article's topics, as load_parts() reads them."""
    connection, sql, read, public = _reading(article, using)
    with connection.cursor() as cursor:
        links = _related_links(cursor, article, sql, read, public, connection)
    _fill_parts(article, related_links=links)
    fill_prefetched(article, "tags", [Tag(pk=pk, name=name, slug=slug) for pk, name, slug in tags])
    return article


def _related_links(cursor, article, sql, read, public, connection):
    cursor.execute(sql["related_links"], [*public, *public, article.pk])
    links, cut = [], len(read["link"])
    for row in cursor.fetchall():
        link = read["link"].make(row[:cut], connection)
        target_row = row[cut : cut + len(read["target"])]
        if target_row[0] is not None:
            RelatedLink.target.field.set_cached_value(
                link, read["target"].make(target_row, connection)
            )
        elif link.target_id is None:
            RelatedLink.target.field.set_cached_value(link, None)
        link.target_is_public = bool(row[-2])
        link.title_match_slug = row[-1]
        links.append(link)
    return links


def _fill_parts(article, **parts):
    for name, objects in parts.items():
        for part in objects:
            type(part).article.field.set_cached_value(part, article)
        fill_prefetched(article, name, objects)
