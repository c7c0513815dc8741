import json
import operator
import re
from functools import reduce
from html import escape
from urllib.parse import quote, urlsplit

from django import template
from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from embeds.models import Embed
from images.models import KEY_LENGTH, Image
from images.renditions import page_renditions, social_rendition
from pagecache.remembered import remember

from ..dependencies import TOPICS
from ..paths import (
    absolute,
    archive_path,
    article_path,
    author_path,
    page_path,
    slug_path,
    tag_path,
)
from ..paths import origin as site_origin
from ..rendering import MARK_START, expand_lone_links, expand_placements, lone_links, placements

register = template.Library()

# The characters that could end a <script> element or open a comment inside it.
_SCRIPT_ESCAPES = {ord("<"): "\\u003C", ord(">"): "\\u003E", ord("&"): "\\u0026"}
# Characters XML 1.0 cannot hold at all, even escaped (a control character pasted into a
# title, say): a feed or sitemap must leave them out, or it fails or cannot be read.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@register.filter
def tag_url(tag):
    """The one place tag URLs are built: taggit's Tag has no get_absolute_url()."""
    return tag_path(tag.slug)


# A fediverse profile's address: Mastodon's https://host/@name, or /users/name (Mastodon's
# actor id, Misskey-likes, GoToSocial's /@name too).
FEDIVERSE_PROFILE = re.compile(
    r"^https://([a-z0-9.-]+\.[a-z]{2,})/(?:@|users/)([a-z0-9_.-]+)/?$", re.IGNORECASE
)


@register.filter
def fediverse_handle(url):
    """``@name@host`` for a fediverse profile's address, else "" (fediverse:creator)."""
    match = FEDIVERSE_PROFILE.match(url.strip())
    return f"@{match[2]}@{match[1].lower()}" if match else ""


@register.filter
def author_url(author):
    """The one place author URLs are built: people's Author knows nothing of news's pages."""
    return author_path(author.slug)


@register.simple_tag
def path(name, slug=None):
    """``{% url name %}`` or ``{% url name slug %}``, each address reversed once
    (news.paths): the header and footer of every page link a dozen of them."""
    return page_path(name) if slug is None else slug_path(name, slug)


@register.simple_tag
def byline(authors):
    """ "By A, B and C", each linked to their page; "By Skillo editorial" without authors.
    A tag rather than a partial template: a page of twenty cards renders it twenty times,
    and the template took ten times as long (escape() as format_html would, faster)."""
    links = [
        f'<a href="{escape(author_path(author.slug))}" rel="author">{escape(author.name)}</a>'
        for author in authors
    ]
    if not links:
        return mark_safe(
            f'By <a href="{escape(page_path("news:about-editorial"))}">Skillo editorial</a>'
        )
    names = links[-1] if len(links) == 1 else f"{', '.join(links[:-1])} and {links[-1]}"
    portraits = "".join(portrait(author.photo) for author in authors if author.photo_id)
    if portraits:
        portraits = f'<span class="byline-portraits">{portraits}</span>'
    return mark_safe(f"{portraits}By {names}")


# A byline's portrait is drawn this big (CSS: .portrait): its attributes say so, so that
# nothing moves when it arrives, with or without the stylesheet.
PORTRAIT_SIZE = 32


def portrait(photo):
    """An author's portrait beside their name: the smallest AVIF rendition, JPEG for the
    rest; alt="" since the name is next to it. Nothing until the renditions are made."""
    if not photo.renditions_ready:
        return ""
    avif, jpeg = (page_renditions(photo, format)[0] for format in ("avif", "jpg"))
    return (
        f'<picture><source type="image/avif" srcset="{escape(avif.url)}">'
        f'<img class="portrait" src="{escape(jpeg.url)}" width="{PORTRAIT_SIZE}" '
        f'height="{PORTRAIT_SIZE}" alt="" loading="lazy" decoding="async"></picture>'
    )


@register.simple_tag
def tag_list(tags):
    """An article's topics as a list of links (a tag for the same reason as byline).
    Each link says "Topic:" to screen readers: a topic named "Go" or "Next" read alone,
    as a list of a page's links reads it, is a command, not a name (Lighthouse's SEO
    audit fails such a link too)."""
    items = "".join(
        f'<li><a href="{escape(tag_path(tag.slug))}" rel="tag">'
        f'<span class="visually-hidden">Topic: </span>{escape(tag.name)}</a></li>'
        for tag in tags
    )
    return mark_safe(f'<ul class="tags" aria-label="Tags">{items}</ul>') if items else ""


# The site is written in English (base.html says lang="en").
MONTH_NAMES = (None, "January", "February", "March", "April", "May", "June", "July",
               "August", "September", "October", "November", "December")  # fmt: skip


@register.filter(expects_localtime=True)
def long_date(value):
    """ "24 July 2024": the date filter's "j F Y" at a fifth of its cost (it looks up the
    translation of every part), since every card shows one."""
    if not value:
        return ""
    return f"{value.day} {MONTH_NAMES[value.month]} {value.year}"


@register.simple_tag
def timeline_items(articles):
    """A topic's timeline entries: event date and linked title (a tag rather than a loop
    in the template, several times slower for a page of a hundred)."""
    return mark_safe(
        "\n".join(
            f'<li><time datetime="{article.event_date.isoformat()}">'
            f"{long_date(article.event_date)}</time> "
            f'<a href="{escape(article_path(article.slug))}">{escape(article.title)}</a></li>'
            for article in articles
        )
    )


@register.simple_tag
def archive_year_links(years, year, month):
    """The archive's years as list items, the one shown marked as the current page."""
    return mark_safe(
        "".join(
            f'<li><span aria-current="page">{other}</span></li>'
            if other == year and not month
            else f'<li><a href="{escape(archive_path(other))}">{other}</a></li>'
            for other in years
        )
    )


@register.simple_tag
def archive_month_links(months, month):
    """A year's months (dates) as list items, the one shown marked as the current page."""
    return mark_safe(
        "".join(
            f'<li><span aria-current="page">{MONTH_NAMES[m.month]}</span></li>'
            if m.month == month
            else f'<li><a href="{escape(archive_path(m.year, m.month))}">'
            f"{MONTH_NAMES[m.month]}</a></li>"
            for m in months
        )
    )


@register.simple_tag
def archive_url(day):
    """The archive month of a date."""
    return archive_path(day.year, day.month)


@register.simple_tag
def topic_index_items(page):
    """The entries of ``page`` of the topic index (rows of news.topics.TopicIndex):
    linked name and count, kept until the topics change: writing out 200 entries was most
    of an uncached topic index (and a loop in the template slower still)."""

    def items():
        return "\n".join(
            f'<li><a href="{escape(tag_path(slug))}">{escape(name)}</a> '
            f'<span class="count">{count} article{"" if count == 1 else "s"}</span></li>'
            for _, name, slug, count, *_ in page.object_list
        )

    # The script prefix: the addresses are made for it.
    key = f"topics:index:{get_script_prefix()}:{page.paginator.per_page}:{page.number}"
    return mark_safe(remember(key, [TOPICS()], items))


def _feed_addresses(origin, followed):
    """``followed``'s feeds, each a link to it, its address in full (to select and copy
    without a script) and a copy button that static/js/reader.js shows."""
    rows = []
    for feed in followed.feeds:
        url = escape(origin + feed.path)
        rows.append(
            f'<li><a class="feed-format" href="{escape(feed.path)}" type="{feed.content_type}">'
            f'{feed.format}</a> <code class="feed-url">{url}</code> '
            f'<button class="copy-button" type="button" data-copy="{url}" hidden>'
            f'<span class="copy-label">Copy</span><span class="visually-hidden"> the '
            f"{feed.format} address of {escape(followed.title)}</span></button></li>"
        )
    return f'<ul class="feed-addresses">{"".join(rows)}</ul>'


@register.simple_tag(takes_context=True)
def feed_addresses(context, followed):
    """The addresses of ``followed``'s feeds (news.follow), absolute for this origin."""
    return mark_safe(_feed_addresses(site_origin(), followed))


@register.simple_tag(takes_context=True)
def follow_items(context, followed):
    """List items of things to follow (topics, authors): each one's name on a line of its
    own, opening on its page, its feeds' page and addresses (a tag: a loop of includes for
    200 topics took several times as long). Shown at once, every topic's addresses made
    /follow/ a wall of them."""
    origin = site_origin()
    return mark_safe(
        "\n".join(
            f'<li><details class="follow-item"><summary>{escape(item.name)}</summary>'
            f'<p class="follow-links"><a href="{escape(item.page)}">{escape(item.page_name)}</a>'
            f' · <a href="{escape(item.about)}">the feed as a web page</a></p>'
            f"{_feed_addresses(origin, item)}</details></li>"
            for item in followed
        )
    )


@register.simple_tag
def feed_links(followed):
    """``<link rel="alternate">`` to each of ``followed``'s feeds, for a page's head."""
    return mark_safe(
        "\n  ".join(
            f'<link rel="alternate" type="{feed.content_type}" '
            f'title="{escape(followed.title)} ({feed.format})" href="{escape(feed.path)}">'
            for feed in followed.feeds
        )
    )


@register.simple_tag(takes_context=True)
def news_sitemap_urls(context, articles):
    """The Google News sitemap's entries (up to a thousand: too slow as a template loop)."""
    origin = site_origin()
    return mark_safe(
        "".join(
            f"""
  <url>
    <loc>{escape(origin + article_path(article.slug))}</loc>
    <news:news>
      <news:publication><news:name>Skillo</news:name><news:language>{settings.LANGUAGE_CODE}</news:language></news:publication>
      <news:publication_date>{datetime_attr(article.published_at)}</news:publication_date>
      <news:title>{escape(xml_text(article.title))}</news:title>
    </news:news>
  </url>"""
            for article in articles
        )
    )


@register.simple_tag(takes_context=True)
def article_social_meta(context, article):
    """Open Graph and Twitter's tags for an article page's <head>: some thirty template
    lookups as markup, a tenth of their cost as a tag."""
    teaser = escape(article.description)
    title = escape(article.title)
    card = article.share_image()
    lines = [
        '<meta property="og:type" content="article">',
        '<meta property="og:site_name" content="Skillo">',
        f'<meta property="og:title" content="{title}">',
        f'<meta property="og:description" content="{teaser}">',
        f'<meta property="og:url" content="{escape(absolute(article.get_absolute_url()))}">',
        f'<meta property="article:published_time" content="{datetime_attr(article.published_at)}">',
        f'<meta property="article:modified_time" content="{datetime_attr(article.updated_at)}">',
        *(
            f'<meta property="article:author" content="{escape(absolute(author_url(author)))}">'
            for author in article.byline
        ),
        *(f'<meta property="article:tag" content="{escape(tag.name)}">' for tag in article.topics),
        f'<meta property="og:image" content="{escape(absolute(card.url))}">',
        f'<meta property="og:image:width" content="{card.width}">',
        f'<meta property="og:image:height" content="{card.height}">',
        f'<meta property="og:image:alt" content="{escape(card.alt)}">',
        '<meta name="twitter:card" content="summary_large_image">',
        f'<meta name="twitter:image" content="{escape(absolute(card.url))}">',
        f'<meta name="twitter:image:alt" content="{escape(card.alt)}">',
        f'<meta name="twitter:title" content="{title}">',
        f'<meta name="twitter:description" content="{teaser}">',
    ]
    return mark_safe("\n  ".join(lines))


def _encoded(text):
    return quote(text, safe="")


@register.simple_tag(takes_context=True)
def share_links(context, article):
    """An article's share links, to each site's own form for a new post: plain links,
    which load nothing from those sites until the reader follows one (a share button's
    script or image would let each site see every reader of the article). Mastodon has
    no one address: static/js/reader.js asks for the reader's server."""
    url = absolute(article.get_absolute_url())
    title = article.title
    return {
        "title": title,
        "url": url,
        "links": [
            ("Bluesky", f"https://bsky.app/intent/compose?text={_encoded(f'{title} {url}')}"),
            ("LinkedIn", f"https://www.linkedin.com/sharing/share-offsite/?url={_encoded(url)}"),
            (
                "Hacker News",
                f"https://news.ycombinator.com/submitlink?u={_encoded(url)}&t={_encoded(title)}",
            ),
            # RFC 6068: percent-encoded, spaces as %20.
            ("E-mail", f"mailto:?subject={_encoded(title)}&body={_encoded(url)}"),
        ],
    }


@register.simple_tag
def article_links(articles, rel=None):
    """List items linking articles by title (an article page's asides)."""
    rel = f' rel="{rel}"' if rel else ""
    return mark_safe(
        "".join(
            f'<li><a href="{escape(article_path(article.slug))}"{rel}>'
            f"{escape(article.title)}</a></li>"
            for article in articles
        )
    )


@register.simple_tag
def source_items(sources):
    """An article's sources as list items: linked title (when it has a URL), publisher,
    and the archived copy an editor chose for a dead link."""
    items = []
    for source in sources:
        title = escape(source.title)
        if source.url:
            title = f'<a href="{escape(source.url)}" rel="noopener noreferrer nofollow">{title}</a>'
        archived = ""
        if source.archive_url:
            archived = (
                f' · <a class="archived" href="{escape(source.archive_url)}" '
                'rel="noopener noreferrer nofollow">archived copy</a>'
            )
        items.append(f"<li>{title} ({escape(source.publisher)}){archived}</li>")
    return mark_safe("\n      ".join(items))


@register.filter
def datetime_attr(value):
    """A date-time for a ``datetime`` attribute or a feed: whole seconds, since the HTML
    standard allows at most three fraction digits ("Publish now" stores six)."""
    return timezone.localtime(value).replace(microsecond=0).isoformat()


@register.filter(is_safe=True)
def xml_text(value):
    """``value`` without the characters that XML cannot carry."""
    return _NOT_XML.sub("", str(value))


@register.filter
def json_ld(data):
    """A JSON-LD <script> element that no value can break out of."""
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).translate(_SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))


@register.filter
def on_site(url):
    """``url`` moved onto the site's public address (the sitemap index's locations, which
    Django makes from the request's host)."""
    parts = urlsplit(url)
    return absolute(parts.path + (f"?{parts.query}" if parts.query else ""))


@register.simple_tag
def absolute_url(path):
    """``path`` on the site's public address (news.paths.absolute)."""
    return absolute(path)


def organization():
    """Skillo as a schema.org Organization, with the logo Google asks for."""
    return {
        "@type": "Organization",
        "name": "Skillo",
        "url": absolute("/"),
        "logo": {
            "@type": "ImageObject",
            "url": absolute(static("icons/skillo-512.png")),
            "width": 512,
            "height": 512,
        },
    }


# The byline of an article without authors: the desk, whose page says how it works.
EDITORIAL_NAME = "Skillo editorial"


def person_paths(author):
    """An author as a schema.org Person, their page and photo as paths (kept with the
    author page's header, which serves every origin), their links elsewhere as sameAs
    (needs the author's links loaded)."""
    data = {"@type": "Person", "name": author.name, "url": author_url(author)}
    if author.photo_id and author.photo.crops_ready:
        data["image"] = social_rendition(author.photo, "1x1").url
    links = [link.url for link in author.links.all()]
    if links:
        data["sameAs"] = links
    return data


def absolute_person(data):
    """A Person of ``person_paths`` with its addresses made absolute."""
    return data | {key: absolute(data[key]) for key in ("url", "image") if key in data}


def person(author):
    return absolute_person(person_paths(author))


@register.simple_tag(takes_context=True)
def profile_structured_data(context, person):
    """An author page's JSON-LD: a ProfilePage about the Person (Google's profile page
    markup), beside the site's own."""
    request = context["request"]
    return json_ld(
        {
            "@context": "https://schema.org",
            "@type": "ProfilePage",
            "url": absolute(request.path),
            "inLanguage": settings.LANGUAGE_CODE,
            "mainEntity": absolute_person(person),
        }
    )


def byline_structured_data(authors):
    """An article's ``author`` in JSON-LD: its authors as Persons, or the desk."""
    if authors:
        return [person(author) for author in authors]
    return {
        "@type": "Organization",
        "name": EDITORIAL_NAME,
        "url": absolute(reverse("news:about-editorial")),
    }


def site_structured_data():
    """JSON-LD for every page but articles: the site, with its search, and Skillo."""
    search = absolute(reverse("search:results"))
    return json_ld(
        {
            "@context": "https://schema.org",
            "@graph": [
                {
                    "@type": "WebSite",
                    "name": "Skillo",
                    "url": absolute("/"),
                    "inLanguage": settings.LANGUAGE_CODE,
                    "potentialAction": {
                        "@type": "SearchAction",
                        "target": {
                            "@type": "EntryPoint",
                            "urlTemplate": f"{search}?q={{search_term_string}}",
                        },
                        "query-input": "required name=search_term_string",
                    },
                },
                organization(),
            ],
        }
    )


@register.filter
def with_images(body_html, base=None):
    """An article's stored HTML with its library images placed (news.rendering): a
    <figure> each, loading lazily; and, on pages, each link alone on its line as its
    card once fetched (embeds). One query for each, none without any.

    ``base`` (the site's address, for feeds): one plain JPEG <img> with an absolute
    URL instead of a <picture>, which feed readers do not all show; links stay links."""
    return placed(body_html, base)


def placed(body_html, base=None, embeds=None):
    """with_images(), given the body's ready embeds when the caller has read them."""
    if base is None:
        body_html = with_embeds(body_html, embeds)
    if MARK_START not in body_html:
        return mark_safe(body_html)
    keys = [key for key, _ in placements(body_html)]
    found = Image.objects.filter(reduce(operator.or_, (Q(sha256__startswith=key) for key in keys)))
    by_key = {image.key: image for image in found}

    def figure(key, words):
        image = by_key.get(key[:KEY_LENGTH])
        if image is None or not image.renditions_ready:
            # Deleted since (PROTECT keeps lead images, not placements), or just
            # uploaded: shown once its renditions are made (images.tasks).
            return ""
        return render_to_string(
            "images/feed_figure.html" if base else "images/figure.html",
            {
                "image": image,
                "alt": words.get("alt", image.alt),
                "caption": words.get("caption", image.caption),
                "lead": False,
                "base": base,
            },
        )

    return mark_safe(expand_placements(body_html, figure))


def ready_embeds(body_html):
    """{address: Embed} of the fetched cards of the body's lone links (one query)."""
    urls = lone_links(body_html)
    if not urls:
        return {}
    ready = Embed.objects.ready().filter(url__in=urls).select_related("thumbnail")
    return {embed.url: embed for embed in ready}


def with_embeds(body_html, found=None):
    """``body_html`` with each lone link that has a fetched card shown as that card: its
    picture from the library, its words, and a video's player only on a click (the
    reader's script; the page's CSP allows that player's origin, news.views). ``found``:
    ready_embeds() of the body, if read already."""
    found = ready_embeds(body_html) if found is None else found
    if not found:
        return body_html

    def card(url):
        embed = found.get(url)
        if embed is None:
            return ""
        return render_to_string("embeds/card.html", {"embed": embed})

    return expand_lone_links(body_html, card)
