import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from django.utils.html import strip_tags
from reversion.models import Version
from taggit.models import Tag

from news.models import Article, ArticleAuthor, RelatedLink, RetiredSlug, Source
from textfiles.importer import ImportFailed, import_articles
from textfiles.textformat import parse

from .conftest import DEMO_CONTENT, SHARED_ARTICLE, SHARED_SLUG
from .factories import (
    ArticleFactory,
    AuthorFactory,
    CorrectionFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)
from .test_admin import form_data
from .test_limits import post

pytestmark = pytest.mark.django_db

FOOTER = (
    "Published date reflects the original event date (2024-07-24). This article is original "
    "Skillo editorial written from the sources above; facts were verified in September 2026."
)


def write(folder, name, body="Some news.", title="A title", sources="• Notes (GitHub)", extra=""):
    path = Path(folder) / name
    path.write_text(f"{title}\n\n{body}\n\nSources\n\n{sources}\n\n{FOOTER}{extra}\n")
    return path


def export(slug):
    out = StringIO()
    call_command("export_articles", slug, stdout=out)
    return out.getvalue()


def database_state():
    return (
        list(Article.objects.values_list("slug", "title", "body", "updated_at").order_by("pk")),
        list(Source.objects.values_list("article_id", "title", "url").order_by("pk")),
        list(RelatedLink.objects.values_list("article_id", "title").order_by("pk")),
    )


def test_shared_article_round_trip_is_byte_for_byte():
    call_command("import_articles", str(SHARED_ARTICLE), stdout=StringIO())
    original = SHARED_ARTICLE.read_text(encoding="utf-8")
    assert export(SHARED_SLUG) == original.rstrip("\n") + "\n"


def test_backdated_import_publishes_on_the_event_date(shared_article):
    assert shared_article.status == Article.Status.PUBLISHED
    assert shared_article.published_date.isoformat() == "2024-07-24"
    assert shared_article.event_date.isoformat() == "2024-07-24"
    assert Article.objects.published().filter(pk=shared_article.pk).exists()


def test_importing_twice_changes_nothing():
    call_command("import_articles", str(SHARED_ARTICLE), stdout=StringIO())
    before = database_state()
    out = StringIO()
    call_command("import_articles", str(SHARED_ARTICLE), stdout=out)
    assert "0 created, 0 updated, 1 unchanged" in out.getvalue()
    assert database_state() == before


def test_import_updates_an_existing_article_by_slug(tmp_path):
    write(tmp_path, "a.txt", body="First version.")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    write(tmp_path, "a.txt", body="Second version.", sources="• Other notes (PyPI)")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    article = Article.objects.get()
    assert article.body == "Second version."
    assert [s.title for s in article.sources.all()] == ["Other notes"]


def test_import_reads_a_folder_of_articles(tmp_path):
    write(tmp_path, "a.txt", title="First")
    write(tmp_path, "b.txt", title="Second")
    (tmp_path / "notes.md").write_text("not an article")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    assert sorted(Article.objects.values_list("title", flat=True)) == ["First", "Second"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ({"sources": "• Notes (GitHub) <javascript:alert(1)>"}, "bad.txt:7: source url"),
        ({"sources": "• Notes (GitHub) <ftp://example.org/x>"}, "bad.txt:7: source url"),
        ({"sources": "• Notes without a publisher"}, "bad.txt:7: a source line"),
        ({"title": "x" * 201}, "bad.txt:1: title"),
        (
            {"body": "Text.\n\nRelated on Skillo\n\nSee also: A title."},
            "bad.txt:7: related link title: An article cannot relate to itself.",
        ),
        (
            {"body": "Text.\n\nRelated on Skillo\n\nSee also: " + "R" * 201 + "."},
            "bad.txt:7: related link title: Ensure this value has at most 200 characters",
        ),
        ({"extra": "\n\nTags: go, " + "t" * 150}, "bad.txt:11: tags: A tag can be at most 100"),
    ],
)
def test_a_bad_file_aborts_the_whole_import(tmp_path, content, expected):
    ArticleFactory(title="Already here")
    write(tmp_path, "a-good.txt", title="A good one")
    write(tmp_path, "bad.txt", **content)
    before = database_state()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_articles", str(tmp_path), stdout=StringIO(), stderr=err)
    assert expected in err.getvalue()
    assert database_state() == before


def test_an_unparsable_file_names_file_and_line(tmp_path):
    path = tmp_path / "broken.txt"
    path.write_text("Title\n\nBody.\n\nSources\n\n• Notes (GitHub)\n\nNo footer here.\n")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_articles", str(path), stderr=err)
    assert f"{path}:9: the footer must read" in err.getvalue()
    assert not Article.objects.exists()


def test_facts_verified_in_the_future_is_refused(tmp_path):
    path = write(tmp_path, "future.txt")
    path.write_text(path.read_text().replace("September 2026", "September 2099"))
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_articles", str(path), stderr=err)
    assert "future.txt:9: facts verified: The facts cannot have been verified" in err.getvalue()


def test_missing_path_is_an_error_not_a_crash(tmp_path):
    with pytest.raises(CommandError):
        call_command("import_articles", str(tmp_path / "nope.txt"), stderr=StringIO())


def test_paragraph_text_stays_literal_on_the_page_and_after_export(client, tmp_path):
    literal = "Use <label>, {{ x }}, [T](a), *args, db_default & friends."
    write(tmp_path, "lit.txt", body=f"What happened\n\n{literal}")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    article = Article.objects.get()
    body = article_body_html(client, article)
    assert "Use &lt;label&gt;, {{ x }}, [T](a), *args, db_default &amp; friends." in body
    assert "<label>" not in body
    assert literal in export(article.slug)


def test_export_to_a_folder_writes_one_file_per_article(tmp_path, shared_article):
    ArticleFactory(title="Drafted", draft=True)
    call_command("export_articles", "--output", str(tmp_path / "out"), stdout=StringIO())
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert names == ["drafted.txt", f"{SHARED_SLUG}.txt"]


def test_export_of_an_unknown_slug_is_an_error():
    with pytest.raises(CommandError, match="No article"):
        call_command("export_articles", "nope")


def test_exported_folder_reimports_unchanged(tmp_path):
    call_command("import_articles", "textfiles/demo_content", stdout=StringIO())
    call_command("export_articles", "--output", str(tmp_path), stdout=StringIO())
    out = StringIO()
    call_command("import_articles", str(tmp_path), stdout=out)
    assert re.search(r"0 created, 0 updated, \d+ unchanged", out.getvalue())


def test_shared_article_page_shows_every_part_in_order(client, shared_article):
    page = client.get(shared_article.get_absolute_url()).content.decode()
    # Four sections: a table of contents names them first, in their order.
    nav = page[page.index('<nav class="contents"') : page.index("</nav>", page.index("contents"))]
    assert " ".join(strip_tags(nav).split()) == (
        "Contents What happened Python 3.12 and custom operators Performance and distributed "
        "Other changes Why it mattered"
    )
    page = page.replace(nav, "")
    text = " ".join(strip_tags(page[page.index("<main") :]).split())
    parts = [
        "PyTorch 2.4 Released: Python 3.12 and a Custom Operator API",
        "What happened",
        "PyTorch 2.4 was released on July 24, 2024",
        "Python 3.12 and custom operators",
        "Performance and distributed",
        "Other changes",
        "Why it mattered",
        "targeted the large-scale distributed training",
        "Related on Skillo",
        "See also: PyTorch 2.1 and automatic dynamic shapes.",
        "Sources",
        "PyTorch 2.4 release notes (GitHub)",
        FOOTER,
    ]
    positions = [text.index(part) for part in parts]
    assert positions == sorted(positions)


def test_reimporting_an_export_keeps_drafts_as_drafts(tmp_path):
    draft = ArticleFactory(title="Still a draft", draft=True, published_at=timezone.now())
    call_command("export_articles", "--output", str(tmp_path), stdout=StringIO())
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    draft.refresh_from_db()
    assert draft.status == Article.Status.DRAFT
    assert not Article.objects.published().exists()


def test_import_finds_an_article_whose_slug_was_chosen_in_the_admin(tmp_path):
    article = ArticleFactory(title="A title", slug="editors-own-slug")
    write(tmp_path, "a.txt", body="Updated text.")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    article.refresh_from_db()
    assert Article.objects.count() == 1
    assert article.body == "Updated text."


def test_a_tag_too_long_for_its_column_is_refused_before_anything_is_written(tmp_path):
    # PostgreSQL refuses it only when the tag is written, after the article and the other
    # files' articles: the model's rule reports it first, as the admin does.
    write(tmp_path, "a-good.txt", title="A good one")
    path = write(tmp_path, "b-long-tag.txt", extra="\n\nTags: go, " + "t" * 150)
    with pytest.raises(ImportFailed) as failed:
        import_articles([tmp_path])
    assert failed.value.problems == [
        f"{path}:11: tags: A tag can be at most 100 characters long; “{'t' * 39}…” has 150."
    ]
    assert not Article.objects.exists() and not Tag.objects.exists()


# Issue 13: export then import loses nothing, and an import is a revision.

ADMIN_BODY = (
    "## What happened\n\n"
    "See the [release notes](https://example.org/notes) and run `pip install x`.\n\n"
    "```python\nimport x\n\nprint(x < 2)\n```"
).replace("\n", "\r\n")  # as a browser sends a textarea


@pytest.fixture
def editor_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client.force_login(user)
    return client


def article_body_html(client, article):
    page = client.get(article.get_absolute_url()).content.decode()
    start = page.index('<div class="article-body">')
    # Its own closing tag (templates/news/article_main.html): headings are <div>s too.
    return page[start : page.index("\n  </div>", start)]


def written_in_the_admin(editor_client):
    response = post(
        editor_client,
        form_data(
            title="Release notes roundup",
            slug="release-notes-roundup",
            body=ADMIN_BODY,
            sources=[{"position": "0", "title": "Notes", "publisher": "Example", "url": ""}],
        ),
    )
    assert response.status_code == 302
    return Article.objects.get(slug="release-notes-roundup")


def test_an_article_written_in_markdown_in_the_admin_survives_export_and_import(
    editor_client, tmp_path
):
    article = written_in_the_admin(editor_client)
    reader = Client()
    page = article_body_html(reader, article)
    assert '<a href="https://example.org/notes"' in page and "<code>pip install x</code>" in page
    # The fenced block names its language: highlighted, and still the code as written.
    start = page.index('<pre class="highlight" tabindex="0"><code>')
    code = strip_tags(page[start : page.index("</code></pre>", start)])
    assert code.replace("&lt;", "<") == "import x\n\nprint(x < 2)\n"
    text = export(article.slug)
    assert text.startswith(
        "Release notes roundup\n\nFormat: Markdown, CRLF line breaks\n"
        "Summary: Loop variables are per iteration.\n\n"
        "## What happened\n\nSee the [release notes](https://example.org/notes) and run "
        "`pip install x`.\n\n```python\nimport x\n\nprint(x < 2)\n```\n\nSources\n\n"
    )
    (tmp_path / "roundup.txt").write_text(text, encoding="utf-8")
    before = (article.body, article.body_html, article.version, article.updated_at)

    out = StringIO()
    call_command("import_articles", str(tmp_path), stdout=out)
    assert "0 created, 0 updated, 1 unchanged" in out.getvalue()
    article.refresh_from_db()
    assert (article.body, article.body_html, article.version, article.updated_at) == before

    # Into a database without it: the same stored body, page and file.
    article.delete()
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    restored = Article.objects.get()
    assert (restored.body, restored.body_html) == before[:2]
    assert article_body_html(reader, restored) == page
    assert export(restored.slug) == text


def test_an_import_that_changes_an_article_is_a_revision_that_can_be_rolled_back(tmp_path):
    path = write(tmp_path, "a.txt", body="First version.", extra="\n\nTags: go")
    call_command("import_articles", str(path), stdout=StringIO())
    article = Article.objects.get()
    (created,) = Version.objects.get_for_object(article)
    assert created.revision.comment == f"Imported from {path}"

    write(tmp_path, "a.txt", body="Second version.", sources="• Other notes (PyPI)")
    call_command("import_articles", str(path), stdout=StringIO())
    updated, first = Version.objects.get_for_object(article)
    assert updated.revision.comment == f"Imported from {path}"
    assert updated.field_dict["body"] == "Second version."
    # The revision holds the article with its sources and tags, as an admin save does.
    kept = {version.content_type.model for version in updated.revision.version_set.all()}
    assert kept == {"article", "source"}
    assert {v.content_type.model for v in first.revision.version_set.all()} == {
        "article",
        "source",
        "taggedarticle",
    }

    # Importing it again changes nothing and records nothing.
    call_command("import_articles", str(path), stdout=StringIO())
    assert Version.objects.get_for_object(article).count() == 2

    first.revision.revert(delete=True)
    article.refresh_from_db()
    assert article.body == "First version."
    assert [s.title for s in article.sources.all()] == ["Notes"]
    assert [t.name for t in article.tags.all()] == ["go"]


def full_file(folder, header, body="Some news.", name="a.txt"):
    return write(folder, name, body=f"{header}\n\n{body}")


def test_the_full_form_sets_status_summary_and_time_of_an_existing_article(tmp_path):
    article = ArticleFactory(title="A title", slug="a-title", summary="Old summary.")
    RetiredSlug.objects.create(slug="kept-address", article=article)
    full_file(
        tmp_path,
        "Format: plain text\nSlug: a-title\nOld slugs: first-address\nStatus: draft\n"
        "Published: 2024-07-24 18:30:00+02:00\nSummary: New summary.",
    )
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    article.refresh_from_db()
    assert (article.status, article.summary) == ("draft", "New summary.")
    assert article.published_at.isoformat() == "2024-07-24T16:30:00+00:00"
    # Old addresses are added, never taken away: a published address keeps working.
    assert sorted(article.retired_slugs.values_list("slug", flat=True)) == [
        "first-address",
        "kept-address",
    ]


def test_a_full_form_file_finds_its_article_by_an_old_slug(tmp_path):
    article = ArticleFactory(title="A title", slug="renamed")
    RetiredSlug.objects.create(slug="a-title", article=article)
    full_file(tmp_path, "Format: plain text\nSlug: a-title")
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    article.refresh_from_db()
    assert Article.objects.count() == 1
    assert article.slug == "a-title"
    assert list(article.retired_slugs.values_list("slug", flat=True)) == ["renamed"]


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("Format: plain text\nSlug: Not a slug!", "a.txt:4: slug: Enter a valid “slug”"),
        (
            "Format: plain text\nOld slugs: taken",
            "a.txt:4: old slugs: 'taken' is an address of another article, 'Taken'.",
        ),
        ("Format: plain text\nOld slugs: a-title", "a.txt:4: old slugs: 'a-title' is its own"),
        (
            'Format: plain text\nSummary: "a\\u001bb"',
            "a.txt:4: summary: Remove the invisible control character U+001B",
        ),
        ("Format: plain text\nStatus: sent", "a.txt:4: 'Status:' must be 'published'"),
    ],
)
def test_header_problems_name_file_and_line(tmp_path, header, expected):
    ArticleFactory(title="Taken", slug="taken")
    full_file(tmp_path, header)
    before = database_state()
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_articles", str(tmp_path), stdout=StringIO(), stderr=err)
    assert expected in err.getvalue()
    assert database_state() == before


def test_related_links_to_articles_keep_their_article(tmp_path):
    target = ArticleFactory(title="Go 1.22 ships", slug="go")
    hidden = ArticleFactory(title="Unpublished", slug="hidden", draft=True)
    article = ArticleFactory(title="A title")
    RelatedLinkFactory(article=article, target=target, position=0)
    RelatedLinkFactory(article=article, target=hidden, position=1)
    RelatedLinkFactory(article=article, target=None, title="Wanted", position=2)
    text = export(article.slug)
    assert (
        "See also: Go 1.22 ships </articles/go/>; Unpublished </articles/hidden/>; Wanted.\n"
    ) in text
    (tmp_path / "a.txt").write_text(text)
    article.related_links.all().delete()
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    links = [(link.target_id, link.title) for link in article.related_links.all()]
    assert links == [(target.pk, "Go 1.22 ships"), (hidden.pk, "Unpublished"), (None, "Wanted")]


def test_an_address_that_leads_nowhere_keeps_the_link_by_its_title(tmp_path):
    write(
        tmp_path,
        "a.txt",
        body="Text.\n\nRelated on Skillo\n\nSee also: Elsewhere </articles/not-here/>.",
    )
    call_command("import_articles", str(tmp_path), stdout=StringIO())
    (link,) = RelatedLink.objects.all()
    assert (link.target_id, link.title) == (None, "Elsewhere")


def test_export_refuses_an_article_it_cannot_write_exactly(tmp_path):
    article = ArticleFactory(title="Semicolons")
    RelatedLinkFactory(article=article, target=None, title="One; two")
    ArticleFactory(title="Fine")
    with pytest.raises(CommandError, match=r"Semicolons.*related links would read back as"):
        export(article.slug)
    err = StringIO()
    with pytest.raises(CommandError, match="1 could not be written exactly"):
        call_command("export_articles", "-o", str(tmp_path), stdout=StringIO(), stderr=err)
    assert "semicolons: " in err.getvalue()
    assert [p.name for p in tmp_path.iterdir()] == ["fine.txt"]


# A file describes the whole article: what it leaves out is not kept, except the notes.


def give_lead_image(article):
    article.lead_image = ImageFactory()
    article.save()


def give_authors(article):
    ArticleAuthor.objects.create(article=article, author=AuthorFactory(), position=0)


def give_summary(article):
    article.summary = "A summary the file does not have."
    article.save()


PARTS = {
    # part: (give it to the article, what the article then has of it)
    "lead image": (give_lead_image, lambda article: article.lead_image_id),
    "authors": (give_authors, lambda article: list(article.authorships.all())),
    "summary": (give_summary, lambda article: article.summary),
}


@pytest.mark.usefixtures("media_root")
@pytest.mark.parametrize("part", PARTS)
def test_a_part_the_file_leaves_out_is_removed_and_export_gives_the_file_back(tmp_path, part):
    path = write(tmp_path, "a.txt")
    import_articles([path])
    give, has = PARTS[part]
    give(Article.objects.get())
    import_articles([path])
    article = Article.objects.get()
    assert not has(article)
    assert export(article.slug) == path.read_text()


def every_part(tmp_path):
    """An article with every optional part, and a file of it with none of them."""
    path = tmp_path / "bare.txt"
    path.write_text(f"A title\n\nSome news.\n\n{FOOTER}\n")
    article = ArticleFactory(
        title="A title", illustrated=True, authors=["Ada Lovelace"], tags=["go"]
    )
    SourceFactory(article=article)
    RelatedLinkFactory(article=article, target=None, title="Wanted")
    return article, path


@pytest.mark.usefixtures("media_root")
def test_a_file_without_any_optional_part_exports_back_byte_for_byte(tmp_path):
    article, path = every_part(tmp_path)
    import_articles([path])
    assert export(article.slug) == path.read_text()


@pytest.mark.usefixtures("media_root")
def test_the_import_names_every_part_it_removed(tmp_path):
    article, path = every_part(tmp_path)
    out = StringIO()
    call_command("import_articles", str(path), stdout=out)
    assert (
        f"{article.slug}: removed its lead image, summary, authors, sources, related links "
        "and topics: the file has none.\n"
    ) in out.getvalue()
    assert "0 created, 1 updated, 0 unchanged" in out.getvalue()


def test_the_import_says_it_kept_the_notes_the_file_leaves_out(tmp_path):
    path = write(tmp_path, "a.txt")
    import_articles([path])
    article = Article.objects.get()
    CorrectionFactory(article=article, note="It said 3.8; it was 3.7.")
    out = StringIO()
    call_command("import_articles", str(path), stdout=out)
    assert (
        f"{article.slug}: kept 1 correction(s) or update(s) the file leaves out; an import "
        "never removes one.\n"
    ) in out.getvalue()
    assert [c.note for c in article.corrections.all()] == ["It said 3.8; it was 3.7."]


@pytest.mark.usefixtures("media_root")
def test_an_illustrated_demo_article_updated_from_its_file_gives_the_file_back():
    call_command("load_demo", stdout=StringIO())
    article = Article.objects.filter(lead_image__isnull=False, authorships__isnull=True).first()
    (path,) = [
        path
        for path in sorted(DEMO_CONTENT.glob("*.txt"))
        if parse(path.read_text(encoding="utf-8")).title == article.title
    ]
    call_command("import_articles", str(path), stdout=StringIO())
    assert export(article.slug) == path.read_text(encoding="utf-8").rstrip("\n") + "\n"
