"""Markdown to safe HTML: the one renderer and sanitiser policy for article bodies.

Pictures from the image library are placed with Markdown's image syntax and the image's
key, ``![alt text](image:KEY "caption")`` (alt text and caption optional: the library's
are used without them). Any other image is dropped by the sanitiser (no hot-linking, no
tracking pixels). A placement is stored in the HTML as a marker (see PLACEMENT) and
turned into a <figure> when the page is shown (news.templatetags.news.with_images), so
that a new alt text, credit or storage address in the library needs no article saved
again.
"""

import base64
import html
import json
import re

import markdown
import nh3
from django.utils.text import slugify
from markdown.postprocessors import Postprocessor
from markdown.treeprocessors import Treeprocessor

from .highlight import TOKEN_CLASSES, highlight_blocks

IMAGE_SCHEME = "image:"
# Private-use characters: they survive sanitising as text, and mean nothing in articles
# (render_markdown removes any an editor pasted, so no marker can be forged).
MARK_START, MARK_END = "\ue000", "\ue001"
PLACEMENT = re.compile(
    MARK_START + r"image:(?P<key>[0-9a-f]{16,64}):(?P<words>[A-Za-z0-9_=-]*)" + MARK_END
)
_PRE = re.compile(r'<pre( class="highlight")?>')
IMAGE_KEY = re.compile(r"[0-9a-fA-F]{16,64}")
# A placement alone in its paragraph (the usual way), or inside one.
_PLACEMENT_PARAGRAPH = re.compile(r"<p>\s*(" + PLACEMENT.pattern + r")\s*</p>")

# A link alone in its paragraph whose words are its address (a bare URL on a line of its
# own): its card is shown there once fetched (embeds; news.templatetags.news.with_images).
LONE_LINK = re.compile(
    r'<p><a href="(https?://[^"<>]+)" rel="noopener noreferrer nofollow">\1</a></p>'
)

ALLOWED_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "del", "div", "em", "h2", "h3", "h4", "h5",
    "h6", "hr", "li", "ol", "p", "pre", "span", "strong", "sub", "sup", "table", "tbody",
    "td", "th", "thead", "tr", "ul",
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
    # Footnotes: the reference and the note link to each other (FOOTNOTE_ID only).
    "sup": {"id"},
    "li": {"id"},
    # Nothing on every tag: without this entry nh3 keeps its own defaults (title, lang).
    "*": set(),
}
URL_SCHEMES = {"http", "https", "mailto"}
# Highlighted code: the classes news.highlight writes, and no others.
ALLOWED_CLASSES = {
    "pre": {"highlight"},
    "span": TOKEN_CLASSES,
    # Footnotes, and admonitions (!!! note, !!! warning...): their boxes and titles.
    "a": {"footnote-ref", "footnote-backref"},
    "div": {"footnote", "admonition", *(ADMONITIONS := {"note", "tip", "warning", "danger"})},
    "p": {"admonition-title"},
}
FOOTNOTE_ID = re.compile(r"fn(?:ref\d*)?-\d+")


def allowed_value(element, attribute, value):
    """nh3's attribute filter: ids only a footnote's (an editor's raw HTML could
    otherwise name an element the page's own script or styles use)."""
    if attribute == "id" and element in {"sup", "li"}:
        return value if FOOTNOTE_ID.fullmatch(value) else None
    return value


def heading_id(value, separator):
    # Stable, ASCII-friendly anchors ("What happened" -> "what-happened").
    return slugify(value) or "section"


class LibraryImages(Treeprocessor):
    """Replace each <img src="image:KEY"> with its placement marker."""

    def run(self, root):
        for parent in root.iter():
            for index, child in enumerate(list(parent)):
                if child.tag != "img" or not child.get("src", "").startswith(IMAGE_SCHEME):
                    continue
                key = child.get("src")[len(IMAGE_SCHEME) :].strip().lower()
                marker = placement_marker(key, child.get("alt"), child.get("title"))
                # The marker takes the image's place in the text, the tail after it.
                if index:
                    previous = parent[index - 1]
                    previous.tail = (previous.tail or "") + marker + (child.tail or "")
                else:
                    parent.text = (parent.text or "") + marker + (child.tail or "")
                parent.remove(child)


class LibraryImagesExtension(markdown.Extension):
    def extendMarkdown(self, md):
        # After inline patterns have made the <img> elements.
        md.treeprocessors.register(LibraryImages(md), "library_images", 0)


# The name of the tag a piece of raw HTML opens or closes (None for a comment or text).
_RAW_TAG = re.compile(r"\s*</?([A-Za-z][A-Za-z0-9-]*)")


class TypedTags(Postprocessor):
    """Text that looks like a tag the sanitiser would drop (``<soon>``, ``<T>``) is shown
    as typed: escaped before the raw HTML goes back in, where nh3 would have removed it
    and said nothing. Allowed tags stay HTML."""

    def run(self, text):
        stash = self.md.htmlStash
        for index, raw in enumerate(stash.rawHtmlBlocks):
            match = _RAW_TAG.match(raw)
            if match and match[1].lower() not in ALLOWED_TAGS:
                stash.rawHtmlBlocks[index] = html.escape(raw, quote=False)
        return text


class TypedTagsExtension(markdown.Extension):
    def extendMarkdown(self, md):
        # Before raw_html (30) puts the stashed HTML back.
        md.postprocessors.register(TypedTags(md), "typed_tags", 35)


def placement_marker(key, alt, caption):
    words = {name: value for name, value in (("alt", alt), ("caption", caption)) if value}
    encoded = base64.urlsafe_b64encode(json.dumps(words).encode()).decode() if words else ""
    if not IMAGE_KEY.fullmatch(key):
        key = "0" * 16  # not a key: shown as nothing; Article.clean() names it
    return f"{MARK_START}image:{key}:{encoded}{MARK_END}"


def placements(fragment):
    """[(key, {"alt": ..., "caption": ...})] of the library images a body places."""
    return [(match["key"], _words(match["words"])) for match in PLACEMENT.finditer(fragment)]


def _words(encoded):
    if not encoded:
        return {}
    return json.loads(base64.urlsafe_b64decode(encoded.encode()))


def placed_keys(markdown_text):
    """The image keys a Markdown body refers to, valid or not, in order."""
    return [key for key, _ in placements(render_markdown(markdown_text))]


def expand_placements(fragment, figure):
    """``fragment`` with each placement replaced by ``figure(key, words)`` (HTML, or ""
    for none). A figure cannot sit inside a paragraph: one in running text splits it."""
    fragment = _PLACEMENT_PARAGRAPH.sub(lambda match: match[1], fragment)
    expanded = PLACEMENT.sub(
        lambda match: (
            "</p>" + figure(match["key"], _words(match["words"])) + "<p>"
            if _inside_paragraph(fragment, match.start())
            else figure(match["key"], _words(match["words"]))
        ),
        fragment,
    )
    return expanded.replace("<p></p>", "")


def _inside_paragraph(fragment, position):
    return fragment.rfind("<p>", 0, position) > fragment.rfind("</p>", 0, position)


def render_markdown(text, typed_tags=False):
    """Render an editor's Markdown to sanitised HTML.

    Headings start at <h2> (the page title is the only <h1>) and get stable ids. With
    ``typed_tags`` (a live entry, typed at speed and never previewed), text that looks
    like a tag the sanitiser would drop is shown as typed (TypedTags).
    """
    text = text.replace(MARK_START, "").replace(MARK_END, "")
    html = markdown.markdown(
        text,
        extensions=[
            "tables", "fenced_code", "sane_lists", "toc", "footnotes", "admonition",
            "pymdownx.magiclink", LibraryImagesExtension(),
            *([TypedTagsExtension()] if typed_tags else []),
        ],
        extension_configs={
            "toc": {"slugify": heading_id, "toc_depth": "2-6"},
            # fn-1 and fnref-1 (the ids FOOTNOTE_ID lets through), a plain arrow back.
            "footnotes": {"SEPARATOR": "-", "BACKLINK_TITLE": "Back to the text"},
            # Bare addresses as links, written out as typed.
            "pymdownx.magiclink": {"hide_protocol": False, "repo_url_shortener": False},
        },
        output_format="html",
    )  # fmt: skip
    html = re.sub(r"<(/?)h1([ >])", r"<\1h2\2", html)
    html = highlight_blocks(html)
    html = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes=ALLOWED_ATTRIBUTES,
        allowed_classes=ALLOWED_CLASSES,
        attribute_filter=allowed_value,
        url_schemes=URL_SCHEMES,
        link_rel="noopener noreferrer nofollow",
        strip_comments=True,
    )
    # A code block wider than the column scrolls: keyboard users must be able to reach
    # it to scroll it (after sanitising, which keeps no tabindex of the editor's).
    return _PRE.sub(r'<pre\1 tabindex="0">', html)


_HEADING = re.compile(r'<(h[2-6]) id="([^"<>]+)">(.*?)</\1>', re.S)
_TAG = re.compile(r"<[^>]+>")
# An article with this many sections or more gets a table of contents on its page.
CONTENTS_FROM = 4


def contents(fragment):
    """[(id, heading as HTML text)] of the body's sections (its <h2>s), when it has
    CONTENTS_FROM of them or more; else []."""
    found = [(anchor, _TAG.sub("", text).strip()) for tag, anchor, text in
             _HEADING.findall(fragment) if tag == "h2"]  # fmt: skip
    return found if len(found) >= CONTENTS_FROM else []


def with_heading_anchors(fragment):
    """Each heading followed by a link to itself, to copy a section's address (beside
    the heading, not in it: a heading's name stays its words). Added when the page is
    shown: the stored HTML (search, feeds, the API) has none."""

    def anchored(match):
        tag, anchor, text = match.groups()
        label = _TAG.sub("", text).strip()
        return (
            f'<div class="heading"><{tag} id="{anchor}">{text}</{tag}>'
            f'<a class="heading-anchor" href="#{anchor}" '
            f'aria-label="Link to the section “{label}”">#</a></div>'
        )

    return _HEADING.sub(anchored, fragment)


def html_to_text(fragment):
    """Readable plain text of sanitised HTML, block elements kept apart by newlines
    (image placements left out)."""
    fragment = PLACEMENT.sub("", fragment)
    text = re.sub(r"</(p|h[1-6]|li|pre|blockquote|tr)>", "\n", fragment)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


def lone_links(fragment):
    """The addresses set alone on a line of their own (LONE_LINK), in order, unescaped."""
    return list(dict.fromkeys(html.unescape(match[1]) for match in LONE_LINK.finditer(fragment)))


def expand_lone_links(fragment, card):
    """``fragment`` with each lone link replaced by ``card(address)``, or left as it is
    when that gives ""."""
    return LONE_LINK.sub(lambda match: card(html.unescape(match[1])) or match[0], fragment)
