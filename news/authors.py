"""The author an author page shows: their header (photo, name, role, bio, links) kept as
a fragment until they change, and their count of bylines remembered until those
change. Reading the author with their photo and links and rendering them was half of
an uncached author page."""

from dataclasses import dataclass

from django.http import Http404
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from pagecache import fragments
from pagecache.remembered import remember
from people.models import Author

from .dependencies import AUTHOR, AUTHOR_ARTICLES, AUTHORS
from .models import ArticleAuthor
from .templatetags.news import person_paths


@dataclass(frozen=True)
class AuthorPage:
    """What an author page shows of the author."""

    pk: int
    name: str
    slug: str
    bio: str
    header: str
    person: dict  # schema.org, with paths (news.templatetags.news.person_paths)


def author_pk(slug):
    """The id of the author at ``slug``, or None; kept until an author changes."""
    return remember(
        f"authors:slug:{slug}",
        [AUTHORS()],
        lambda: Author.objects.filter(slug=slug).values_list("pk", flat=True).first(),
    )


def get_author_or_404(slug):
    """(the author at ``slug`` as their page shows them, their count of bylines).

    The count decides how their articles are read (news.models.written_by)."""
    pk = author_pk(slug)
    if pk is None:
        raise Http404("No such author.")
    name = f"author:{pk}"

    def build(_):
        author = (
            Author.objects.select_related("photo").prefetch_related("links").filter(pk=pk).first()
        )
        if author is None:
            return {}
        header = mark_safe(render_to_string("news/author_header.html", {"author": author}))
        person = person_paths(author) | ({"jobTitle": author.role} if author.role else {})
        page = AuthorPage(pk, author.name, author.slug, author.bio, header, person)
        # Their photo's changes purge AUTHOR too (news.purge.image_changed).
        return {name: (page, [AUTHOR(pk)])}

    found = fragments.kept([name], build)
    if not found:
        raise Http404("No such author.")
    ((author, _),) = found.values()
    bylines = remember(
        f"authors:bylines:{pk}",
        [AUTHOR_ARTICLES(pk)],
        lambda: ArticleAuthor.objects.filter(author=pk).count(),
    )
    return author, bylines
