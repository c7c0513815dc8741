from datetime import date

import pytest

from news.rendering import render_markdown
from news.textformat import FormatError, escape_line, parse, unescape_line

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
