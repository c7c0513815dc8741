"""The whole-site backup: export_site writes every article (drafts and scheduled ones too)
with every field and its corrections and updates, the topics with their addresses, the
addresses of deleted articles and the source URLs' checks and archived copies;
import_site into an empty database gives back every public page, byte for byte.

The pages are found by crawling the site from its home page, sitemaps and feeds (plus
the addresses nothing links to: drafts, scheduled articles, old and deleted addresses),
and compared with status, redirect target and content. The restore keeps the articles'
ids, so ids need no masking, and articles published at the same moment stay in the same
order. Only the order of each article's tags in lists and feeds is normalised (see
TAG_RUNS): the pages themselves do not define it.
"""

import difflib
import json
import re
import shutil
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone
from reversion.models import Version

from embeds.models import Embed
from images.models import Image
from news.models import Article, RetiredSlug, Tag
from people.models import Author, AuthorLink
from releases.models import WatchedProject
from sources.models import SourceURL, State
from textfiles.records import PARTS

from .factories import (
    ArticleFactory,
    CorrectionFactory,
    ImageFactory,
    RelatedLinkFactory,
    SourceFactory,
)
from .test_admin import form_data
from .test_limits import post

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]

# What an editor types in the admin; the browser sends its line breaks as CRLF.
ADMIN_BODY = (
    "## What happened\n\n"
    'Read the [release notes](https://example.org/notes "Notes") and run `pip install x`;'
    " *emphasis*, **strong**, a backslash \\ and a literal \\*star\\*.\n\n"
    "```python\nimport x\n\n\nprint(x < 2 & {{ y }})\n```\n\n"
    "> A quote with <b>markup</b> & an ampersand.\n\n"
    "| Version | Date |\n|---|---:|\n| 1.0 | 2024 |\n\n"
    "1. one\n2. two\n\n"
    "![A chart](https://example.org/chart.png)"
).replace("\n", "\r\n")
# Lists of articles show each one's tags in no defined order (taggit's prefetch query,
# in ArticleQuerySet.for_list(), search and the feeds, has no ORDER BY): on PostgreSQL the
# same rows can come back in another order once they are written again. Those runs of
# tags are compared sorted; nothing else is masked.
TAG_RUNS = [
    re.compile(r'(?<=<ul class="tags" aria-label="Tags">)((?:<li>.*?</li>)+)(?=</ul>)'),
    re.compile(r"((?:<category>[^<]*</category>)+)"),
    re.compile(r'((?:<category term="[^"]*"/>)+)'),
]
TAG_ITEM = re.compile(r"<li>.*?</li>|<category>[^<]*</category>|<category term=\"[^\"]*\"/>")
# The roundup's public notes, and the checks of two source URLs of the demo articles.
CORRECTED_AT = datetime(2024, 5, 3, 8, 15, 1, 500000, tzinfo=UTC)
UPDATED_AT = datetime(2024, 5, 4, 17, 0, tzinfo=UTC)
GONE_URL = "https://docs.djangoproject.com/en/5.1/releases/5.1/"
ARCHIVE_URL = "https://web.archive.org/web/2024/https://docs.djangoproject.com/en/5.1/"
FAILING_URL = "https://go.dev/doc/go1.22"
CHECKED_AT = datetime(2026, 11, 2, 3, 4, 5, 600000, tzinfo=UTC)
VIDEO_URL = "https://video.example/watch/42"
PLAYER_URL = "https://video.example/embed/42"
LINK_RE = re.compile(r'(?:href|src)="(/[^"#]*)"|<loc>https?://[^/<]+(/[^<]*)</loc>')


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def build_site(editor):
    """The demo site, and everything else a site holds: an article written in the admin
    in Markdown (with CRLF line breaks, a summary, a link to another article, one to a
    draft, one by title), whose slug was then changed; a topic whose address an editor
    chose; a deleted article; two articles published at the same moment; a body only the
    JSON form holds; authors (the demo's, one with a bio of two lines, a link and an
    account, one without articles), and a byline of two chosen in the admin; a
    correction (on /corrections/ and its feed) and an update of two lines; a dead source
    with an archived copy readers see, and a failing one an editor ignores for now."""
    call_command("load_demo", stdout=StringIO())
    photo = ImageFactory(width=1600, height=900, caption="A caption", licence="cc-by-4.0")
    # Share cards show another picture than the page's lead image.
    card_photo = ImageFactory(width=1400, height=800, seed=7, alt_text="A card of its own")
    # In the library, shown nowhere; a portrait.
    ImageFactory(width=800, height=600, alt_text="", decorative=True, focal_x=0.2)
    portrait = ImageFactory(width=600, height=800, alt_text="Ada at her desk")
    draft = Article.objects.get(status=Article.Status.DRAFT)
    django = Article.objects.get(slug__startswith="django-5-1")
    ada = Author.objects.create(
        slug="ada",
        name='Ada "Quotes" Writer',
        role="Guest writer",
        bio="Line one & more.\nLine two.",
        user=get_user_model().objects.create_user("ada"),
        photo=portrait,
    )
    AuthorLink.objects.create(author=ada, label="Mastodon", url="https://mastodon.example/@ada")
    Author.objects.create(slug="quiet", name="Quiet Author")
    demo_writer = Author.objects.get(slug="skillo-demo-writer")
    response = post(
        editor,
        form_data(
            title="Release notes roundup",
            slug="release-notes-roundup",
            summary="What shipped this week,\r\nin brief.",
            body=ADMIN_BODY,
            lead_image=str(photo.pk),
            search_title="Release notes: the week's roundup",
            meta_description='What shipped, "in brief" & in order.',
            social_image=str(card_photo.pk),
            tags="python, Machine Learning Ops",
            published_at_0="2024-05-02",
            published_at_1="09:41:07",
            event_date="2024-05-01",
            sources=[{"position": "0", "title": "Notes", "publisher": "Example", "url": ""}],
            links=[
                {"position": "0", "target": str(django.pk), "title": ""},
                {"position": "1", "target": str(draft.pk), "title": ""},
                {"position": "2", "target": "", "title": "An article not written yet"},
            ],
            authors=[
                {"position": "0", "author": str(ada.pk)},
                {"position": "1", "author": str(demo_writer.pk)},
            ],
        ),
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    article = Article.objects.get(slug="release-notes-roundup")
    assert "\r\n" in article.body and "\r\n" in article.summary
    article.slug = "roundup"
    article.save()
    Tag.objects.filter(name="Machine Learning Ops").update(
        slug="mlops", intro="Running models in production.\n\nTools & practice.", header_position=2
    )
    Tag.objects.filter(name="python").update(header_position=1)
    # Two articles published at the same moment: listed by id.
    moment = timezone.now().replace(microsecond=0) - timedelta(days=30)
    for n in (1, 2):
        twin = ArticleFactory(
            title=f"Twin story {n}",
            published_at=moment,
            event_date=moment.date(),
            body=f"Twin {n}.\n",
            tags=["twins"],
        )
        SourceFactory(article=twin)
    RelatedLinkFactory(article=twin, target=django, position=0)
    ArticleFactory(title="Ends like a file", body="Text.\n\nSources\n\n• A (B)", tags=["twins"])
    # A link card readers see (its page never fetched again), and one being fetched.
    Embed.objects.create(
        url=VIDEO_URL, state=Embed.State.READY, kind="video", provider="Example Video",
        title='A talk on "caches"', author="Ada", text="Ten minutes,\nwith slides.",
        thumbnail=ImageFactory(width=640, height=360, seed=9), player_url=PLAYER_URL,
        player_width=640, player_height=360, fetched_at=CHECKED_AT,
    )  # fmt: skip
    ArticleFactory(
        title="A talk worth watching", body=f"Watch it.\n\n{VIDEO_URL}\n", tags=["twins"]
    )
    ArticleFactory(title="Soon deleted").delete()
    CorrectionFactory(article=article, published_at=CORRECTED_AT, note="It said 4.0 | it was 4.1.")
    CorrectionFactory(
        article=article, kind="update", published_at=UPDATED_AT, note="Now out.\nEverywhere."
    )
    SourceURL.objects.create(
        url=GONE_URL, state=State.GONE, last_status=404, last_checked_at=CHECKED_AT,
        last_ok_at=CHECKED_AT - timedelta(days=30), failures=3,
        next_check_at=CHECKED_AT + timedelta(hours=4), archive_url=ARCHIVE_URL,
    )  # fmt: skip
    SourceURL.objects.create(
        url=FAILING_URL, state=State.FAILING, last_error="timed out: no answer in 10 s ",
        last_checked_at=CHECKED_AT, failures=2, ignored_until=CHECKED_AT + timedelta(days=90),
    )  # fmt: skip
    return article


def crawl(client, extra=()):
    """Every page reachable from the home page, the sitemaps, feeds and ``extra``:
    {url: (status, Location, content)}."""
    queue = ["/", "/sitemap.xml", "/sitemap-news.xml", "/feed/", "/feed/atom/", "/robots.txt"]
    queue += ["/search/?q=release", "/search/?q=notes", *extra]
    pages = {}
    while queue:
        url = queue.pop(0)
        if url in pages or url.startswith(("/admin/", "/static/")):
            continue
        response = client.get(url)
        if response.streaming:  # a static file
            pages[url] = (response.status_code, None, b"".join(response.streaming_content))
            continue
        content = response.content
        pages[url] = (response.status_code, response.get("Location"), sort_tags(content))
        if response.status_code == 200:
            for match in LINK_RE.finditer(content.decode()):
                link = (match[1] or match[2]).replace("&amp;", "&")
                if not urlsplit(link).netloc:
                    queue.append(link)
    return pages


# A form's CSRF token is new in every answer (the newsletter's sign-up): not content.
CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]*"')


def sort_tags(content):
    text = CSRF_TOKEN.sub(r'\1-"', content.decode())
    for run in TAG_RUNS:
        text = run.sub(lambda match: "".join(sorted(TAG_ITEM.findall(match[1]))), text)
    return text.encode()


def unlinked_addresses():
    """Addresses no public page links to: drafts, scheduled articles, old addresses."""
    return [
        *(article.get_absolute_url() for article in Article.objects.all()),
        *(f"/articles/{retired.slug}/" for retired in RetiredSlug.objects.all()),
    ]


def first_difference(before, after, urls):
    url = urls[0]
    lines = difflib.unified_diff(
        before[url][2].decode().splitlines(), after[url][2].decode().splitlines(), lineterm=""
    )
    return f"{len(urls)} page(s) differ, first {url} {before[url][:2]} {after[url][:2]}:\n" + (
        "\n".join(list(lines)[:40])
    )


def wipe():
    """An empty database and media folder, as far as the site is concerned."""
    for model in reversed([model for part in PARTS if part.file for model in part.models()]):
        model._base_manager.all().delete()
    Article.objects.all().delete()
    RetiredSlug.objects.all().delete()
    Tag.objects.all().delete()
    Author.objects.all().delete()
    Embed.objects.all().delete()
    Image.objects.all().delete()
    SourceURL.objects.all().delete()
    WatchedProject.objects.all().delete()
    shutil.rmtree(settings.MEDIA_ROOT, ignore_errors=True)


def test_a_restored_backup_gives_every_public_page_back(editor, tmp_path):
    build_site(editor)
    reader = Client()
    before = crawl(reader, unlinked_addresses())
    statuses = [status for status, _, _ in before.values()]
    # The crawl saw every kind of page: articles, topics, archives, feeds, sitemaps, the
    # redirect from the old slug, the deleted article and the hidden draft.
    assert {200, 301, 404, 410} <= set(statuses), statuses
    for piece in (
        "/tags/mlops/", "/archive/2024/", "/tags/twins/feed/", "/sitemaps/", "/authors/ada/",
        "/authors/quiet/", "/authors/ada/feed/atom/", "/sitemaps/authors.xml",
    ):  # fmt: skip
        assert any(url.startswith(piece) for url in before), piece
    assert before["/articles/release-notes-roundup/"][:2] == (301, "/articles/roundup/")
    assert before["/articles/soon-deleted/"][0] == 410
    # The notes and the archived copy are on the pages compared.
    assert b"It said 4.0 | it was 4.1." in before["/corrections/feed/"][2]
    assert b"Everywhere." in before["/articles/roundup/"][2]
    django = Article.objects.get(slug__startswith="django-5-1").get_absolute_url()
    assert f'class="archived" href="{ARCHIVE_URL}"'.encode() in before[django][2]
    assert len(before) > 60

    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    count = Article.objects.count()
    wipe()
    assert reader.get("/articles/roundup/").status_code == 404
    out = StringIO()
    call_command("import_site", str(tmp_path / "backup"), stdout=out)
    assert f"Restored {count} article(s), 16 topic(s) and 1 address(es)" in out.getvalue()
    assert "with 4 author(s) and 2 checked source URL(s)" in out.getvalue()

    after = crawl(reader, unlinked_addresses())
    assert sorted(after) == sorted(before)
    different = [url for url in before if after[url] != before[url]]
    assert different == [], first_difference(before, after, different)


def test_the_restored_site_exports_the_same_backup(editor, tmp_path):
    build_site(editor)
    call_command("export_site", str(tmp_path / "first"), stdout=StringIO())
    wipe()
    call_command("import_site", str(tmp_path / "first"), stdout=StringIO())
    call_command("export_site", str(tmp_path / "second"), stdout=StringIO())
    first, second = (
        sorted((tmp_path / "first").rglob("*")),
        sorted((tmp_path / "second").rglob("*")),
    )
    assert [p.relative_to(tmp_path / "first") for p in first] == [
        p.relative_to(tmp_path / "second") for p in second
    ]
    for a, b in zip(first, second, strict=True):
        assert a.is_dir() or a.read_bytes() == b.read_bytes(), a
    # New articles after a restore get ids of their own (PostgreSQL's sequence moved on).
    highest = max(Article.objects.values_list("pk", flat=True))
    assert ArticleFactory().pk > highest


def test_the_backup_holds_every_field_in_readable_lines(editor, tmp_path):
    article = build_site(editor)
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    folder = tmp_path / "backup"
    assert sorted(p.name for p in folder.iterdir()) == [
        "articles", "authors.txt", "embeds.txt", "front.json", "gone.txt", "images",
        "live", "members.json", "newsletters.jsonl", "releases.json", "sources.txt",
        "tags.txt",
    ]  # fmt: skip
    assert len(list((folder / "articles").iterdir())) == Article.objects.count() == 22
    text = (folder / "articles" / "roundup.txt").read_text(encoding="utf-8")
    published = timezone.localtime(article.published_at).isoformat(sep=" ")
    correction, update = article.corrections.all()
    assert text.startswith(
        "Release notes roundup\n\n"
        "Format: Markdown, CRLF line breaks\n"
        "Slug: roundup\n"
        "Old slugs: release-notes-roundup\n"
        "Status: published\n"
        f"Published: {published}\n"
        f"Updated: {timezone.localtime(article.updated_at).isoformat(sep=' ')}\n"
        'Summary: "What shipped this week,\\r\\nin brief."\n'
        f"Lead image: {article.lead_image.sha256[:16]}\n"
        "Search title: Release notes: the week's roundup\n"
        'Meta description: What shipped, "in brief" & in order.\n'
        f"Social image: {article.social_image.sha256[:16]}\n"
        "Authors: ada, skillo-demo-writer\n"
        f"Correction: 2024-05-03 08:15:01.500000+00:00, id {correction.pk} | "
        "It said 4.0 | it was 4.1.\n"
        f'Update: 2024-05-04 17:00:00+00:00, id {update.pk} | "Now out.\\nEverywhere."\n'
        f"Id: {article.pk}\n\n"
        '## What happened\n\nRead the [release notes](https://example.org/notes "Notes")'
    )
    assert "\r" not in text
    card = Embed.objects.get()
    assert (
        (folder / "embeds.txt")
        .read_text(encoding="utf-8")
        .endswith(
            f"\nURL: {VIDEO_URL}\nKind: video\nProvider: Example Video\n"
            'Title: A talk on "caches"\nAuthor: Ada\nText: "Ten minutes,\\nwith slides."\n'
            f"Thumbnail: {card.thumbnail.key}\nPlayer: {PLAYER_URL}\nPlayer size: 640 x 360\n"
            f"Fetched: {timezone.localtime(CHECKED_AT).isoformat(sep=' ')}\n"
        )
    )
    django = Article.objects.get(slug__startswith="django-5-1")
    draft = Article.objects.get(status=Article.Status.DRAFT)
    assert (
        f"See also: {django.title} </articles/{django.slug}/>; {draft.title} "
        f"</articles/{draft.slug}/>; An article not written yet.\n"
    ) in text
    scheduled = Article.objects.scheduled().get()
    scheduled_text = (folder / "articles" / f"{scheduled.slug}.txt").read_text()
    assert "\nStatus: published\n" in scheduled_text
    assert f"\nPublished: {timezone.localtime(scheduled.published_at).isoformat(sep=' ')}\n" in (
        scheduled_text
    )
    assert "\nStatus: draft\n" in (folder / "articles" / f"{draft.slug}.txt").read_text()
    assert "mlops: Machine Learning Ops\n" in (folder / "tags.txt").read_text()
    assert (folder / "gone.txt").read_text().endswith("\nsoon-deleted\n")
    portrait = Author.objects.get(slug="ada").photo
    assert f"\nPhoto: {portrait.key}\n" in (folder / "authors.txt").read_text()
    with portrait.file.open("rb") as original:
        assert (folder / "images" / f"{portrait.key}.jpg").read_bytes() == original.read()
    assert (
        (folder / "sources.txt")
        .read_text()
        .endswith(
            "\nURL: https://docs.djangoproject.com/en/5.1/releases/5.1/\n"
            "State: gone\n"
            "Status: 404\n"
            "Checked: 2026-11-02 03:04:05.600000+00:00\n"
            "Worked: 2026-10-03 03:04:05.600000+00:00\n"
            "Failures: 3\n"
            "Next check: 2026-11-02 07:04:05.600000+00:00\n"
            f"Archived copy: {ARCHIVE_URL}\n"
            "\n"
            "URL: https://go.dev/doc/go1.22\n"
            "State: failing\n"
            'Error: "timed out: no answer in 10 s "\n'
            "Checked: 2026-11-02 03:04:05.600000+00:00\n"
            "Failures: 2\n"
            "Ignored until: 2027-01-31 03:04:05.600000+00:00\n"
        )
    )
    ends_like_a_file = (folder / "articles" / "ends-like-a-file.txt").read_text()
    assert "\nFormat: Markdown, as a JSON string\n" in ends_like_a_file
    assert '\n"Text.\\n\\nSources\\n\\n• A (B)"\n' in ends_like_a_file


def test_a_restore_records_a_revision_per_article(editor, tmp_path):
    build_site(editor)
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    article = Article.objects.get(slug="roundup")
    # The newest; the ones the admin recorded before the wipe have the same id.
    version = Version.objects.get_for_object(article).first()
    path = tmp_path / "backup" / "articles" / "roundup.txt"
    assert version.revision.comment == f"Imported from {path}"
    # sources, links, tags, authors, and the notes it added
    assert version.revision.version_set.count() == 1 + 1 + 3 + 2 + 2 + 2


def test_export_site_refuses_a_folder_with_files(tmp_path):
    ArticleFactory()
    (tmp_path / "old.txt").write_text("an earlier backup")
    with pytest.raises(CommandError, match="not an empty folder"):
        call_command("export_site", str(tmp_path), stdout=StringIO())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.txt"]


def test_export_site_writes_nothing_when_an_article_cannot_be_written_exactly(tmp_path):
    article = ArticleFactory(title="Semicolons")
    RelatedLinkFactory(article=article, target=None, title="One; two")
    err = StringIO()
    with pytest.raises(CommandError, match="no backup was made"):
        call_command("export_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert "related links would read back as" in err.getvalue()
    assert list(tmp_path.iterdir()) == []


def test_import_site_refuses_a_database_with_articles(tmp_path):
    ArticleFactory(title="First")
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert "restored into an empty one" in err.getvalue()
    assert Article.objects.count() == 1


def test_import_articles_points_a_backup_to_import_site(tmp_path):
    ArticleFactory()
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_articles", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert "a whole-site backup; restore it into an empty database with import_site" in (
        err.getvalue()
    )


def test_a_bad_topic_line_names_file_and_line_and_restores_nothing(tmp_path):
    ArticleFactory(tags=["go"])
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    tags = tmp_path / "backup" / "tags.txt"
    tags.write_text(tags.read_text() + "not a topic line\n")
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert f"{tags}:4: a topic line must read 'ID SLUG: NAME'" in err.getvalue()
    assert not Article.objects.exists() and not Tag.objects.exists()


def test_a_backup_made_with_several_leads_restores_the_one_readers_saw(tmp_path):
    from news.models import FrontPin
    from textfiles.frontpage import restore_front

    for slug in ["older", "shown", "ran-out", "draft"]:
        ArticleFactory(slug=slug, draft=slug == "draft")
    pins = [
        {"article": "older", "lead": True, "position": 0, "until": None},
        {"article": "shown", "lead": True, "position": 0, "until": None},  # pinned later
        {"article": "ran-out", "lead": True, "position": 0, "until": "2024-01-01T00:00Z"},
        {"article": "draft", "lead": True, "position": 0, "until": None},
    ]
    front = tmp_path / "front.json"
    front.write_text(json.dumps({"pins": pins}), encoding="utf-8")
    assert restore_front(front) == []
    restored = {pin.article.slug: pin.lead for pin in FrontPin.objects.select_related("article")}
    assert restored == {"older": False, "shown": True, "ran-out": False, "draft": False}


def test_a_restored_article_keeps_its_published_time_of_day(tmp_path):
    moment = timezone.make_aware(datetime(2024, 5, 2, 9, 41, 7, 120034))
    article = ArticleFactory(published_at=moment, event_date=date(2024, 5, 1), summary="Short.")
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    restored = Article.objects.get()
    assert (restored.pk, restored.slug, restored.published_at, restored.summary) == (
        article.pk,
        article.slug,
        moment,
        "Short.",
    )


def test_two_files_with_one_id_restore_both_without_overwriting(tmp_path):
    article = ArticleFactory(title="First")
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    articles = tmp_path / "backup" / "articles"
    copy = (articles / "first.txt").read_text().replace("First", "Second")
    (articles / "second.txt").write_text(copy.replace("Slug: first", "Slug: second"))
    wipe()
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    first, second = Article.objects.order_by("pk")
    assert (first.pk, first.title, second.title) == (article.pk, "First", "Second")


def sources_backup(tmp_path, *lines):
    """A backup of one article citing a checked URL, with ``lines`` added to sources.txt."""
    article = ArticleFactory()
    SourceFactory(article=article, url=GONE_URL)
    SourceURL.objects.create(url=GONE_URL, state=State.GONE, archive_url=ARCHIVE_URL)
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    path = tmp_path / "backup" / "sources.txt"
    path.write_text(path.read_text() + "".join(f"{line}\n" for line in lines))
    return path


def test_a_restore_gives_readers_the_archived_copy_back(tmp_path):
    sources_backup(tmp_path)
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    assert SourceURL.objects.get().archive_url == ARCHIVE_URL
    page = Client().get(Article.objects.get().get_absolute_url()).content.decode()
    assert f'class="archived" href="{ARCHIVE_URL}"' in page


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["", "URL: https://example.org/a", "Failures: many"], ":14: 'Failures:' must be a whole"),
        (["", "URL: https://example.org/a", "Colour: red"], ":14: 'Colour: red' is not a source"),
        (["", "URL: https://example.org/a", "State: lost"], ":13: state: Value 'lost' is not"),
        (["", "URL: not a url"], ":13: URL: Enter a valid URL."),
        (["", "Archived copy: https://example.org/a"], ":13: a source URL's block needs a 'URL:'"),
        (["", f"URL: {GONE_URL}"], ":13: this URL is also the block at line 9."),
    ],
)
def test_a_bad_source_url_line_names_file_and_line_and_restores_nothing(tmp_path, lines, expected):
    path = sources_backup(tmp_path, *lines)
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=err)
    assert f"{path}{expected}" in err.getvalue()
    assert not Article.objects.exists() and not SourceURL.objects.exists()


def test_import_site_refuses_a_database_with_source_checks(tmp_path):
    sources_backup(tmp_path)
    SourceURL.objects.create(url="https://example.org/checked")
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=StringIO())
    assert not Article.objects.exists()


def test_a_restore_that_fails_after_the_pictures_leaves_none_of_their_files(tmp_path):
    ArticleFactory(lead_image=ImageFactory(), title="Illustrated")
    ImageFactory()
    call_command("export_site", str(tmp_path / "backup"), stdout=StringIO())
    wipe()
    # The pictures are restored first; this article then fails, and nothing is kept.
    path = tmp_path / "backup" / "articles" / "illustrated.txt"
    path.write_text(path.read_text().replace("Illustrated", "x" * 201, 1))
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=StringIO())
    assert not Image.objects.exists()
    media = Path(settings.MEDIA_ROOT)
    assert [p for p in media.rglob("*") if p.is_file()] == []
