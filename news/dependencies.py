"""What the news pages are built from, named once for the views and for the purges.

A view says what its page shows (``depends_on(request, ARTICLE(article.pk))``); news.purge
says what a change touched with the same names, so the two cannot drift apart.
"""

from pagecache.dependencies import Dependency

ARTICLE = Dependency("article", doc="A page shows this article (its title, dates, text).")
TAG = Dependency("tag", doc="A page lists this topic's articles.")
REFERENCED_BY = Dependency("refs", doc="A page lists the articles linking to this one.")
TITLE = Dependency(
    "title",
    hashed=True,
    doc="A page links by title to an article with this (upper-cased) title, or lists "
    "articles linking to it by title.",
)
LATEST = Dependency("list:all", doc="A page lists the newest articles, or the archive's months.")
TOPICS = Dependency("tags", doc="A page lists topics with their counts.")
NAV = Dependency("nav", doc="A page shows the site header's main topics.")
FRONT = Dependency("front", doc="The home page's lead story and pinned features.")
FEEDS = Dependency(
    "feeds",
    doc="Feeds, sitemaps and search results: any public article's dates, text and "
    "topics, its authors' names.",
)
AUTHOR = Dependency(
    "author", doc="A page shows this author: their page, or their name in a byline."
)
AUTHOR_ARTICLES = Dependency("author-articles", doc="A page lists this author's articles.")
AUTHORS = Dependency("authors", doc="A page lists the authors (the author index).")
CORRECTIONS = Dependency(
    "corrections", doc="A page lists corrections site-wide (/corrections/ and its feed)."
)
SOURCE = Dependency(
    "source",
    hashed=True,
    doc="A page cites this source URL (and shows its archived copy, if it has one).",
)
EMBED = Dependency(
    "embed",
    hashed=True,
    doc="A page shows the card of this address (a link alone on its line), or the link.",
)


def title_key(title):
    return TITLE(title.upper())
