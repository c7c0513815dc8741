"""The Skillo plain-text article format: parse it, and write it back.

The format is described in the README ("Plain-text articles"). Paragraph text in it is
literal, so it is escaped on the way into Markdown and unescaped on the way out; the two
functions are exact inverses, which is what makes the round trip byte for byte.
"""

import re
from dataclasses import dataclass, field
from datetime import date

from .models import MONTH_NAMES

RELATED_HEADING = "Related on Skillo"
SOURCES_HEADING = "Sources"
BULLET = "• "
CLOSING_PUNCTUATION = tuple(".!?:;")
FOOTER_TAIL = (
    r" This article is original Skillo editorial written from the sources above; "
    r"facts were verified in (?P<month>[A-Z][a-z]+) (?P<year>\d{4})\."
)
BACKDATED_FOOTER = re.compile(
    r"Published date reflects the original event date \((?P<event>\d{4}-\d{2}-\d{2})\)\."
    + FOOTER_TAIL
)
DATED_FOOTER = re.compile(
    r"Published on (?P<published>\d{4}-\d{2}-\d{2}); "
    r"the event took place on (?P<event>\d{4}-\d{2}-\d{2})\." + FOOTER_TAIL
)
SOURCE_LINE = re.compile(
    r"• (?P<title>.+) \((?P<publisher>[^()]+)\)(?: <(?P<url>[^<>\s]+)>)?"
)  # fmt: skip
TAGS_PREFIX = "Tags: "

# Markdown escaping of literal text. Inline characters Markdown could read as markup:
_INLINE_ESCAPES = {
    "\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]",
    "#": "\\#", "|": "\\|", "<": "&lt;", "&": "&amp;",
}  # fmt: skip
# ...and characters that mean something only at the start of a line.
# (A leading space or tab would start a code block after three more.)
_LINE_START_ESCAPES = {
    ">": "\\>", "-": "\\-", "+": "\\+", "=": "&#61;", "~": "&#126;", " ": "&#32;", "\t": "&#9;",
}  # fmt: skip
_UNESCAPE = re.compile(r"\\([\\`*_\[\]#|>+\-.])|&(lt|amp|#61|#126|#32|#9);")
_UNESCAPED_ENTITIES = {"lt": "<", "amp": "&", "#61": "=", "#126": "~", "#32": " ", "#9": "\t"}


class FormatError(ValueError):
    """A problem in a plain-text article, with the line it was found on."""

    def __init__(self, line, message):
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.message = message


@dataclass
class ParsedSource:
    title: str
    publisher: str
    url: str = ""
    line: int = 0


@dataclass
class ParsedArticle:
    title: str
    body: str
    event_date: date
    published_date: date
    facts_verified: date
    related_titles: list[str] = field(default_factory=list)
    sources: list[ParsedSource] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)


def escape_line(text):
    escaped = "".join(_INLINE_ESCAPES.get(char, char) for char in text)
    if text[:1] in _LINE_START_ESCAPES:
        escaped = _LINE_START_ESCAPES[text[0]] + escaped[1:]
    return re.sub(r"^(\d+)\.", r"\1\\.", escaped)


def unescape_line(text):
    return _UNESCAPE.sub(lambda m: m.group(1) or _UNESCAPED_ENTITIES[m.group(2)], text)


def _blocks(text):
    """Split into blocks of (first line number, lines), dropping blank lines."""
    blocks, current, start = [], [], 0
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.rstrip()
        if line.strip():
            if not current:
                start = number
            current.append(line)
        elif current:
            blocks.append((start, current))
            current = []
    if current:
        blocks.append((start, current))
    return blocks


def _parse_date(value, line, what):
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise FormatError(line, f"{what} {value!r} is not a real date (YYYY-MM-DD).") from None


def _parse_footer(start, lines):
    sentence = " ".join(lines)
    match = BACKDATED_FOOTER.fullmatch(sentence) or DATED_FOOTER.fullmatch(sentence)
    if not match:
        raise FormatError(
            start,
            "the footer must read 'Published date reflects the original event date "
            "(YYYY-MM-DD). This article is original Skillo editorial written from the sources "
            "above; facts were verified in Month YYYY.' or start 'Published on YYYY-MM-DD; "
            "the event took place on YYYY-MM-DD.'",
        )
    event = _parse_date(match["event"], start, "the event date")
    published = (
        _parse_date(match["published"], start, "the published date")
        if "published" in match.groupdict()
        else event
    )
    if match["month"] not in MONTH_NAMES:
        raise FormatError(start, f"{match['month']!r} is not a month name (e.g. September).")
    verified = date(int(match["year"]), MONTH_NAMES.index(match["month"]) + 1, 1)
    return event, published, verified


def _body_markdown(blocks):
    parts = []
    for index, (_, lines) in enumerate(blocks):
        is_last = index == len(blocks) - 1
        if all(line.startswith(BULLET) for line in lines):
            parts.append("\n".join("- " + escape_line(line[len(BULLET) :]) for line in lines))
        elif len(lines) == 1 and not lines[0].endswith(CLOSING_PUNCTUATION) and not is_last:
            parts.append("## " + escape_line(lines[0]))
        else:
            parts.append("\n".join(escape_line(line) for line in lines))
    return "\n\n".join(parts)


def parse(text):
    """Parse one plain-text article; raise FormatError naming the line on any problem."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    blocks = _blocks(text)
    if not blocks:
        raise FormatError(1, "the file is empty.")
    title_line, title_lines = blocks[0]
    if len(title_lines) != 1:
        raise FormatError(title_line + 1, "the title must be one line, followed by a blank line.")
    lines = {"title": title_line}

    tags = []
    if blocks[-1][1][-1].startswith(TAGS_PREFIX):
        start, tag_lines = blocks.pop()
        if len(tag_lines) != 1:
            raise FormatError(start, "'Tags:' must be a single line.")
        tags = [tag.strip() for tag in tag_lines[0][len(TAGS_PREFIX) :].split(",") if tag.strip()]
        lines["tags"] = start

    if len(blocks) < 3:
        raise FormatError(
            blocks[-1][0], "an article needs a title, a body and the footer sentence."
        )
    footer_line, footer_lines = blocks.pop()
    event, published, verified = _parse_footer(footer_line, footer_lines)
    lines["footer"] = footer_line

    body_end = len(blocks)
    sources = []
    if [SOURCES_HEADING] in (block for _, block in blocks[1:]):
        sources_at = max(i for i, (_, block) in enumerate(blocks) if block == [SOURCES_HEADING])
        if sources_at != len(blocks) - 2:
            raise FormatError(
                blocks[sources_at][0],
                "'Sources' must be followed by one block of '• TITLE (PUBLISHER)' lines "
                "and then the footer.",
            )
        body_end = sources_at
        source_start, source_lines = blocks[sources_at + 1]
        for offset, line in enumerate(source_lines):
            match = SOURCE_LINE.fullmatch(line)
            if not match:
                raise FormatError(
                    source_start + offset,
                    "a source line must read '• TITLE (PUBLISHER)' or "
                    f"'• TITLE (PUBLISHER) <URL>', not {line!r}.",
                )
            sources.append(
                ParsedSource(
                    match["title"].strip(),
                    match["publisher"].strip(),
                    match["url"] or "",
                    source_start + offset,
                )
            )

    related = []
    related_at = [i for i, (_, b) in enumerate(blocks[:body_end]) if b == [RELATED_HEADING]]
    if related_at:
        if related_at[-1] != body_end - 2:
            raise FormatError(
                blocks[related_at[-1]][0],
                "'Related on Skillo' must be followed by one 'See also: TITLE; TITLE.' block "
                "and then 'Sources' or the footer.",
            )
        body_end = related_at[-1]
        start, see_also = blocks[body_end + 1]
        sentence = " ".join(see_also)
        if not (sentence.startswith("See also: ") and sentence.endswith(".")):
            raise FormatError(start, "the related block must read 'See also: TITLE; TITLE.'")
        related = [t.strip() for t in sentence[len("See also: ") : -1].split("; ") if t.strip()]
        lines["related"] = start

    body_blocks = blocks[1:body_end]
    if not body_blocks:
        raise FormatError(title_line + 1, "the article has no body between its title and sources.")
    lines["body"] = body_blocks[0][0]
    return ParsedArticle(
        title=title_lines[0].strip(),
        body=_body_markdown(body_blocks),
        event_date=event,
        published_date=published,
        facts_verified=verified,
        related_titles=related,
        sources=sources,
        tags=tags,
        lines=lines,
    )


_HEADING = re.compile(r"#{1,6}\s+(.*?)(?:\s+#+)?")
_LIST_ITEM = re.compile(r"[-*+]\s+(.*)")


def _body_text(markdown):
    blocks = []
    for block in re.split(r"\n\s*\n", markdown.replace("\r\n", "\n").strip()):
        lines = block.split("\n")
        heading = _HEADING.fullmatch(lines[0]) if len(lines) == 1 else None
        if heading:
            blocks.append(unescape_line(heading.group(1)))
        elif all(_LIST_ITEM.fullmatch(line) for line in lines):
            blocks.append(
                "\n".join(
                    BULLET + unescape_line(_LIST_ITEM.fullmatch(line).group(1)) for line in lines
                )
            )
        else:
            blocks.append("\n".join(unescape_line(line.rstrip()) for line in lines))
    return blocks


def format_article(article):
    """Write an article (with its sources, related links and tags) in the plain-text format."""
    blocks = [article.title, *_body_text(article.body)]
    related = [link.display_title for link in article.related_links.all()]
    if related:
        blocks += [RELATED_HEADING, "See also: " + "; ".join(related) + "."]
    source_lines = []
    for source in article.sources.all():
        line = f"{BULLET}{source.title} ({source.publisher})"
        source_lines.append(f"{line} <{source.url}>" if source.url else line)
    if source_lines:
        blocks += [SOURCES_HEADING, "\n".join(source_lines)]
    blocks.append(article.footer_sentence)
    tags = sorted(tag.name for tag in article.tags.all())
    if tags:
        blocks.append(TAGS_PREFIX + ", ".join(tags))
    return "\n\n".join(blocks) + "\n"
