"""What a reader can follow: the site, each topic, each author and the corrections, each
in the formats it has a feed in, and the page that shows its feed to people (a browser
opening a feed shows its source).

The feeds (news.feeds, api.jsonfeed), their pages and /follow/ take their titles,
descriptions and addresses from here, so a feed and its page always say the same.
"""

from dataclasses import dataclass

from .paths import author_path, page_path, slug_path, tag_path

RSS = ("RSS", "application/rss+xml")
ATOM = ("Atom", "application/atom+xml")
JSON_FEED = ("JSON Feed", "application/feed+json")


@dataclass(frozen=True)
class Feed:
    """One format of a feed, at its address (a path)."""

    format: str
    content_type: str
    path: str


@dataclass(frozen=True)
class Followed:
    """Something to follow, with its feeds.

    ``title`` and ``description`` are the feeds' own; ``name`` says what it is on
    /follow/ ("Linux"); ``page`` is where it is on the site (the topic's page), named
    ``page_name``, and ``about`` the page showing its feed to people.
    """

    name: str
    title: str
    description: str
    page: str
    page_name: str
    about: str
    feeds: tuple


def site():
    return Followed(
        name="Everything on Skillo",
        title="Skillo",
        description="The latest Skillo articles on tech releases, with their sources.",
        page=page_path("news:index"),
        page_name="The latest on Skillo",
        about=page_path("news:feed-page"),
        feeds=(
            Feed(*RSS, page_path("news:feed")),
            Feed(*ATOM, page_path("news:feed-atom")),
            Feed(*JSON_FEED, page_path("api:feed")),
        ),
    )


def topic(tag):
    return Followed(
        name=tag.name,
        title=f"Skillo: {tag.name}",
        description=f"The latest Skillo articles tagged {tag.name}.",
        page=tag_path(tag.slug),
        page_name=f"{tag.name} on Skillo",
        about=slug_path("news:tag-feed-page", tag.slug),
        feeds=(
            Feed(*RSS, slug_path("news:tag-feed", tag.slug)),
            Feed(*ATOM, slug_path("news:tag-feed-atom", tag.slug)),
            Feed(*JSON_FEED, slug_path("api:tag-feed", tag.slug)),
        ),
    )


def author(author):
    return Followed(
        name=author.name,
        title=f"Skillo: {author.name}",
        description=f"The latest Skillo articles by {author.name}.",
        page=author_path(author.slug),
        page_name=f"{author.name} on Skillo",
        about=slug_path("news:author-feed-page", author.slug),
        feeds=(
            Feed(*RSS, slug_path("news:author-feed", author.slug)),
            Feed(*ATOM, slug_path("news:author-feed-atom", author.slug)),
            Feed(*JSON_FEED, slug_path("api:author-feed", author.slug)),
        ),
    )


def corrections():
    return Followed(
        name="Corrections",
        title="Skillo: corrections",
        description="Every correction to a Skillo article, newest first.",
        page=page_path("news:corrections"),
        page_name="All corrections",
        about=page_path("news:corrections-feed-page"),
        feeds=(Feed(*RSS, page_path("news:corrections-feed")),),
    )
