"""Markdown to safe HTML: the one renderer and sanitiser policy for article bodies."""

import html
import re

import markdown
import nh3
from django.utils.text import slugify

ALLOWED_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "del", "em", "h2", "h3", "h4", "h5", "h6",
    "hr", "li", "ol", "p", "pre", "strong", "sub", "sup", "table", "tbody", "td", "th",
    "thead", "tr", "ul",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "abbr": {"title"},
    "h2": {"id"},
    "h3": {"id"},
    "h4": {"id"},
    "h5": {"id"},
    "h6": {"id"},
    "td": {"align"},
    "th": {"align"},
    "ol": {"start"},
    # Nothing on every tag: without this entry nh3 keeps its own defaults (title, lang).
    "*": set(),
}
URL_SCHEMES = {"http", "https", "mailto"}


def heading_id(value, separator):
    # Stable, ASCII-friendly anchors ("What happened" -> "what-happened").
    return slugify(value) or "section"


def render_markdown(text):
    """Render an editor's Markdown to sanitised HTML.

    Headings start at <h2> (the page title is the only <h1>) and get stable ids.
    """
    html = markdown.markdown(
        text,
        extensions=["tables", "fenced_code", "sane_lists", "toc"],
        extension_configs={"toc": {"slugify": heading_id, "toc_depth": "2-6"}},
        output_format="html",
    )
    html = re.sub(r"<(/?)h1([ >])", r"<\1h2\2", html)
    return nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )


def html_to_text(fragment):
    """Readable plain text of sanitised HTML, block elements kept apart by newlines."""
    text = re.sub(r"</(p|h[1-6]|li|pre|blockquote|tr)>", "\n", fragment)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()
