from datetime import date

import pytest
from django.utils.html import strip_tags

from news.rendering import render_markdown
from textfiles.textformat import (
    ExportError,
    FormatError,
    ParsedArticle,
    ParsedLink,
    ParsedSource,
    escape_line,
    format_gone,
    format_tags,
    parse,
    parse_gone,
    parse_tags,
    unescape_line,
    write_exactly,
)

from .conftest import SHARED_ARTICLE

LITERALS = [
    "<label>",
    "{{ x }}",
    "[T](a)",
    "*args",
    "db_default",
    "&",
    "&amp; and &lt;b&gt;",
    "a \\ backslash, `code` and | pipe",
    "# not a heading",
    "- not a list",
    "+ not a list",
    "> not a quote",
    "1. not a numbered list",
    "=== not a setext underline",
    "~~~ not a fence",
    "![img](http://x)",
    "<script>alert(1)</script>",
    "http://example.org/a_b_c",
    "__dunder__ and **bold**",
    "    four spaces are not a code block",
    "\ttab first",
]


def minimal(body="Some news.", footer=None, extra=""):
    footer = footer or (
        "Published date reflects the original event date (2024-07-24). This article is "
        "original Skillo editorial written from the sources above; facts were verified in "
        "September 2026."
    )
    return f"A title\n\n{body}\n\nSources\n\n• Notes (GitHub)\n\n{footer}{extra}\n"


@pytest.mark.parametrize("text", LITERALS)
def test_escaped_text_renders_as_the_literal_text(text):
    html = render_markdown(escape_line(text))
    from html import unescape

    from django.utils.html import strip_tags

    # Leading whitespace is kept in the source but, as in any HTML, not shown.
    assert unescape(strip_tags(html)).strip() == text.strip()
    assert "<pre" not in html and "<code" not in html


@pytest.mark.parametrize("text", LITERALS)
def test_unescape_is_the_inverse_of_escape(text):
    assert unescape_line(escape_line(text)) == text


def test_shared_article_parts():
    parsed = parse(SHARED_ARTICLE.read_text(encoding="utf-8"))
    assert parsed.title == "PyTorch 2.4 Released: Python 3.12 and a Custom Operator API"
    assert parsed.event_date == date(2024, 7, 24)
    assert parsed.published_date == date(2024, 7, 24)
    assert parsed.published_date == parsed.event_date
    assert parsed.facts_verified == date(2026, 9, 1)
    assert parsed.related_titles == ["PyTorch 2.1 and automatic dynamic shapes"]
    assert [(s.title, s.publisher, s.url) for s in parsed.sources] == [
        ("PyTorch 2.4 release notes", "GitHub", "")
    ]
    headings = [line[3:] for line in parsed.body.split("\n") if line.startswith("## ")]
    assert headings == [
        "What happened",
        "Python 3.12 and custom operators",
        "Performance and distributed",
        "Other changes",
        "Why it mattered",
    ]


def test_source_publisher_is_the_last_parenthesised_group():
    parsed = parse(
        minimal().replace("• Notes (GitHub)", "• Notes (v2.4) (GitHub) <https://x.org/>")
    )
    source = parsed.sources[0]
    assert (source.title, source.publisher, source.url) == (
        "Notes (v2.4)",
        "GitHub",
        "https://x.org/",
    )


def test_dated_footer_gives_a_separate_published_date():
    parsed = parse(
        minimal(
            footer="Published on 2024-07-26; the event took place on 2024-07-24. This article "
            "is original Skillo editorial written from the sources above; facts were verified "
            "in October 2026."
        )
    )
    assert (parsed.published_date, parsed.event_date) == (date(2024, 7, 26), date(2024, 7, 24))


def test_tags_line_is_read():
    assert parse(minimal(extra="\n\nTags: pytorch, Machine learning")).tags == [
        "pytorch",
        "Machine learning",
    ]


def test_bullet_block_in_body_becomes_a_list():
    parsed = parse(minimal(body="Changes\n\n• One *thing*.\n• Two."))
    assert "- One \\*thing\\*.\n- Two." in parsed.body
    assert "<li>One *thing*.</li>" in render_markdown(parsed.body)


def test_one_line_block_without_punctuation_is_a_heading_only_when_followed():
    parsed = parse(minimal(body="Heading\n\nText.\n\nNo stop at the end"))
    assert parsed.body == "## Heading\n\nText.\n\nNo stop at the end"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("", 1, "empty"),
        (minimal().replace("2024-07-24", "2024-02-30"), 9, "not a real date"),
        (minimal().replace("September", "Septober"), 9, "not a month name"),
        (minimal().replace("• Notes (GitHub)", "• Notes without publisher"), 7, "source line"),
        (minimal().replace("This article", "The article"), 9, "footer must read"),
        (minimal(body="Text.\n\nRelated on Skillo\n\nSee also PyTorch"), 7, "See also"),
        ("Title\nsecond line\n\nBody.\n", 2, "title must be one line"),
    ],
)
def test_format_errors_name_the_line(text, line, fragment):
    with pytest.raises(FormatError) as error:
        parse(text)
    assert error.value.line == line
    assert fragment in error.value.message


# The Markdown form, the header block and the whole-site backup's lines.

MARKDOWN_FILE = (
    "Release notes roundup\n\n"
    "Format: Markdown\n\n"
    "## What happened\n\n"
    "See the [release notes](https://example.org/notes) and `pip install x`,  \n"
    "then *this*.\n\n"
    "```python\nimport x\n\n\n    print(x < 2 & {{ y }})\n```\n\n\n"
    "> A quote\n\n"
    "Sources\n\n• Notes (Example)\n\n"
    "Published on 2024-05-02; the event took place on 2024-05-01. This article is original "
    "Skillo editorial written from the sources above; facts were verified in January 2025.\n"
)
MARKDOWN_BODY = MARKDOWN_FILE.split("Format: Markdown\n\n")[1].split("\n\nSources")[0]


def test_a_markdown_body_is_read_exactly_as_written():
    parsed = parse(MARKDOWN_FILE)
    assert parsed.form == "Markdown"
    # Trailing spaces (a line break), blank lines inside the code and the extra blank line
    # after it are the body's: only the one blank line on either side separates it.
    assert parsed.body == MARKDOWN_BODY
    assert parsed.body.endswith("```\n\n\n> A quote")
    html = render_markdown(parsed.body)
    assert '<a href="https://example.org/notes" rel="noopener noreferrer nofollow">' in html
    assert "<code>pip install x</code>" in html and "<br>" in html
    # Highlighted (its language is named), and still the code as written.
    code = html[
        html.index('<pre class="highlight" tabindex="0"><code>') : html.index("</code></pre>")
    ]
    assert strip_tags(code).replace("&lt;", "<").replace("&amp;", "&") == (
        "import x\n\n\n    print(x < 2 & {{ y }})\n"
    )
    assert parsed.lines["body"] == 5
    assert [(s.title, s.publisher) for s in parsed.sources] == [("Notes", "Example")]


def test_crlf_line_breaks_are_given_back_to_the_body():
    text = MARKDOWN_FILE.replace("Format: Markdown", "Format: Markdown, CRLF line breaks")
    assert parse(text).body == MARKDOWN_BODY.replace("\n", "\r\n")
    # A file whose own line breaks were made CRLF on the way reads the same.
    assert parse(text.replace("\n", "\r\n")).body == MARKDOWN_BODY.replace("\n", "\r\n")


def test_a_json_body_is_one_line():
    body = "\n\nStarts with blank lines\r\nand mixes\nline breaks\n\nSources\n\n• A (B)"
    text = minimal(
        body='Format: Markdown, as a JSON string\n\n"'
        + body.replace("\r", "\\r").replace("\n", "\\n")
        + '"'
    )
    assert parse(text).body == body


FULL_HEADER = (
    "Format: plain text\n"
    "Slug: a-title\n"
    "Old slugs: first-slug, second_slug\n"
    "Status: draft\n"
    "Published: 2024-07-24 09:41:07.120034+02:00\n"
    "Updated: 2025-01-02 03:04:05+00:00\n"
    'Summary: "Two lines\\r\\nof summary."\n'
    "Id: 17"
)


def test_the_header_block_holds_every_field_of_the_backup():
    parsed = parse(minimal(body=FULL_HEADER + "\n\nSome news."))
    assert parsed.body == "Some news."
    assert (parsed.slug, parsed.old_slugs, parsed.status) == (
        "a-title",
        ["first-slug", "second_slug"],
        "draft",
    )
    assert parsed.published_at.isoformat() == "2024-07-24T09:41:07.120034+02:00"
    assert parsed.updated_at.isoformat() == "2025-01-02T03:04:05+00:00"
    assert (parsed.summary, parsed.id) == ("Two lines\r\nof summary.", 17)
    assert parsed.lines["status"] == 6 and parsed.lines["body"] == 12
    # Empty values: no old slugs, no summary.
    empty = parse(minimal(body="Format: plain text\nOld slugs:\nSummary:\n\nSome news."))
    assert (empty.old_slugs, empty.summary) == ([], "")


def test_without_a_header_the_fields_are_left_to_the_importer():
    parsed = parse(minimal())
    assert (parsed.form, parsed.slug, parsed.status, parsed.summary) == (
        "plain text",
        None,
        None,
        None,
    )
    assert (parsed.old_slugs, parsed.published_at, parsed.updated_at, parsed.id) == (
        None,
        None,
        None,
        None,
    )


def test_related_titles_may_give_the_address_of_their_article():
    parsed = parse(
        minimal(
            body="Text.\n\nRelated on Skillo\n\nSee also: Go 1.22 </articles/go-1-22/>; "
            "Not written yet; Rust <b>1.75</b>."
        )
    )
    assert [(link.title, link.slug) for link in parsed.related] == [
        ("Go 1.22", "go-1-22"),
        ("Not written yet", None),
        ("Rust <b>1.75</b>", None),
    ]


@pytest.mark.parametrize(
    ("header", "line", "fragment"),
    [
        ("Format: Markdown\nColour: blue", 4, "'Colour: blue' is not a header line"),
        ("Format: HTML", 3, "'Format:' must be 'plain text', 'Markdown'"),
        (
            "Format: Markdown\nStatus: scheduled",
            4,
            "'Status:' must be 'published', 'review' or 'draft'",
        ),
        ("Format: Markdown\nStatus: draft\nStatus: draft", 5, "'Status:' is given twice"),
        ("Format: Markdown\nPublished: 2024-07-24", 4, "with its offset from UTC"),
        ("Format: Markdown\nPublished: 2024-07-25 10:00:00+00:00", 4, "the footer says"),
        ("Format: Markdown\nUpdated: yesterday", 4, "'Updated:' must be a date and time"),
        ('Format: Markdown\nSummary: "unfinished', 4, "'Summary:' holds a broken JSON"),
        ("Format: Markdown\nId: -3", 4, "'Id:' must be a positive whole number"),
        ("Format: Markdown\nSlug:", 4, "'Slug:' needs the article's slug"),
        ("Format: Markdown, as a JSON string", 5, "the body is not a JSON string"),
    ],
)
def test_header_errors_name_the_line(header, line, fragment):
    with pytest.raises(FormatError) as error:
        parse(minimal(body=f"{header}\n\nSome news."))
    assert error.value.line == line
    assert fragment in error.value.message


def content(body, **fields):
    return ParsedArticle(
        title="A title",
        body=body,
        event_date=date(2024, 7, 24),
        published_date=date(2024, 7, 24),
        facts_verified=date(2026, 9, 1),
        sources=[ParsedSource("Notes", "GitHub")],
        **fields,
    )


def test_an_imported_plain_text_body_is_written_back_as_plain_text():
    text = SHARED_ARTICLE.read_text(encoding="utf-8")
    assert write_exactly(parse(text)) == text.rstrip("\n") + "\n"


@pytest.mark.parametrize(
    ("body", "form"),
    [
        ("## What happened\n\nIt shipped.", None),
        ("Use &lt;label> and \\*args.", None),
        ("Format: \\*not\\* a header.", "plain text"),
        ("See the [notes](https://example.org).", "Markdown"),
        ("## What happened\r\n\r\nIt `shipped`.", "Markdown, CRLF line breaks"),
        # Blank lines beyond the one that separates blocks are the body's.
        ("It shipped.\n", "Markdown"),
        ("\n\nIt shipped.\n\n\n", "Markdown"),
        # A last block that would read as the article's own related links.
        ("It shipped.\n\nRelated on Skillo\n\nSee also: X.", "Markdown, as a JSON string"),
        ("Mixed\r\nline\nbreaks.", "Markdown, as a JSON string"),
    ],
)
def test_export_writes_the_most_readable_form_that_is_exact(body, form):
    text = write_exactly(content(body))
    second_block = text.split("\n\n")[1]
    if form is None:
        assert not second_block.startswith("Format:")
    else:
        assert second_block.split("\n")[0] == f"Format: {form}"
    assert parse(text).body == body


def test_an_article_no_form_can_hold_is_refused_naming_what():
    with pytest.raises(ExportError, match="its related links would read back as"):
        write_exactly(content("Text.", related=[ParsedLink("One; two")]))
    with pytest.raises(ExportError, match="its tags would read back as"):
        write_exactly(content("Text.", tags=["a, b"]))


def test_the_site_listings_read_back():
    tags = [(3, "go", "Go"), (1, "cpp", "C++"), (7, "quoted", '"Quoted"'), (2, "two", "Two\nl")]
    assert [(i, s, n) for s, n, _, i in parse_tags(format_tags(tags))] == tags
    assert parse_tags("rust: Rust\n") == [("rust", "Rust", 1, None)]
    assert parse_gone(format_gone(["old-one", "old-two"])) == [("old-one", 2), ("old-two", 3)]
    with pytest.raises(FormatError) as error:
        parse_tags("# a comment\n\nno colon here\n")
    assert error.value.line == 3
