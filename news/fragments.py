"""The parts of news pages kept as fragments (pagecache.fragments): article cards, an
article page's own parts and what surrounds them (related links, asides).

Each is kept under dependency keys its page declares too, so whatever purges the page
purges them, and under the release, so a deploy or a settings change renders them
again. Each is worth it on a page-cache miss: docs/benchmarks.md measures pages with
their fragments kept and rendered again.
"""

import hashlib
from dataclasses import dataclass

from django.db.models import prefetch_related_objects
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from pagecache import fragments

from .asides import asides
from .dependencies import ARTICLE, AUTHOR, EMBED, NAV, REFERENCED_BY, SOURCE, TAG, title_key
from .models import Article, Tag, own_parts_prefetch, related_links_prefetch, with_topics
from .paths import absolute, article_path, origin
from .rendering import contents, lone_links, with_heading_anchors
from .templatetags.news import (
    byline_structured_data,
    organization,
    placed,
    ready_embeds,
    site_structured_data,
)
from .topics import main_topics, topic_sizes

CARD = "includes/article_card.html"
# How a list shows an article, by the name its fragment is kept under: (template, the
# template's context besides the article).
KINDS = {
    # A card in a list, dated by publication.
    "card": (CARD, {"event_dates": False}),
    # A card in the archive, dated by the event.
    "event-card": (CARD, {"event_dates": True}),
    # The home page's lead story: its picture large.
    "lead": ("includes/lead_story.html", {}),
    # A link by title, in a short list beside the page's own ("Most read").
    "title": ("includes/title_link.html", {}),
}


@dataclass(frozen=True)
class Card:
    """An article's card in a list, dated by publication or (``event``) by event."""

    pk: int
    html: str
    # The byline's authors: the page shows their names.
    authors: tuple


class Cards(list):
    """Cards in a list's order. A template shows them with ``{{ cards }}``, one after the
    other: a loop would cost a page of twenty cards as much as the cards themselves."""

    def __str__(self):
        return mark_safe("\n".join(card.html for card in self))

    __html__ = __str__


def cards(pks, event=False):
    """The cards of the articles ``pks``, in their order; an article no longer public has
    none."""
    kind = "event-card" if event else "card"
    return Cards(cards_of([(kind, pk) for pk in pks]).values())


def cards_of(wanted):
    """{(kind, pk): Card} of each wanted (kind, article id) (KINDS), in their order, those
    of a page's several lists read together: the kept ones, and the others rendered from
    one read of their articles. An article no longer public has none."""
    names = {f"{kind}:{pk}": (kind, pk) for kind, pk in wanted}

    def build(missing):
        pks = {names[name][1] for name in missing}
        articles = with_topics(
            Article.objects.for_list().select_related("lead_image").filter(pk__in=pks)
        )
        by_pk = {article.pk: article for article in articles}
        built = {}
        for name in missing:
            kind, pk = names[name]
            if (article := by_pk.get(pk)) is None:
                continue
            template, context = KINDS[kind]
            authors = tuple(author.pk for author in article.byline)
            html = render_to_string(template, {"article": article, **context})
            built[name] = ((html, authors), [ARTICLE(article.pk), *AUTHOR.each(authors)])
        return built

    found = fragments.kept(list(names), build)
    # The HTML was kept as rendered (safe); SafeString() rather than mark_safe(), whose
    # check for lazy text costs a page of cards a tenth of its time.
    return {
        names[name]: Card(names[name][1], SafeString(html), authors)
        for name, ((html, authors), _) in found.items()
    }


@dataclass(frozen=True)
class SiteParts:
    """What every public page shows around its own content (base.html): its language, the
    head's links, the logo's address and the site's JSON-LD, the header's navigation, the
    footer; and the newsletter's invitation, which two pages show."""

    # The language of the pages (settings.LANGUAGE_CODE, as activated).
    language: str
    head: str
    # The address of the site's logo, for og:image.
    logo: str
    data: str
    nav: str
    footer: str
    # How to follow by e-mail (the home and follow pages).
    newsletter: str


def render_site_parts(request, topics, addresses=True):
    """The site's parts with ``topics`` in the header, rendered. ``addresses``: with the
    site's JSON-LD and logo (a page refusing a request shows neither)."""
    context = {"request": request, "main_tags": topics}

    def rendered(template):
        return mark_safe(render_to_string(template, context))

    return SiteParts(
        language=get_language(),
        head=rendered("includes/head_links.html"),
        logo=absolute(static("icons/skillo-512.png")) if addresses else "",
        data=site_structured_data() if addresses else "",
        nav=rendered("includes/site_nav.html"),
        footer=rendered("includes/site_footer.html"),
        newsletter=rendered("includes/follow_newsletter.html"),
    )


def site_digest():
    """The site's address in a fragment's name: what holds absolute addresses is kept per
    address, and one kept under an earlier SITE_URL is never found."""
    return hashlib.md5(origin().encode(), usedforsecurity=False).hexdigest()


def site_parts(request):
    """The site's parts as readers see them, with the header's topics (NAV): kept, or
    rendered and kept; per site address (the JSON-LD holds absolute URLs: a changed
    SITE_URL finds none kept) and language. Every
    page shows them, and a page is rebuilt for a change to its own content far more
    often than for one to these."""
    # And per language: their words and <html lang> are the active language's.
    name = f"site:{site_digest()}:{get_language()}"

    def build(_):
        return {name: (render_site_parts(request, main_topics()), [NAV()])}

    ((parts, _),) = fragments.kept([name], build).values()
    return parts


@dataclass(frozen=True)
class OwnParts:
    """What an article page shows of the article itself: its head's tags, the article
    down to its text's end, its sources and footer; and what the page must know of them."""

    head: str
    main: str
    end: str
    # (id, name, slug) of each topic, by name.
    topics: tuple
    authors: tuple
    source_urls: tuple
    # The addresses alone on a line (their cards, once fetched, or links), and the
    # origins of the players those cards may load (the page's CSP allows them).
    embed_urls: tuple = ()
    player_origins: tuple = ()

    @property
    def topic_tags(self):
        return [Tag(pk=pk, name=name, slug=slug) for pk, name, slug in self.topics]

    @property
    def dependencies(self):
        return [
            *AUTHOR.each(self.authors),
            *SOURCE.each(self.source_urls),
            *EMBED.each(self.embed_urls),
        ]


def render_own_parts(request, article):
    """``article``'s own parts, rendered; reads what ``own_parts_prefetch()`` reads, unless
    the article comes with it (``for_detail()``)."""
    prefetch_related_objects([article], "lead_image", "social_image", *own_parts_prefetch())
    with_topics([article])
    corrections, updates = article.notices
    embeds = ready_embeds(article.body_html)
    structured_data = article.structured_data(
        absolute(article.get_absolute_url()),
        organization(),
        byline_structured_data(article.byline),
        absolute,
    )
    context = {
        "request": request,
        "article": article,
        "structured_data": structured_data,
        "corrections": corrections,
        "updates": updates,
        "body": mark_safe(with_heading_anchors(placed(article.body_html, embeds=embeds))),
        "contents": contents(article.body_html),
    }
    return OwnParts(
        head=mark_safe(render_to_string("news/article_head.html", context)),
        main=mark_safe(render_to_string("news/article_main.html", context)),
        end=mark_safe(render_to_string("news/article_end.html", context)),
        topics=tuple((tag.pk, tag.name, tag.slug) for tag in article.topics),
        authors=tuple(author.pk for author in article.byline),
        source_urls=tuple(source.url for source in article.sources.all() if source.url),
        embed_urls=tuple(lone_links(article.body_html)),
        player_origins=tuple(
            sorted({embed.player_origin for embed in embeds.values() if embed.player_url})
        ),
    )


def own_parts(request, article):
    """``article``'s own parts as readers see them: kept, or rendered and kept. The head
    holds absolute URLs, so they are kept per site address."""
    name = (
        f"article:{article.pk}:{hashlib.md5(origin().encode(), usedforsecurity=False).hexdigest()}"
    )

    def build(_):
        parts = render_own_parts(request, article)
        return {name: (parts, [ARTICLE(article.pk), *parts.dependencies])}

    ((parts, _),) = fragments.kept([name], build).values()
    return parts


@dataclass(frozen=True)
class Listed:
    """An article a page links to by title."""

    pk: int
    title: str
    slug: str

    @classmethod
    def of(cls, article):
        return None if article is None else cls(article.pk, article.title, article.slug)

    def get_absolute_url(self):
        return article_path(self.slug)


@dataclass(frozen=True)
class RelatedLink:
    """A "See also" entry as readers see it: a link, or the title of an article not
    written (or not public) yet."""

    title: str
    url: str | None


@dataclass(frozen=True)
class Surroundings:
    """What an article page shows around the article, which changes with other articles:
    its related links (their targets' titles and publication) and the asides."""

    related_links: tuple
    referenced_by: tuple
    more_on_topics: tuple
    # The topic previous and next are walked in: (id, name, slug), or None.
    topic: object
    previous: Listed | None
    next: Listed | None


def render_surroundings(article, topics):
    """``article``'s surroundings and their dependencies. ``topics``: its tags."""
    prefetch_related_objects([article], related_links_prefetch())
    links = [link for link in article.related_links.all() if link.is_public]
    around = asides(article, topics, topic_sizes())
    surroundings = Surroundings(
        related_links=tuple(RelatedLink(link.display_title, link.public_url) for link in links),
        referenced_by=tuple(map(Listed.of, around.referenced_by)),
        more_on_topics=tuple(map(Listed.of, around.more_on_topics)),
        topic=None
        if around.topic is None
        else Tag(pk=around.topic.pk, name=around.topic.name, slug=around.topic.slug),
        previous=Listed.of(around.previous),
        next=Listed.of(around.next),
    )
    deps = [
        ARTICLE(article.pk),
        # Articles linking here, and topics whose lists it shows (more on these topics,
        # previous and next).
        REFERENCED_BY(article.pk),
        title_key(article.title),
        *TAG.each(tag.pk for tag in topics),
        *ARTICLE.each(link.target_id for link in links if link.target_id),
        *(title_key(link.title) for link in links if not link.target_id),
        *ARTICLE.each(item.pk for item in around.articles),
    ]
    return surroundings, deps


def surroundings(article, topics):
    """``article``'s surroundings as readers see them, kept until one of the articles
    and topics they show changes; and their dependencies."""
    name = f"around:{article.pk}"

    def build(_):
        return {name: render_surroundings(article, topics)}

    ((found, deps),) = fragments.kept([name], build).values()
    return found, deps
