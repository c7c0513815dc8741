"""The author an author page shows, remembered until they change.

Building the author's querysets (with their photo and links) and the count of their
bylines was a third of an uncached author page. They change only with the author, so
they are read once per change, as topics' rows are (news.topics), and kept as plain
values, not pickled models: a cache entry outlives a deploy that changes a model.
"""

from django.http import Http404

from images.models import Image
from pagecache.remembered import remember
from people.models import Author, AuthorLink

from .dependencies import AUTHOR, AUTHOR_ARTICLES, AUTHORS
from .detail import fill_prefetched
from .models import ArticleAuthor


def _names(model):
    return [field.attname for field in model._meta.concrete_fields]


def _read(pk):
    """(author, photo or None, links, bylines) as values, or None if there is no author
    ``pk`` any more."""
    names, photo_names = _names(Author), _names(Image)
    row = (
        Author.objects.filter(pk=pk)
        .values_list(*names, *(f"photo__{name}" for name in photo_names))
        .first()
    )
    if row is None:
        return None
    author, photo = row[: len(names)], row[len(names) :]
    links = list(AuthorLink.objects.filter(author=pk).values_list(*_names(AuthorLink)))
    bylines = ArticleAuthor.objects.filter(author=pk).count()
    return list(author), list(photo) if photo[0] is not None else None, links, bylines


def get_author_or_404(slug, using="default"):
    """(the author at ``slug`` with their photo and links, their count of bylines).

    The photo and links come as select_related() and prefetch_related() leave them: the
    page reads them without a query.
    """
    pk = remember(
        f"authors:slug:{slug}",
        [AUTHORS()],
        lambda: Author.objects.filter(slug=slug).values_list("pk", flat=True).first(),
    )
    # Its photo's changes purge AUTHOR (news.purge.image_changed), its bylines'
    # AUTHOR_ARTICLES.
    found = (
        None
        if pk is None
        else remember(f"authors:page:{pk}", [AUTHOR(pk), AUTHOR_ARTICLES(pk)], lambda: _read(pk))
    )
    if found is None:
        raise Http404("No such author.")
    values, photo, links, bylines = found
    author = Author.from_db(using, _names(Author), values)
    Author.photo.field.set_cached_value(
        author, Image.from_db(using, _names(Image), photo) if photo else None
    )
    author._prefetched_objects_cache = {}
    kept = []
    for row in links:
        link = AuthorLink.from_db(using, _names(AuthorLink), row)
        AuthorLink.author.field.set_cached_value(link, author)
        kept.append(link)
    fill_prefetched(author, "links", kept)
    return author, bylines
