"""The Skillo plain-text article format: parse it, and write it back.

The format is described in docs/text-format.md. A file's body is in one of
two forms, named by an optional ``Format:`` line in a header block after the title:

- plain text (the default, and the form of the demo content, textfiles/demo_content): paragraph
  text is literal, so it is escaped on the way into Markdown and unescaped on the way out;
  the two functions are exact inverses, which is what makes the round trip byte for byte;
- Markdown: the body as the editor wrote it, stored exactly as it is in the file.

The header block also carries the fields of the whole-site backup (slug, old slugs,
status, published and updated times, summary, id), the article's authors (by slug, in
byline order) and its public corrections and updates. ``format_article`` writes an article
in the first form that reads back exactly as the article is (it checks by parsing what it
wrote), so that export then import never loses anything silently.
"""

import json
import re
from dataclasses import dataclass, field
from datetime import date, datetime

from django.utils import timezone

from news.models import MONTH_NAMES

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
SEE_ALSO = "See also: "
# A related link to an existing article: its title, then its address.
RELATED_ADDRESS = re.compile(r"(?P<title>.*\S) </articles/(?P<slug>[-a-zA-Z0-9_]+)/>")

# The header block: the block right after the title, when its first line is "Format: ...".
FORMAT_PREFIX = "Format:"
PLAIN_TEXT = "plain text"
MARKDOWN = "Markdown"
MARKDOWN_CRLF = "Markdown, CRLF line breaks"
MARKDOWN_JSON = "Markdown, as a JSON string"
FORMATS = (PLAIN_TEXT, MARKDOWN, MARKDOWN_CRLF, MARKDOWN_JSON)
# Header line names, as written, and the ParsedArticle.lines key of each.
HEADER_FIELDS = {
    "Format": "format",
    "Slug": "slug",
    "Old slugs": "old_slugs",
    "Status": "status",
    "Published": "published_at",
    "Updated": "updated_at",
    "Summary": "summary",
    "Lead image": "lead_image",
    "Search title": "search_title",
    "Meta description": "meta_description",
    "Social image": "social_image",
    "Authors": "authors",
    "Correction": "corrections",
    "Update": "corrections",
    "Id": "id",
}
# Lines that may be given more than once, each adding one item (in the file's order).
REPEATED_FIELDS = {"Correction", "Update"}
# A correction's or update's line: its published time (in the full form, then its id), " | ",
# its note. The time and id never hold "|", so the first one ends them.
NOTE_SEPARATOR = " | "
CORRECTION_KINDS = {"Correction": "correction", "Update": "update"}
_NOTE_WHEN = re.compile(r"(?P<time>[^,|]+?)(?:, id (?P<id>\d+))?")
STATUSES = ("published", "review", "draft")
_HEADER_LINE = re.compile(r"(?P<name>[A-Z][A-Za-z]*(?: [a-z]+)*):(?: (?P<value>.*))?")
_SLUG = re.compile(r"[-a-zA-Z0-9_]+")
_IMAGE_KEY = re.compile(r"[0-9a-fA-F]{16,64}")

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


class ExportError(ValueError):
    """An article that no form of the format can hold exactly; nothing was written."""


@dataclass
class ParsedSource:
    title: str
    publisher: str
    url: str = ""
    line: int = 0


@dataclass
class ParsedLink:
    """A "See also" title; ``slug`` is the address of the article it links to, if any."""

    title: str
    slug: str | None = None


@dataclass
class ParsedCorrection:
    """A public note on a change (news.Correction): ``kind`` is "correction" or "update"."""

    kind: str
    published_at: datetime
    note: str
    # Its id where it was exported (the full form: a restore keeps it, as its anchor on
    # the article's page and its id in the corrections feed are made of it).
    id: int | None = None
    line: int = 0

    def content(self):
        return (self.kind, self.published_at, self.note, self.id)


@dataclass
class ParsedArticle:
    """An article as the format holds it. The header fields are None when the file has no
    line for them. The importer then leaves the status, times and old slugs as they are,
    and takes a missing summary, lead image or byline as none (a file describes every
    part of its article); corrections and updates are only ever added."""

    title: str
    body: str
    event_date: date
    published_date: date
    facts_verified: date
    related: list[ParsedLink] = field(default_factory=list)
    sources: list[ParsedSource] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    form: str = PLAIN_TEXT
    slug: str | None = None
    old_slugs: list[str] | None = None
    status: str | None = None
    published_at: datetime | None = None
    updated_at: datetime | None = None
    summary: str | None = None
    # The start of the lead image's SHA-256 (images/ in a site backup has its file);
    # "" for none.
    lead_image: str | None = None
    # How search results and share cards show it, when not as the above say (None: no
    # line, as ""): the page's <title>, its meta description, and the share card's image.
    search_title: str | None = None
    meta_description: str | None = None
    social_image: str | None = None
    # Author slugs in byline order; None when the file has no line (no byline).
    authors: list[str] | None = None
    # Corrections and updates, oldest first; None when the file has no such line (an
    # import only ever adds notes: the stored ones stay).
    corrections: list[ParsedCorrection] | None = None
    id: int | None = None

    @property
    def related_titles(self):
        return [link.title for link in self.related]

    def content(self):
        """Everything the file says about the article (not how it says it, nor where)."""
        return (
            self.title,
            self.body,
            self.event_date,
            self.published_date,
            self.facts_verified,
            [(link.title, link.slug) for link in self.related],
            [(s.title, s.publisher, s.url) for s in self.sources],
            list(self.tags),
            self.slug,
            self.old_slugs,
            self.status,
            self.published_at,
            self.updated_at,
            self.summary,
            self.lead_image,
            self.search_title,
            self.meta_description,
            self.social_image,
            self.authors,
            None if self.corrections is None else [c.content() for c in self.corrections],
            self.id,
        )


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


def _text_value(value, line, name):
    """A header value: as written, or a JSON string when it starts with a double quote
    (for text with line breaks or spaces at either end)."""
    if not value.startswith('"'):
        return value
    try:
        text = json.loads(value)
    except ValueError as error:
        raise FormatError(line, f"'{name}:' holds a broken JSON string ({error}).") from None
    if not isinstance(text, str):
        raise FormatError(line, f"'{name}:' must hold text or one JSON string.")
    return text


def _write_text_value(text):
    plain = (
        text == text.strip() and not text.startswith('"') and "\n" not in text and "\r" not in text
    )
    return text if plain else json.dumps(text, ensure_ascii=False)


def _parse_time(value, line, name):
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise FormatError(
            line,
            f"'{name}:' must be a date and time with its offset from UTC, e.g. "
            f"'2024-07-24 09:30:00+02:00', not {value!r}.",
        )
    return moment


def _write_time(moment):
    return timezone.localtime(moment).isoformat(sep=" ")


def _field_line(pattern, line, number, known, what, tail):
    """(name, value) of a "Name: value" line whose name is one of ``known``; else a
    FormatError saying what the line is not and which names the block may hold."""
    match = pattern.fullmatch(line)
    name = match["name"] if match else None
    if name not in known:
        raise FormatError(
            number,
            f"{line!r} is not {what} " + ", ".join(f"'{field}:'" for field in known) + tail,
        )
    return name, (match["value"] or "").strip()


def _parse_header(start, header_lines):
    """The header block: {key: value} and {key: line}."""
    values, lines = {}, {}
    for line_number, line in enumerate(header_lines, start=start):
        name, value = _field_line(
            _HEADER_LINE, line, line_number, HEADER_FIELDS,
            "a header line; the block after the title may hold", ", one a line.",
        )  # fmt: skip
        key = HEADER_FIELDS[name]
        if name in REPEATED_FIELDS:
            values.setdefault(key, []).append(_parse_correction(name, value, line_number))
            lines.setdefault(key, line_number)
            continue
        if key in values:
            raise FormatError(line_number, f"'{name}:' is given twice.")
        lines[key] = line_number
        if key == "format":
            if value not in FORMATS:
                raise FormatError(
                    line_number,
                    "'Format:' must be " + ", ".join(f"'{f}'" for f in FORMATS[:-1])
                    + f" or '{FORMATS[-1]}', not {value!r}.",
                )  # fmt: skip
        elif key == "slug":
            if not value:
                raise FormatError(line_number, "'Slug:' needs the article's slug.")
        elif key in {"old_slugs", "authors"}:
            value = [slug.strip() for slug in value.split(",") if slug.strip()]
        elif key == "status":
            if value not in STATUSES:
                raise FormatError(
                    line_number,
                    f"'Status:' must be 'published', 'review' or 'draft', not {value!r}.",
                )
        elif key in {"published_at", "updated_at"}:
            value = _parse_time(value, line_number, name)
        elif key in {"summary", "search_title", "meta_description"}:
            value = _text_value(value, line_number, name)
        elif key in {"lead_image", "social_image"}:
            if value and not _IMAGE_KEY.fullmatch(value):
                raise FormatError(
                    line_number,
                    f"'{name}:' must be the picture's key as export writes it (16 to 64 "
                    f"hexadecimal digits), or nothing for no {name.lower()}; not {value!r}.",
                )
            value = value.lower()
        elif key == "id":
            if not value.isascii() or not value.isdigit() or int(value) == 0:
                raise FormatError(line_number, "'Id:' must be a positive whole number.")
            value = int(value)
        values[key] = value
    return values, lines


def _parse_correction(name, value, line):
    """'Correction: TIME | NOTE' or 'Correction: TIME, id N | NOTE' (or 'Update:'): the
    time as 'Published:' has it, the note as written or as a JSON string. The first '|'
    ends the time, so the note may hold more."""
    when, separator, note = value.partition(NOTE_SEPARATOR.strip())
    match = _NOTE_WHEN.fullmatch(when.strip())
    if not separator or not match:
        raise FormatError(
            line,
            f"'{name}:' must read '{name}: TIME | NOTE' (or '{name}: TIME, id N | NOTE'), "
            f"e.g. '{name}: 2026-11-30 14:05:00+00:00 | What changed.', not {value!r}.",
        )
    if match["id"] is not None and (not match["id"].isascii() or int(match["id"]) == 0):
        raise FormatError(line, f"'{name}:' must give a positive whole number as its id.")
    return ParsedCorrection(
        kind=CORRECTION_KINDS[name],
        published_at=_parse_time(match["time"], line, name),
        note=_text_value(note.strip(), line, name),
        id=None if match["id"] is None else int(match["id"]),
        line=line,
    )


def _write_correction(correction):
    name = next(name for name, kind in CORRECTION_KINDS.items() if kind == correction.kind)
    when = _write_time(correction.published_at)
    if correction.id is not None:
        when += f", id {correction.id}"
    return f"{name}: {when}{NOTE_SEPARATOR}{_write_text_value(correction.note)}"


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


def _parse_related(start, lines):
    sentence = " ".join(lines)
    if not (sentence.startswith(SEE_ALSO) and sentence.endswith(".")):
        raise FormatError(start, "the related block must read 'See also: TITLE; TITLE.'")
    related = []
    for item in sentence[len(SEE_ALSO) : -1].split("; "):
        item = item.strip()
        if not item:
            continue
        address = RELATED_ADDRESS.fullmatch(item)
        if address:
            related.append(ParsedLink(address["title"].strip(), address["slug"]))
        else:
            related.append(ParsedLink(item))
    return related


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

    header, first_body = {}, 1
    if len(blocks) > 1 and blocks[1][1][0].startswith(FORMAT_PREFIX):
        header, header_lines = _parse_header(*blocks[1])
        lines.update(header_lines)
        first_body = 2

    tags = []
    if blocks[-1][1][-1].startswith(TAGS_PREFIX):
        start, tag_lines = blocks.pop()
        if len(tag_lines) != 1:
            raise FormatError(start, "'Tags:' must be a single line.")
        tags = [tag.strip() for tag in tag_lines[0][len(TAGS_PREFIX) :].split(",") if tag.strip()]
        lines["tags"] = start

    if len(blocks) < first_body + 2:
        raise FormatError(
            blocks[-1][0], "an article needs a title, a body and the footer sentence."
        )
    footer_line, footer_lines = blocks.pop()
    event, published, verified = _parse_footer(footer_line, footer_lines)
    lines["footer"] = footer_line

    body_end = len(blocks)
    sources = []
    if [SOURCES_HEADING] in (block for _, block in blocks[first_body:]):
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
    related_at = [
        i
        for i, (_, block) in enumerate(blocks[:body_end])
        if i >= first_body and block == [RELATED_HEADING]
    ]
    if related_at:
        if related_at[-1] != body_end - 2:
            raise FormatError(
                blocks[related_at[-1]][0],
                "'Related on Skillo' must be followed by one 'See also: TITLE; TITLE.' block "
                "and then 'Sources' or the footer.",
            )
        body_end = related_at[-1]
        lines["related"] = blocks[body_end + 1][0]
        related = _parse_related(*blocks[body_end + 1])

    body_blocks = blocks[first_body:body_end]
    if not body_blocks:
        raise FormatError(
            blocks[first_body - 1][0] + len(blocks[first_body - 1][1]),
            "the article has no body between its title and sources.",
        )
    lines["body"] = body_blocks[0][0]
    form = header.get("format", PLAIN_TEXT)
    if form == PLAIN_TEXT:
        body = _body_markdown(body_blocks)
    elif form == MARKDOWN_JSON:
        body = _json_body(body_blocks)
    else:
        # Exactly the lines between the blank line after the header and the blank line
        # before what follows the body: further blank lines belong to the body.
        header_end = blocks[1][0] + len(blocks[1][1]) - 1
        tail_start = blocks[body_end][0] if body_end < len(blocks) else footer_line
        body = "\n".join(text.split("\n")[header_end + 1 : tail_start - 2])
        if form == MARKDOWN_CRLF:
            body = body.replace("\n", "\r\n")

    published_at = header.get("published_at")
    if published_at is not None and published_at.date() != published:
        raise FormatError(
            lines["published_at"],
            f"'Published:' is on {published_at.date()}, but the footer says the article was "
            f"published on {published}.",
        )
    return ParsedArticle(
        title=title_lines[0].strip(),
        body=body,
        event_date=event,
        published_date=published,
        facts_verified=verified,
        related=related,
        sources=sources,
        tags=tags,
        lines=lines,
        form=form,
        slug=header.get("slug"),
        old_slugs=header.get("old_slugs"),
        status=header.get("status"),
        published_at=published_at,
        updated_at=header.get("updated_at"),
        summary=header.get("summary"),
        lead_image=header.get("lead_image"),
        search_title=header.get("search_title"),
        meta_description=header.get("meta_description"),
        social_image=header.get("social_image"),
        authors=header.get("authors"),
        corrections=header.get("corrections"),
        id=header.get("id"),
    )


def _json_body(body_blocks):
    start, block = body_blocks[0]
    if len(body_blocks) != 1 or len(block) != 1:
        raise FormatError(
            start, f"with 'Format: {MARKDOWN_JSON}' the body is one line: a JSON string."
        )
    try:
        body = json.loads(block[0])
    except ValueError as error:
        raise FormatError(start, f"the body is not a JSON string ({error}).") from None
    if not isinstance(body, str):
        raise FormatError(start, "the body is not a JSON string.")
    return body


_HEADING = re.compile(r"#{1,6}\s+(.*?)(?:\s+#+)?")
_LIST_ITEM = re.compile(r"[-*+]\s+(.*)")


def _body_text(markdown):
    """The body in the plain-text form: the inverse of _body_markdown()."""
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
    return "\n\n".join(blocks)


def footer_sentence(event_date, published_date, facts_verified):
    """The footer as Article.footer_sentence writes it, from the three dates."""
    if published_date == event_date:
        dates = f"Published date reflects the original event date ({event_date:%Y-%m-%d})."
    else:
        dates = (
            f"Published on {published_date:%Y-%m-%d}; "
            f"the event took place on {event_date:%Y-%m-%d}."
        )
    return (
        f"{dates} This article is original Skillo editorial written from the sources above; "
        f"facts were verified in {MONTH_NAMES[facts_verified.month - 1]} {facts_verified.year}."
    )


def write(article, form, *, header=False):
    """The text of ``article`` (a ParsedArticle) with its body in ``form``. The header block
    is written when the form is not plain text, when ``header`` asks for it, or when the
    article has header fields."""
    if form == PLAIN_TEXT:
        body = _body_text(article.body)
    elif form == MARKDOWN_JSON:
        body = json.dumps(article.body, ensure_ascii=False)
    elif form == MARKDOWN_CRLF:
        body = article.body.replace("\r\n", "\n")
    else:
        body = article.body
    header_lines = [f"Format: {form}"]
    if article.slug is not None:
        header_lines.append(f"Slug: {article.slug}")
    if article.old_slugs is not None:
        header_lines.append(_header_line("Old slugs", ", ".join(article.old_slugs)))
    if article.status is not None:
        header_lines.append(f"Status: {article.status}")
    if article.published_at is not None:
        header_lines.append(f"Published: {_write_time(article.published_at)}")
    if article.updated_at is not None:
        header_lines.append(f"Updated: {_write_time(article.updated_at)}")
    if article.summary is not None:
        header_lines.append(_header_line("Summary", _write_text_value(article.summary)))
    if article.lead_image is not None:
        header_lines.append(_header_line("Lead image", article.lead_image))
    # Only when set: files of articles without them read as before.
    if article.search_title:
        header_lines.append(_header_line("Search title", _write_text_value(article.search_title)))
    if article.meta_description:
        header_lines.append(
            _header_line("Meta description", _write_text_value(article.meta_description))
        )
    if article.social_image:
        header_lines.append(_header_line("Social image", article.social_image))
    if article.authors:
        # No line without authors: such files read as before (and the demo and shared
        # articles keep exporting byte for byte).
        header_lines.append(f"Authors: {', '.join(article.authors)}")
    if article.corrections:
        # Likewise only for an article with corrections or updates.
        header_lines += [_write_correction(c) for c in article.corrections]
    if article.id is not None:
        header_lines.append(f"Id: {article.id}")
    blocks = [article.title]
    if header or form != PLAIN_TEXT or len(header_lines) > 1:
        blocks.append("\n".join(header_lines))
    blocks.append(body)
    if article.related:
        items = [f"{r.title} </articles/{r.slug}/>" if r.slug else r.title for r in article.related]
        blocks += [RELATED_HEADING, SEE_ALSO + "; ".join(items) + "."]
    source_lines = []
    for source in article.sources:
        line = f"{BULLET}{source.title} ({source.publisher})"
        source_lines.append(f"{line} <{source.url}>" if source.url else line)
    if source_lines:
        blocks += [SOURCES_HEADING, "\n".join(source_lines)]
    blocks.append(
        footer_sentence(article.event_date, article.published_date, article.facts_verified)
    )
    if article.tags:
        blocks.append(TAGS_PREFIX + ", ".join(article.tags))
    return "\n\n".join(blocks) + "\n"


def _header_line(name, value):
    return f"{name}: {value}" if value else f"{name}:"


def article_content(article, *, full=False):
    """A stored article (with sources, related links and their targets, tags, authors,
    corrections and, when ``full``, retired slugs loaded) as a ParsedArticle: what its
    file must say."""
    related = [
        ParsedLink(link.target.title, link.target.slug)
        if link.target_id and link.target
        else ParsedLink(link.title)
        for link in article.related_links.all()
    ]
    content = ParsedArticle(
        title=article.title,
        body=article.body,
        event_date=article.event_date,
        published_date=article.published_date,
        facts_verified=article.facts_verified,
        related=related,
        sources=[ParsedSource(s.title, s.publisher, s.url) for s in article.sources.all()],
        tags=sorted(tag.name for tag in article.tags.all()),
        # Written whenever there is one (an article without stays byte-equal): a file
        # without the line imports as an article without it.
        summary=article.summary or None,
        lead_image=article.lead_image.key if article.lead_image_id else None,
        search_title=article.search_title or None,
        meta_description=article.meta_description or None,
        social_image=article.social_image.key if article.social_image_id else None,
        authors=[authorship.author.slug for authorship in article.authorships.all()] or None,
        corrections=[
            ParsedCorrection(c.kind, timezone.localtime(c.published_at), c.note)
            for c in article.corrections.all()
        ]
        or None,
    )
    if full:
        for correction, stored in zip(
            content.corrections or [], article.corrections.all(), strict=True
        ):
            correction.id = stored.pk
        content.slug = article.slug
        content.old_slugs = sorted(retired.slug for retired in article.retired_slugs.all())
        content.status = article.status
        content.published_at = timezone.localtime(article.published_at)
        content.updated_at = timezone.localtime(article.updated_at)
        content.summary = article.summary
        content.id = article.pk
    return content


def _markdown_form(body):
    """The Markdown form for a body: CRLF line breaks throughout are written as LF."""
    if "\r\n" in body and body.count("\n") == body.count("\r\n"):
        return MARKDOWN_CRLF
    return MARKDOWN


def format_article(article, *, full=False):
    """Write a stored article in the plain-text format: the plain-text form when it holds
    the body exactly (as for every article imported from plain text), else Markdown, else
    Markdown as one JSON string (for a body the readable forms cannot hold: CRLF and LF
    line breaks mixed, a CR alone, a last block that reads as "Sources" or "Related on
    Skillo"). ``full`` adds the header fields of the whole-site backup. Raises ExportError
    if no form reads back as the article."""
    return write_exactly(article_content(article, full=full), header=full)


def write_exactly(content, *, header=False):
    """The text of ``content`` in the first form that parses back to the same content."""
    forms = [PLAIN_TEXT, _markdown_form(content.body), MARKDOWN_JSON]
    if not header:
        # A plain-text body whose first block starts with "Format:" needs the header.
        forms.insert(1, PLAIN_TEXT)
    problem = None
    for index, form in enumerate(forms):
        text = write(content, form, header=header or index > 0)
        try:
            parsed = parse(text)
        except FormatError as error:
            problem = error
            continue
        if parsed.content() == content.content():
            return text
        problem = parsed
    raise ExportError(
        f"{content.title!r} cannot be written exactly: {_difference(content, problem)}"
    )


def _difference(content, problem):
    if isinstance(problem, FormatError):
        return f"it would not read back ({problem})."
    names = [
        "title", "body", "event date", "published date", "facts verified", "related links",
        "sources", "tags", "slug", "old slugs", "status", "published", "updated", "summary",
        "lead image", "authors", "corrections and updates", "id",
    ]  # fmt: skip
    for name, wanted, read in zip(names, content.content(), problem.content(), strict=True):
        if wanted != read:
            return f"its {name} would read back as {read!r} instead of {wanted!r}."
    return "it would not read back the same."  # pragma: no cover


# The whole-site backup's two other files (see the export_site command).
TAGS_FILE_HEADER = (
    "# Topics, one a line, oldest first: the id (of its fediverse actor, /ap/topics/ID), SLUG\n"
    "# (of the address /tags/SLUG/), a colon, the name. A line without the id is a new topic.\n"
)
GONE_FILE_HEADER = "# Addresses of deleted articles, which answer 410 Gone: /articles/SLUG/.\n"
_TAG_LINE = re.compile(r"(?:(?P<id>[0-9]+) )?(?P<slug>[^:\s]+): (?P<name>.+)")


def format_tags(tags):
    """tags.txt: ``tags`` is (id, slug, name) triples."""
    return TAGS_FILE_HEADER + "".join(
        f"{id} {slug}: {_write_text_value(name)}\n" for id, slug, name in tags
    )


def format_gone(slugs):
    return GONE_FILE_HEADER + "".join(f"{slug}\n" for slug in slugs)


def _listing(text):
    """(line number, line) of a backup listing, without comments and blank lines."""
    for number, line in enumerate(text.removeprefix("\ufeff").split("\n"), start=1):
        line = line.rstrip("\r")
        if line.strip() and not line.startswith("#"):
            yield number, line


def parse_tags(text):
    """[(slug, name, line, id or None)] from tags.txt; FormatError on a malformed line."""
    tags = []
    for number, line in _listing(text):
        match = _TAG_LINE.fullmatch(line)
        if not match:
            raise FormatError(number, f"a topic line must read 'ID SLUG: NAME', not {line!r}.")
        name = _text_value(match["name"], number, "the name")
        tags.append((match["slug"], name, number, match["id"] and int(match["id"])))
    return tags


def parse_gone(text):
    """[(slug, line)] from gone.txt."""
    return [(line.strip(), number) for number, line in _listing(text)]


def is_slug(value):
    return bool(_SLUG.fullmatch(value))


# The whole-site backup's authors (authors.txt): a block of "Name: value" lines per author.
AUTHORS_FILE_HEADER = (
    "# Authors, oldest first: a block of lines each, a blank line between them. Id, Slug\n"
    "# (of the address /authors/SLUG/), Name and Updated (the last change) always; Role,\n"
    "# Bio, Photo (the key of a picture in images/), User (the username of the account\n"
    "# that writes as them) and Link: LABEL <URL> lines (in order) when set.\n"
    "# A value in double quotes is a JSON string (line breaks, spaces at either end).\n"
)
AUTHOR_FIELDS = ("Id", "Slug", "Name", "Updated", "Role", "Bio", "Photo", "User", "Link")
_LINK_VALUE = re.compile(r"(?P<label>.+) <(?P<url>[^<>\s]+)>")


@dataclass
class ParsedAuthor:
    id: int
    slug: str
    name: str
    updated_at: datetime | None = None
    role: str = ""
    bio: str = ""
    user: str | None = None
    links: list[tuple[str, str]] = field(default_factory=list)
    line: int = 0
    photo: str | None = None  # the picture's key (images/KEY.EXT in the backup)

    def content(self):
        return (
            self.id, self.slug, self.name, self.updated_at, self.role, self.bio, self.photo,
            self.user, self.links,
        )  # fmt: skip


def format_authors(authors):
    """authors.txt from ParsedAuthor values; ExportError naming an author whose lines
    would not read back exactly (checked by parsing what was written)."""
    blocks = []
    for author in authors:
        lines = [f"Id: {author.id}", f"Slug: {author.slug}"]
        lines.append(f"Name: {_write_text_value(author.name)}")
        lines.append(f"Updated: {_write_time(author.updated_at)}")
        if author.role:
            lines.append(f"Role: {_write_text_value(author.role)}")
        if author.bio:
            lines.append(f"Bio: {_write_text_value(author.bio)}")
        if author.photo:
            lines.append(f"Photo: {author.photo}")
        if author.user:
            lines.append(f"User: {author.user}")
        lines += [f"Link: {label} <{url}>" for label, url in author.links]
        blocks.append("\n".join(lines) + "\n")
    text = AUTHORS_FILE_HEADER + "".join(f"\n{block}" for block in blocks)
    read = parse_authors(text)
    for wanted, got in zip(authors, read, strict=True):
        if wanted.content() != got.content():
            raise ExportError(f"the author {wanted.slug!r} cannot be written exactly.")
    return text


def _line_blocks(text):
    """The blocks of a file of "Name: value" blocks (authors.txt, sources.txt), each a
    list of (line number, line), blank lines between them, "#" lines left out."""
    blocks, block = [], []
    for number, line in enumerate([*text.removeprefix("\ufeff").split("\n"), ""], start=1):
        line = line.rstrip("\r")
        if line.startswith("#"):
            continue
        if line.strip():
            block.append((number, line))
        elif block:
            blocks.append(block)
            block = []
    return blocks


def parse_authors(text):
    """[ParsedAuthor] from authors.txt; FormatError naming the line on any problem."""
    return [_parse_author(block) for block in _line_blocks(text)]


def _parse_author(block):
    values, links = {}, []
    for number, line in block:
        name, value = _field_line(
            _HEADER_LINE, line, number, AUTHOR_FIELDS,
            "an author line; an author's block holds", " lines.",
        )  # fmt: skip
        if name == "Link":
            link = _LINK_VALUE.fullmatch(value)
            if not link:
                raise FormatError(number, f"a link must read 'Link: LABEL <URL>', not {line!r}.")
            links.append((link["label"].strip(), link["url"]))
            continue
        if name in values:
            raise FormatError(number, f"'{name}:' is given twice for one author.")
        if name == "Id" and (not value.isascii() or not value.isdigit() or int(value) == 0):
            raise FormatError(number, "'Id:' must be a positive whole number.")
        if name in {"Name", "Role", "Bio"}:
            value = _text_value(value, number, name)
        if name == "Updated":
            value = _parse_time(value, number, name)
        if name == "Photo":
            if not _IMAGE_KEY.fullmatch(value):
                raise FormatError(
                    number,
                    f"'Photo:' must be a picture's key (16 to 64 hex digits), not {value!r}.",
                )
            value = value.lower()
        values[name] = value
    start = block[0][0]
    for required in ("Id", "Slug", "Name", "Updated"):
        if not values.get(required):
            raise FormatError(start, f"an author needs an '{required}:' line.")
    return ParsedAuthor(
        id=int(values["Id"]),
        slug=values["Slug"],
        name=values["Name"],
        updated_at=values["Updated"],
        role=values.get("Role", ""),
        bio=values.get("Bio", ""),
        user=values.get("User") or None,
        links=links,
        line=start,
        photo=values.get("Photo"),
    )


# The whole-site backup's source checks (sources.txt): a block of "Name: value" lines per
# source URL, as check_sources last found it and as editors decided about it.
SOURCES_FILE_HEADER = (
    "# Source URLs, by URL: a block of lines each, a blank line between them. URL always;\n"
    "# when set: State (fine, moved, gone, failing or soft-404), Status (the last HTTP\n"
    "# status), Final URL (where redirects led), Error (why the last check failed),\n"
    "# Checked, Worked (the last check that worked), Failures (checks in a row that\n"
    "# failed), Next check, Archived copy (readers see it next to a dead source) and\n"
    "# Ignored until (left out of Sources to fix until then).\n"
    "# Times carry their UTC offset; a value in double quotes is a JSON string.\n"
)
# Line names, and the ParsedSourceURL (and sources.models.SourceURL) field of each.
SOURCE_URL_FIELDS = {
    "URL": "url",
    "State": "state",
    "Status": "last_status",
    "Final URL": "final_url",
    "Error": "last_error",
    "Checked": "last_checked_at",
    "Worked": "last_ok_at",
    "Failures": "failures",
    "Next check": "next_check_at",
    "Archived copy": "archive_url",
    "Ignored until": "ignored_until",
}
_SOURCE_URL_TIMES = {"last_checked_at", "last_ok_at", "next_check_at", "ignored_until"}
_SOURCE_URL_NUMBERS = {"last_status", "failures"}
_SOURCE_URL_LINE = re.compile(r"(?P<name>[A-Z][A-Za-z]*(?: [A-Za-z]+)*):(?: (?P<value>.*))?")


@dataclass
class ParsedSourceURL:
    url: str
    state: str = "unchecked"
    last_status: int | None = None
    final_url: str = ""
    last_error: str = ""
    last_checked_at: datetime | None = None
    last_ok_at: datetime | None = None
    failures: int = 0
    next_check_at: datetime | None = None
    archive_url: str = ""
    ignored_until: datetime | None = None
    line: int = 0

    def content(self):
        return tuple(getattr(self, name) for name in SOURCE_URL_FIELDS.values())


def _blocks_text(header, items, fields, written):
    """A file of "Name: value" blocks, one per item: a line for each field whose
    ``written(key, value)`` is not None."""
    blocks = []
    for item in items:
        lines = []
        for name, key in fields.items():
            text = written(key, getattr(item, key))
            if text is not None:
                lines.append(f"{name}: {text}")
        blocks.append("\n".join(lines) + "\n")
    return header + "".join(f"\n{block}" for block in blocks)


def _checked_blocks(text, items, parse, problem):
    """``text`` if it reads back as ``items`` (parse), else ExportError(problem(item))."""
    for wanted, got in zip(items, parse(text), strict=True):
        if wanted.content() != got.content():
            raise ExportError(problem(wanted))
    return text


def _block_values(block, fields, what, read):
    """{key: value} of one block of a "Name: value" file, each value through ``read(key,
    text, line number, name)``; FormatError on an unknown or repeated line."""
    values = {}
    for number, line in block:
        name, value = _field_line(
            _SOURCE_URL_LINE, line, number, fields,
            f"a {what} line; a {what}'s block holds", " lines.",
        )  # fmt: skip
        key = fields[name]
        if key in values:
            raise FormatError(number, f"'{name}:' is given twice for one {what}.")
        values[key] = read(key, value, number, name)
    return values


def _written_source_url(key, value):
    if value in (None, "", 0) or (key == "state" and value == "unchecked"):
        return None
    if key in _SOURCE_URL_TIMES:
        return _write_time(value)
    return _write_text_value(value) if key == "last_error" else value


def _read_source_url(key, value, number, name):
    if key in _SOURCE_URL_TIMES:
        return _parse_time(value, number, name)
    if key in _SOURCE_URL_NUMBERS:
        if not value.isascii() or not value.isdigit():
            raise FormatError(number, f"'{name}:' must be a whole number, not {value!r}.")
        return int(value)
    return _text_value(value, number, name) if key == "last_error" else value


def format_source_urls(source_urls):
    """sources.txt from ParsedSourceURL values (a line for each field that is set);
    ExportError naming a URL whose lines would not read back exactly."""
    text = _blocks_text(SOURCES_FILE_HEADER, source_urls, SOURCE_URL_FIELDS, _written_source_url)
    return _checked_blocks(
        text, source_urls, parse_source_urls,
        lambda item: f"the source URL {item.url!r} cannot be written exactly.",
    )  # fmt: skip


def parse_source_urls(text):
    """[ParsedSourceURL] from sources.txt; FormatError naming the line on any problem.
    (Whether a URL is a URL, a state a state: the model's rules, checked by the restore.)"""
    return [_parse_source_url(block) for block in _line_blocks(text)]


def _parse_source_url(block):
    values = _block_values(block, SOURCE_URL_FIELDS, "source URL", _read_source_url)
    start = block[0][0]
    if not values.get("url"):
        raise FormatError(start, "a source URL's block needs a 'URL:' line.")
    return ParsedSourceURL(**values, line=start)


# embeds.txt: the fetched cards of links set alone on a line, so a restored site shows
# them without fetching the pages again (and a page gone since keeps its card).

EMBEDS_FILE_HEADER = (
    "# Link cards (embeds), by URL: a block of lines each, a blank line between them.\n"
    "# URL, Title and Fetched always; when set: Kind (video, rich, photo or link),\n"
    "# Provider, Author, Text, Thumbnail (the picture's key in images/), Player (the\n"
    "# video player's address, loaded on a reader's click) and Player size (W x H).\n"
    "# Times carry their UTC offset; a value in double quotes is a JSON string.\n"
)
EMBED_FIELDS = {
    "URL": "url",
    "Kind": "kind",
    "Provider": "provider",
    "Title": "title",
    "Author": "author",
    "Text": "text",
    "Thumbnail": "thumbnail",
    "Player": "player_url",
    "Player size": "player_size",
    "Fetched": "fetched_at",
}
_EMBED_WORDS = {"provider", "title", "author", "text"}
_PLAYER_SIZE = re.compile(r"(?P<width>\d{1,4}) x (?P<height>\d{1,4})")


@dataclass
class ParsedEmbed:
    url: str
    title: str = ""
    fetched_at: datetime | None = None
    kind: str = "link"
    provider: str = ""
    author: str = ""
    text: str = ""
    # The thumbnail's key in the image library (images/ in the backup).
    thumbnail: str = ""
    player_url: str = ""
    player_size: tuple | None = None
    line: int = 0

    def content(self):
        return tuple(getattr(self, name) for name in EMBED_FIELDS.values())


def _written_embed(key, value):
    if value in (None, "") or (key == "kind" and value == "link"):
        return None
    if key == "fetched_at":
        return _write_time(value)
    if key == "player_size":
        return f"{value[0]} x {value[1]}"
    return _write_text_value(value) if key in _EMBED_WORDS else value


def _read_embed(key, value, number, name):
    if key == "fetched_at":
        return _parse_time(value, number, name)
    if key == "player_size":
        size = _PLAYER_SIZE.fullmatch(value)
        if not size:
            raise FormatError(number, f"'{name}:' must read like '640 x 360', not {value!r}.")
        return (int(size["width"]), int(size["height"]))
    if key == "thumbnail":
        if not _IMAGE_KEY.fullmatch(value):
            raise FormatError(number, f"'{name}:' must be a picture's key, not {value!r}.")
        return value.lower()
    return _text_value(value, number, name) if key in _EMBED_WORDS else value


def format_embeds(embeds):
    """embeds.txt from ParsedEmbed values; ExportError naming a URL whose lines would not
    read back exactly."""
    text = _blocks_text(EMBEDS_FILE_HEADER, embeds, EMBED_FIELDS, _written_embed)
    return _checked_blocks(
        text, embeds, parse_embeds,
        lambda item: f"the link card of {item.url!r} cannot be written exactly.",
    )  # fmt: skip


def parse_embeds(text):
    """[ParsedEmbed] from embeds.txt; FormatError naming the line on any problem."""
    return [_parse_embed(block) for block in _line_blocks(text)]


def _parse_embed(block):
    values = _block_values(block, EMBED_FIELDS, "link card", _read_embed)
    start = block[0][0]
    for needed in ("url", "title", "fetched_at"):
        if not values.get(needed):
            name = next(name for name, key in EMBED_FIELDS.items() if key == needed)
            raise FormatError(start, f"a link card's block needs a '{name}:' line.")
    return ParsedEmbed(**values, line=start)
