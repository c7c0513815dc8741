"""Property tests of the plain-text format's round trip (issue 13): whatever body an editor
writes (links, images, inline code, fenced code with a language, emphasis, lists, block
quotes, tables, headings, backslashes, literal <, & and {{ }}, CRLF line breaks as the
admin's form sends them, blank lines anywhere), export then import gives the same stored
body, the same rendered HTML and the same public page, and exporting again gives the
same file.

Two levels: the format alone (parse and write, many examples), and the commands' whole
path through the database (export_articles, import_articles, the article page).
"""

import tempfile
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone
from hypothesis import event, example, given, settings
from hypothesis import strategies as st
from reversion.models import Version

from images.models import Image
from news.models import Article, RetiredSlug, Tag
from news.rendering import render_markdown
from people.models import Author
from textfiles.importer import import_articles
from textfiles.textformat import (
    MARKDOWN_JSON,
    PLAIN_TEXT,
    ParsedArticle,
    ParsedCorrection,
    ParsedLink,
    ParsedSource,
    article_content,
    parse,
    write_exactly,
)

from .factories import ArticleFactory, ImageFactory, RelatedLinkFactory, SourceFactory

FOOTER = (
    "Published date reflects the original event date (2024-07-24). This article is original "
    "Skillo editorial written from the sources above; facts were verified in September 2026."
)
# Lower-case words: no strategy below can spell a line of the format ("Sources",
# "Related on Skillo", a footer), which only the awkward bodies try on purpose.
word = st.from_regex(r"[a-z0-9]{1,8}", fullmatch=True)
LITERALS = [
    "<", ">", "&", "&amp;", "&lt;b&gt;", "<b>bold?</b>", "{{ x }}", "{% tag %}", "\\",
    "a\\b", "\\*", "\\_", "\\\\", "*", "_", "`", "[", "]", "(", ")", "#", "|", "~", "!",
    "ünïcode", "\U0001f680", "<label>", "*args", "db_default", "1.",
]  # fmt: skip
literal = st.sampled_from(LITERALS)
url = st.builds("https://example.org/{}/{}".format, word, word)
soup = st.text(alphabet=list("abc <>&{}[]()*_`\\#|!-+.~=\"'/:;"), min_size=1, max_size=16)
inline = st.one_of(
    word,
    literal,
    st.builds("[{}]({})".format, word, url),
    st.builds('[{}]({} "{}")'.format, word, url, word),
    st.builds("![{}]({}.png)".format, word, url),
    st.builds("`{}`".format, st.text(alphabet=list("ab <>&{}\\*_|"), min_size=1, max_size=10)),
    st.builds("*{}*".format, word),
    st.builds("**{}**".format, word),
    st.builds("_{}_".format, word),
    st.builds("<{}>".format, url),
    soup.map(str.strip).filter(bool),
)
sentence = st.lists(inline, min_size=1, max_size=8).map(" ".join)
code_line = st.one_of(
    st.just(""),
    st.builds("    {}".format, sentence),
    st.text(alphabet=list("abc <>&{}\\*_|#=()\t"), max_size=20),
    sentence,
).filter(lambda line: not line.lstrip().startswith(("```", "~~~")))


@st.composite
def markdown_block(draw):
    kind = draw(
        st.sampled_from(
            ["paragraph", "heading", "list", "ordered", "quote", "code", "table", "lines"]
        )
    )
    if kind == "heading":
        return "#" * draw(st.integers(1, 6)) + " " + draw(sentence)
    if kind == "list":
        return "\n".join(f"- {item}" for item in draw(st.lists(sentence, min_size=1, max_size=4)))
    if kind == "ordered":
        items = draw(st.lists(sentence, min_size=1, max_size=4))
        return "\n".join(f"{n}. {item}" for n, item in enumerate(items, 1))
    if kind == "quote":
        return "\n".join(f"> {line}" for line in draw(st.lists(sentence, min_size=1, max_size=3)))
    if kind == "code":
        language = draw(st.sampled_from(["", "python", "sh", "json", "html"]))
        lines = draw(st.lists(code_line, max_size=6))
        return "\n".join([f"```{language}", *lines, "```"])
    if kind == "table":
        cell = st.one_of(word, st.builds("`{}`".format, word), st.sampled_from(["<", "&", "*x*"]))
        width = draw(st.integers(1, 3))
        rows = draw(st.lists(st.lists(cell, min_size=width, max_size=width), min_size=2))
        lines = ["| " + " | ".join(row) + " |" for row in rows]
        lines.insert(1, "|" + "---|" * width)
        return "\n".join(lines)
    if kind == "lines":
        # A line ending in two spaces is a line break.
        return draw(sentence) + "  \n" + draw(sentence)
    return draw(sentence)


@st.composite
def markdown_bodies(draw):
    """A body as an editor writes it in the admin: blocks of Markdown, and the browser's
    CRLF line breaks or not."""
    body = "\n\n".join(draw(st.lists(markdown_block(), min_size=1, max_size=6)))
    return body.replace("\n", "\r\n") if draw(st.booleans()) else body


literal_line = soup.map(str.strip).filter(bool)


@st.composite
def plain_text_bodies(draw):
    """A body as the importer makes it from a file in the plain-text form: paragraphs,
    headings and bulleted lists of literal text."""
    blocks = []
    for kind in draw(st.lists(st.sampled_from(["paragraph", "bullets"]), min_size=1)):
        lines = draw(st.lists(literal_line, min_size=1, max_size=3))
        blocks.append("\n".join(f"• {line}" for line in lines) if kind == "bullets" else lines)
    blocks = [block if isinstance(block, str) else "\n".join(block) for block in blocks]
    text = "Title\n\n" + "\n\n".join(blocks) + "\n\n" + FOOTER + "\n"
    return parse(text).body


@st.composite
def awkward_bodies(draw):
    """Anything the model accepts: blank lines at either end, mixed line breaks, lone CRs,
    a last block that reads as the format's own sections."""
    pieces = draw(
        st.lists(
            st.one_of(
                markdown_block(),
                soup,
                st.sampled_from(
                    [
                        "Sources",
                        "• A title (Publisher)",
                        "Related on Skillo",
                        "See also: Another article.",
                        "Format: Markdown",
                        "Tags: a, b",
                        "Published date reflects the original event date (2024-07-24).",
                        " ",
                        "\t",
                        "",
                        "\u3000",
                    ]
                ),
            ),
            min_size=1,
            max_size=6,
        )
    )
    separators = st.sampled_from(["\n", "\n\n", "\r\n", "\r\n\r\n", "\n\n\n", "\r", "  \n"])
    body = "".join(piece + draw(separators) for piece in pieces)
    return draw(st.sampled_from(["", "\n", " ", "\r\n"])) + body.rstrip(
        draw(st.sampled_from(["", "\n", " \n"]))
    )


any_body = st.one_of(markdown_bodies(), plain_text_bodies(), awkward_bodies())
summaries = st.one_of(
    st.just(""),
    sentence,
    st.sampled_from(["Two lines\r\nof summary.", ' "Quoted" ', "Ends with a space "]),
)


def content_with(body, summary=None, full=False):
    content = ParsedArticle(
        title="Release notes roundup",
        body=body,
        event_date=date(2024, 5, 1),
        published_date=date(2024, 5, 2),
        facts_verified=date(2025, 1, 1),
        related=[ParsedLink("Another article", "another-article"), ParsedLink("Wanted")],
        sources=[ParsedSource("Notes", "Example", "https://example.org/notes")],
        tags=["python", "release"],
    )
    if full:
        content.slug = "release-notes"
        content.old_slugs = ["release-notes-roundup"]
        content.status = "published"
        content.published_at = timezone.make_aware(datetime(2024, 5, 2, 9, 41, 7, 120034))
        content.updated_at = timezone.make_aware(datetime(2025, 2, 3, 4, 5, 6))
        content.summary = summary
        content.id = 7
    return content


@given(body=any_body, summary=summaries, full=st.booleans())
@settings(deadline=None)
@example(body="## What happened\r\n\r\n[notes](https://example.org) `x`", summary="", full=True)
@example(body="Text.\n\nSources\n\n• A (B)", summary="", full=False)
@example(body="\n\nStarts with blank lines", summary="", full=False)
def test_any_body_reads_back_exactly_and_writes_the_same_file(body, summary, full):
    content = content_with(body, summary, full)
    text = write_exactly(content, header=full)
    parsed = parse(text)
    event(f"written as: {parsed.form}")
    assert parsed.content() == content.content()
    assert parsed.body == body
    assert write_exactly(parsed, header=full) == text


# A note as the model allows it: any text but control characters (line breaks aside).
note_text = st.text(
    alphabet=st.characters(blacklist_categories=["Cc", "Cs"]) | st.sampled_from(["\n", "|", '"']),
    min_size=1,
    max_size=40,
)
notes = st.lists(
    st.builds(
        ParsedCorrection,
        kind=st.sampled_from(["correction", "update"]),
        published_at=st.datetimes(
            min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC)
        ),
        note=note_text,
        id=st.none() | st.integers(1, 10**9),
    ),
    min_size=1,
    max_size=4,
)


@given(body=any_body, corrections=notes, full=st.booleans())
@settings(deadline=None)
@example(
    body="Text.",
    corrections=[
        ParsedCorrection("update", datetime(2026, 11, 30, 14, 5, tzinfo=UTC), " a | b, id 2 ")
    ],
    full=False,
)
def test_any_corrections_and_updates_read_back_exactly(body, corrections, full):
    content = content_with(body, "", full)
    content.corrections = corrections
    text = write_exactly(content, header=full)
    assert parse(text).content() == content.content()
    assert write_exactly(parse(text), header=full) == text


@given(body=markdown_bodies())
@settings(deadline=None)
def test_a_markdown_body_is_written_as_markdown_a_person_can_read(body):
    text = write_exactly(content_with(body))
    form = parse(text).form
    assert form != MARKDOWN_JSON
    assert "\r" not in text
    if form != PLAIN_TEXT:
        # The Markdown is in the file as the editor wrote it (line breaks aside).
        assert f"\n\n{body.replace('\r\n', '\n')}\n\n" in text


@given(body=plain_text_bodies())
@settings(deadline=None)
def test_a_body_imported_from_plain_text_is_exported_as_plain_text(body):
    text = write_exactly(content_with(body))
    assert "Format:" not in text.split("\n\n")[1]
    assert parse(text).body == body


# One client for every example: each new one loads the middleware again.
READER = Client()


def wipe():
    Article.objects.all().delete()
    RetiredSlug.objects.all().delete()
    Tag.objects.all().delete()
    Author.objects.all().delete()
    Image.objects.all().delete()


def make_article(body, summary, status, moment):
    """An article as the admin saves one: any body, a summary, a time of day."""
    other = Article.objects.create(
        title="Another article",
        body="Other.",
        event_date=date(2024, 4, 1),
        facts_verified=date(2025, 1, 1),
        status=Article.Status.PUBLISHED,
        published_at=moment - timedelta(days=3),
    )
    article = Article.objects.create(
        title="Release notes roundup",
        slug="release-notes",
        summary=summary,
        body=body,
        event_date=moment.date() - timedelta(days=1),
        published_at=moment,
        facts_verified=date(2025, 1, 1),
        status=status,
    )
    article.sources.create(title="Notes", publisher="Example", url="https://example.org/n")
    article.related_links.create(target=other, position=0)
    article.related_links.create(title="Wanted", position=1)
    article.tags.add("python", "release")
    article.corrections.create(kind="correction", note="It said 3.8.", published_at=moment)
    article.corrections.create(kind="update", note="Out now.\nTwo lines.", published_at=moment)
    return Article.objects.get(pk=article.pk)


def stored(article):
    article = Article.objects.get(pk=article.pk)
    return (
        article.pk, article.slug, article.title, article.summary, article.body,
        article.body_html, article.body_text, article.event_date, article.published_at,
        article.updated_at, article.facts_verified, article.status,
        [(s.title, s.publisher, s.url) for s in article.sources.all()],
        [(link.target_id, link.title) for link in article.related_links.all()],
        sorted(tag.name for tag in article.tags.all()),
        [(c.pk, c.kind, c.published_at, c.note) for c in article.corrections.all()],
    )  # fmt: skip


def export(article, *options):
    out = StringIO()
    call_command("export_articles", article.slug, *options, stdout=out)
    return out.getvalue()


def import_file(text, **options):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "article.txt"
        path.write_text(text, encoding="utf-8", newline="\n")
        return import_articles([path], **options)


@pytest.mark.django_db
@given(
    body=st.one_of(markdown_bodies(), awkward_bodies()).filter(bool),  # the body is required
    summary=summaries,
    status=st.sampled_from(list(Article.Status)),
    seconds=st.integers(0, 86399),
)
# Each example writes and reads a dozen rows, renders a page twice, exports four times
# and imports three (about 0.5 s on SQLite, 0.8 s on PostgreSQL, the most expensive test
# of both passes): fewer of them here. The properties of the format above run the same
# bodies by the hundred; these check what the database adds, on each database.
@settings(deadline=None, max_examples=20)
def test_export_import_export_through_the_database_changes_nothing(body, summary, status, seconds):
    wipe()
    moment = timezone.make_aware(datetime(2024, 5, 2)) + timedelta(seconds=seconds)
    article = make_article(body, summary, status, moment)
    page = READER.get(article.get_absolute_url())
    assert page.status_code == (200 if status == Article.Status.PUBLISHED else 404)
    before = stored(article)
    full, plain = export(article, "--full"), export(article)

    # Into the same database: nothing to change, no revision.
    assert import_file(full).unchanged == [article]
    assert import_file(plain).unchanged == [article]
    assert stored(article) == before
    assert not Version.objects.get_for_object(article).exists()

    # Into an empty one: the same article, body, rendered HTML and page, and the same file.
    other_pk = article.related_links.get(position=0).target_id
    wipe()
    Article.objects.create(
        pk=other_pk,
        title="Another article",
        body="Other.",
        event_date=date(2024, 4, 1),
        facts_verified=date(2025, 1, 1),
        status=Article.Status.PUBLISHED,
        published_at=moment - timedelta(days=3),
    )
    (restored,) = import_file(full, keep_ids=True).created
    assert stored(restored) == before
    assert render_markdown(restored.body) == before[5]
    again = READER.get(article.get_absolute_url())
    assert (again.status_code, again.content) == (page.status_code, page.content)
    assert export(restored, "--full") == full
    assert export(restored) == plain
    (version,) = Version.objects.get_for_object(restored)
    assert version.revision.comment.startswith("Imported from ")

    # The plain form alone (what an editor exports and edits) keeps the body too.
    Article.objects.filter(pk=restored.pk).delete()
    (plain_import,) = import_file(plain).created
    assert (plain_import.body, plain_import.body_html) == (body, before[5])
    assert export(plain_import) == plain


# A file describes the whole article: whatever optional parts it leaves out, the article
# has none of them after the import, and exporting it gives the file back.

OPTIONAL_PARTS = {
    "lead image": {"lead_image": None},
    "summary": {"summary": None},
    "search title": {"search_title": None},
    "meta description": {"meta_description": None},
    "social image": {"social_image": None},
    "authors": {"authors": None},
    "sources": {"sources": []},
    "related links": {"related": []},
    "tags": {"tags": []},
}


def make_article_with_every_part(body, summary):
    """An article with a lead image, a summary, search and social overrides, authors,
    sources, related links and tags."""
    article = ArticleFactory(
        title="Release notes roundup",
        body=body,
        summary=summary,
        lead_image=ImageFactory(),
        search_title="The week's release notes",
        meta_description=' "Quoted", with spaces at either end ',
        social_image=ImageFactory(seed=5),
        authors=["Ada Lovelace", "Grace Hopper"],
        tags=["python", "release"],
    )
    SourceFactory(article=article)
    RelatedLinkFactory(article=article, target=None, title="Wanted")
    return Article.objects.get(pk=article.pk)


@pytest.mark.django_db
@given(
    left_out=st.sets(st.sampled_from(list(OPTIONAL_PARTS)), min_size=1),
    body=plain_text_bodies(),
    summary=sentence,
)
# Each example makes an article of every part, imports and exports it: a few suffice, the
# format's own properties above try the bodies by the hundred.
@settings(deadline=None, max_examples=15)
@example(left_out={"lead image"}, body="Some news.", summary="A summary.")
def test_a_file_leaving_parts_out_imports_without_them_and_exports_back(left_out, body, summary):
    with tempfile.TemporaryDirectory() as media, override_settings(MEDIA_ROOT=media):
        wipe()
        article = make_article_with_every_part(body, summary)
        content = article_content(article)
        for part in left_out:
            for name, value in OPTIONAL_PARTS[part].items():
                setattr(content, name, value)
        text = write_exactly(content)
        import_file(text)
        assert export(article) == text
