import contextlib
import fcntl
import glob
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.utils import timezone

from embeds.models import Embed
from live.textformat import BACKUP_LIVE
from live.textformat import write_folder as write_live
from news.models import Article, RetiredSlug, Tag
from people.models import Author
from sources.models import SourceURL
from textfiles.frontpage import BACKUP_FRONT, write_front
from textfiles.importer import (
    BACKUP_ARTICLES,
    BACKUP_AUTHORS,
    BACKUP_EMBEDS,
    BACKUP_GONE,
    BACKUP_SOURCES,
    BACKUP_TAGS,
)
from textfiles.library import write_library
from textfiles.records import left_behind
from textfiles.signals import site_exporting
from textfiles.textformat import (
    ExportError,
    ParsedAuthor,
    ParsedEmbed,
    ParsedSourceURL,
    format_article,
    format_authors,
    format_embeds,
    format_gone,
    format_source_urls,
    format_tags,
)


@contextmanager
def snapshot():
    """Read the whole site as it is at one moment, while editors keep saving."""
    if connection.in_atomic_block:
        # Already inside a transaction (a test, a caller's own): read what it sees.
        yield
    elif connection.vendor == "postgresql":
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            yield
    elif connection.vendor == "sqlite":
        # transaction.atomic() would take the write lock (BEGIN IMMEDIATE, see settings)
        # for the whole export; a deferred transaction only reads, from one snapshot of
        # the write-ahead log, and keeps no editor waiting.
        connection.ensure_connection()
        with connection.cursor() as cursor:
            cursor.execute("BEGIN DEFERRED")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("ROLLBACK")
    else:
        yield


# Beside the folder an export is writing, .FOLDER-XXXXXXXX, its lock file
# .FOLDER-XXXXXXXX.unfinished, held (flock) while the export runs.
UNFINISHED = ".unfinished"


@contextlib.contextmanager
def work_folder(folder):
    """A new folder beside ``folder`` to write the backup in, renamed to ``folder`` once
    written, so that a backup folder that exists is complete. Its lock file is made
    first and removed last, so a run killed at any point leaves the lock file, and the
    next export removes what it left (remove_unfinished)."""
    parent = folder.absolute().parent
    handle, name = tempfile.mkstemp(prefix=f".{folder.name}-", suffix=UNFINISHED, dir=parent)
    lock = Path(name)
    work = lock.with_name(lock.name.removesuffix(UNFINISHED))
    with os.fdopen(handle, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        try:
            # Its owner's only: it holds members' addresses, the fediverse's private keys
            # and the webhooks' secrets.
            work.mkdir(mode=0o700)
            yield work
            if folder.exists():
                folder.rmdir()
            work.rename(folder)
        finally:
            shutil.rmtree(work, ignore_errors=True)
            # Removed while still held: whoever takes the lock next finds no file.
            lock.unlink(missing_ok=True)


def remove_unfinished(folder):
    """Remove what exports into ``folder`` that were killed left beside it: their work
    folders and lock files, but none an export still holds. Return how many."""
    parent = folder.absolute().parent
    prefix, removed = f".{folder.name}-", 0
    for lock in parent.glob(f"{glob.escape(prefix)}*{UNFINISHED}"):
        if "-" in lock.name[len(prefix) : -len(UNFINISHED)]:
            continue  # an export into another folder, FOLDER-SOMETHING (mkstemp has no "-")
        try:
            held = lock.open("r")
        except FileNotFoundError:  # it finished meanwhile
            continue
        with held:
            try:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:  # an export is writing it
                continue
            try:
                if os.stat(lock).st_ino != os.fstat(held.fileno()).st_ino:
                    continue
            except FileNotFoundError:  # it finished between the open and the lock
                continue
            shutil.rmtree(lock.with_name(lock.name.removesuffix(UNFINISHED)), ignore_errors=True)
            lock.unlink()
            removed += 1
    return removed


class Command(BaseCommand):
    help = (
        "Back up the whole site into a new FOLDER: every article (drafts and scheduled "
        "ones included) in the full plain-text form, articles/<slug>.txt, with its slug, "
        "old slugs, status, published and updated times, summary, lead image, authors and "
        "id; the authors with their bios, roles, links and accounts (authors.txt); the "
        "topics and their addresses (tags.txt); the addresses of deleted articles "
        "(gone.txt); the source URLs' checks, archived copies and ignore dates (sources.txt); "
        "the fetched cards of links set alone on a line (embeds.txt); "
        "the image library, originals and words (images/); the other apps' parts "
        "(members, the release desk, the fediverse's keys and followers, API tokens and "
        "webhooks, newsletters, readership figures). It ends by naming what it leaves "
        "behind. import_site restores it into an empty database."
    )

    def add_arguments(self, parser):
        parser.add_argument("folder", metavar="FOLDER", help="A new (or empty) folder.")

    def handle(self, *args, folder, **options):
        folder = Path(folder)
        if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
            raise CommandError(f"{folder} exists and is not an empty folder; name a new one.")
        folder.absolute().parent.mkdir(parents=True, exist_ok=True)
        removed = remove_unfinished(folder)
        if removed:
            self.stdout.write(f"Removed {removed} unfinished backup(s) of killed exports.")
        with work_folder(folder) as work:
            count = self.write(work)
            gone = left_behind()
        self.stdout.write(
            self.style.SUCCESS(
                f"Backed up {count} article(s) and {self.images} image(s) to {folder}."
            )
        )
        for rows, name, why in gone:
            self.stdout.write(f"Left behind: {rows} {name} ({why}).")

    def write(self, work):
        articles_folder = work / BACKUP_ARTICLES
        articles_folder.mkdir()
        articles = (
            Article.objects.select_related("lead_image", "social_image")
            .prefetch_related(
                "sources",
                "related_links__target",
                "tags",
                "retired_slugs",
                "authorships__author",
                "corrections",
            )
            .order_by("pk")
        )
        count, problems, names = 0, [], set()
        with snapshot():
            for article in articles.iterator(chunk_size=500):
                try:
                    text = format_article(article, full=True)
                except ExportError as error:
                    problems.append(f"{article.slug}: {error}")
                    continue
                if article.slug.casefold() in names:
                    # One file on a case-insensitive file system.
                    problems.append(f"{article.slug}: another slug differs from it only in case.")
                    continue
                names.add(article.slug.casefold())
                path = articles_folder / f"{article.slug}.txt"
                path.write_text(text, encoding="utf-8", newline="\n")
                count += 1
            # In the order they were made: lists show an article's tags in that order.
            tags = list(Tag.objects.order_by("pk").values_list("pk", "slug", "name"))
            gone = list(
                RetiredSlug.objects.filter(article__isnull=True)
                .order_by("slug")
                .values_list("slug", flat=True)
            )
            self.images = write_library(work)
            authors = [
                ParsedAuthor(
                    id=author.pk,
                    slug=author.slug,
                    name=author.name,
                    updated_at=timezone.localtime(author.updated_at),
                    role=author.role,
                    bio=author.bio,
                    user=author.user.get_username() if author.user else None,
                    photo=author.photo.key if author.photo_id else None,
                    links=[(link.label, link.url) for link in author.links.all()],
                )
                for author in Author.objects.select_related("user", "photo")
                .prefetch_related("links")
                .order_by("pk")
            ]
            # What readers see (archived copies), what editors decided (ignored until)
            # and what the checks found, so a restored site needs no check to show them.
            fields = [f for f in SourceURL._meta.concrete_fields if not f.primary_key]
            source_urls = [
                ParsedSourceURL(**{f.name: getattr(row, f.name) for f in fields})
                for row in SourceURL.objects.order_by("url").iterator(chunk_size=2000)
            ]
            # The cards readers see; pending and failed ones are fetched again.
            embeds = [
                ParsedEmbed(
                    url=embed.url,
                    title=embed.title,
                    fetched_at=timezone.localtime(embed.fetched_at),
                    kind=embed.kind,
                    provider=embed.provider,
                    author=embed.author,
                    text=embed.text,
                    thumbnail=embed.thumbnail.key if embed.thumbnail_id else "",
                    player_url=embed.player_url,
                    player_size=(embed.player_width, embed.player_height)
                    if embed.player_width and embed.player_height
                    else None,
                )
                for embed in Embed.objects.ready().select_related("thumbnail").order_by("url")
            ]
            # Live stories' coverage and entries (live/textformat.py), in the same snapshot.
            write_live(work / BACKUP_LIVE)
            # What the apps above textfiles keep (members and comments), the same snapshot.
            site_exporting.send(sender=self.__class__, folder=work)
        authors_text = sources_text = embeds_text = ""
        try:
            authors_text = format_authors(authors)
        except ExportError as error:
            problems.append(str(error))
        try:
            sources_text = format_source_urls(source_urls)
        except ExportError as error:
            problems.append(str(error))
        try:
            embeds_text = format_embeds(embeds)
        except ExportError as error:
            problems.append(str(error))
        for problem in problems:
            self.stderr.write(problem)
        if problems:
            raise CommandError(
                f"{len(problems)} article(s), author(s) or source URL(s) could not be written "
                "exactly; no "
                "backup was made."
            )
        (work / BACKUP_TAGS).write_text(format_tags(tags), encoding="utf-8", newline="\n")
        (work / BACKUP_GONE).write_text(format_gone(gone), encoding="utf-8", newline="\n")
        (work / BACKUP_AUTHORS).write_text(authors_text, encoding="utf-8", newline="\n")
        write_front(work / BACKUP_FRONT)
        (work / BACKUP_SOURCES).write_text(sources_text, encoding="utf-8", newline="\n")
        (work / BACKUP_EMBEDS).write_text(embeds_text, encoding="utf-8", newline="\n")
        return count
