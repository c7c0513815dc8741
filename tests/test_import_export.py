import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from django.utils.html import strip_tags
from taggit.models import Tag

from news.importer import ImportFailed, import_articles
from news.models import Article, RelatedLink, Source

from .conftest import SHARED_ARTICLE, SHARED_SLUG
from .factories import ArticleFactory

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
    page = client.get(article.get_absolute_url()).content.decode()
    body = page[
        page.index('<div class="article-body">') : page.index(
            "</div>", page.index('<div class="article-body">')
        )
    ]
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
    call_command("import_articles", "news/demo_content", stdout=StringIO())
    call_command("export_articles", "--output", str(tmp_path), stdout=StringIO())
    out = StringIO()
    call_command("import_articles", str(tmp_path), stdout=out)
    assert re.search(r"0 created, 0 updated, \d+ unchanged", out.getvalue())


def test_shared_article_page_shows_every_part_in_order(client, shared_article):
    page = client.get(shared_article.get_absolute_url()).content.decode()
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
