"""Import plain-text articles, all files or none; restore a whole-site backup."""

import contextlib
from dataclasses import dataclass, field
from datetime import datetime, time
from pathlib import Path

import reversion
from django.contrib.auth import get_user_model
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from embeds.models import Embed
from images.models import Image
from live.textformat import BACKUP_LIVE, LiveFileError
from live.textformat import import_folder as restore_live
from maintenance.locks import transaction_lock
from news import purge
from news.models import (
    Article,
    ArticleAuthor,
    Correction,
    RelatedLink,
    RetiredSlug,
    Source,
    Tag,
)
from news.rules import MAX_SOURCES, SELF_RELATION, tag_problems
from news.slugs import slug_from_title
from people.models import Author, AuthorLink
from sources.models import SourceURL

from .frontpage import BACKUP_FRONT, restore_front
from .journal import Journal, clean_unfinished
from .library import restore_library
from .signals import site_restoring
from .textformat import (
    FormatError,
    ParsedArticle,
    is_slug,
    parse,
    parse_authors,
    parse_embeds,
    parse_gone,
    parse_source_urls,
    parse_tags,
)

# The whole-site backup (see the export_site command): a folder of these.
BACKUP_ARTICLES = "articles"
BACKUP_TAGS = "tags.txt"
BACKUP_GONE = "gone.txt"
BACKUP_AUTHORS = "authors.txt"
BACKUP_SOURCES = "sources.txt"
BACKUP_EMBEDS = "embeds.txt"
# Held by a site restore until it commits: one restore at a time (textfiles.journal).
SITE_RESTORE_LOCK = 0x5C1111


class ImportFailed(Exception):
    """An import failed; nothing was written. ``problems`` lists 'file:line: message'."""

    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


@dataclass
class ImportResult:
    created: list
    updated: list
    unchanged: list
    # (article, [part, ...]): the parts an update removed because its file has none
    # ("lead image", "summary", "search title", "meta description", "social image",
    # "authors", "sources", "related links", "topics").
    removed: list = field(default_factory=list)
    # (article, count): notes the article keeps though its file leaves them out.
    kept_notes: list = field(default_factory=list)


@dataclass
class SiteResult:
    articles: ImportResult
    tags: int
    gone: int
    authors: int = 0
    source_urls: int = 0
    # Files left by restores that never committed, removed before this one began.
    unfinished_files: int = 0


@dataclass
class _Plan:
    """What one file will do to one article."""

    path: Path
    parsed: ParsedArticle
    article: Article
    existing: Article | None
    order: int
    targets: list = field(default_factory=list)  # per related link: an Article or None
    new_old_slugs: list = field(default_factory=list)
    # The byline's authors, in order (none without an Authors line).
    authors: list = field(default_factory=list)
    # Corrections and updates the file adds (unsaved Correction rows).
    new_corrections: list = field(default_factory=list)
    # The parts of the stored article the file leaves out, which the import removes.
    removed: list = field(default_factory=list)
    # How many stored notes the file leaves out (kept: notes are only ever added).
    kept_notes: int = 0
    changed: bool = True
    # The file's topics as the topics they stand for are named (Tag.objects.spellings).
    tags: list = field(default_factory=list)

    def problem(self, line_key, message):
        line = self.parsed.lines.get(line_key) or self.parsed.lines["title"]
        return f"{self.path}:{line}: {message}"


def find_files(paths):
    files = []
    for path in map(Path, paths):
        if path.is_dir():
            if (path / BACKUP_ARTICLES).is_dir() and (path / BACKUP_TAGS).is_file():
                raise ImportFailed(
                    [
                        f"{path}: a whole-site backup; restore it into an empty database with "
                        f"import_site, or import the articles of {path / BACKUP_ARTICLES}."
                    ]
                )
            files.extend(sorted(path.glob("*.txt")))
        elif path.exists():
            files.append(path)
        else:
            raise ImportFailed([f"{path}: no such file or folder."])
    return files


def _read(path):
    """A file's text; ImportFailed naming the file, and the line where there is one, if it
    cannot be an article."""
    if not path.is_file():
        # A folder or a FIFO named *.txt: reading a FIFO would hang the import.
        raise ImportFailed([f"{path}: not a regular file."])
    try:
        data = path.read_bytes()
    except OSError as error:
        raise ImportFailed([f"{path}: cannot be read ({error.strerror})."]) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ImportFailed(
            [f"{path}:{line}: not UTF-8 text ({error.reason} at byte {error.start})."]
        ) from None
    if "\x00" in text:
        # PostgreSQL refuses NUL in text, so such a file would fail only halfway through.
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ImportFailed([f"{path}:{line}: a NUL character; not a text file."])
    return text


def _published_at(parsed, existing):
    if parsed.published_at is not None:
        return parsed.published_at
    if existing is not None and existing.published_date == parsed.published_date:
        return existing.published_at
    return timezone.make_aware(datetime.combine(parsed.published_date, time()))


def _find(parsed):
    """The slug the file's article will have, and the stored article it is, if any: by the
    file's Slug line (a current or an old slug), else by the slug made from the title, else
    (a slug an editor chose in the admin) by the exact title.

    The article's row stays locked until the import commits: an admin save landing
    between this read and the import's write would otherwise be overwritten, and both
    would write the same version (found on PostgreSQL by bench/editors.py; SQLite's
    immediate transactions already serialise them).
    """
    locked = Article.objects.select_for_update(of=("self",))
    if parsed.slug is not None:
        existing = locked.filter(slug=parsed.slug).first()
        if existing is None:
            retired = RetiredSlug.objects.filter(slug=parsed.slug, article__isnull=False).first()
            existing = locked.filter(pk=retired.article_id).first() if retired else None
        return parsed.slug, existing
    slug = slug_from_title(parsed.title)
    existing = (
        locked.filter(slug=slug).first()
        or locked.filter(title_upper=parsed.title.upper()).order_by("pk").first()
    )
    return (existing.slug if existing else slug), existing


def _fields(article):
    return (
        article.title,
        article.body,
        article.event_date,
        article.published_at,
        article.facts_verified,
        article.status,
        article.summary,
        article.slug,
        article.lead_image_id,
        article.search_title,
        article.meta_description,
        article.social_image_id,
    )


def _link_key(target, title):
    """A related link as an import compares it: the article it points to, or its title."""
    if target is not None:
        return ("article", target.pk or id(target))
    return ("title", title.strip())


def _stored_state(article):
    """What an import compares, to leave unchanged articles untouched."""
    return (
        _fields(article),
        [(s.title, s.publisher, s.url) for s in article.sources.all()],
        [_link_key(link.target, link.title) for link in article.related_links.all()],
        sorted(tag.name.casefold() for tag in article.tags.all()),
        [authorship.author_id for authorship in article.authorships.all()],
    )


def _wanted_state(plan):
    """What the file makes of the article: every part of it, as the file says."""
    return (
        _fields(plan.article),
        [(s.title, s.publisher, s.url) for s in plan.parsed.sources],
        [
            _link_key(target, link.title)
            for link, target in zip(plan.parsed.related, plan.targets, strict=True)
        ],
        sorted(tag.casefold() for tag in plan.tags),
        [author.pk for author in plan.authors],
    )


def _validate(path, parsed: ParsedArticle, article, slug_is_new):
    """The model's rules, as for every interface: the article's full_clean(), each source's
    and related link's full_clean(), and Article.validate_parts() for the tags and the
    counts. Each problem is 'file:line: what: message', on the line of what is wrong."""
    problems = []

    def report(line, what, messages):
        problems.extend(f"{path}:{line}: {what}: {message}" for message in messages)

    field_lines = {
        "title": parsed.lines["title"],
        "body": parsed.lines["body"],
        "event_date": parsed.lines["footer"],
        "facts_verified": parsed.lines["footer"],
        "published_at": parsed.lines.get("published_at", parsed.lines["footer"]),
        "slug": parsed.lines.get("slug"),
        "status": parsed.lines.get("status"),
        "summary": parsed.lines.get("summary"),
        "lead_image": parsed.lines.get("lead_image"),
        "search_title": parsed.lines.get("search_title"),
        "meta_description": parsed.lines.get("meta_description"),
        "social_image": parsed.lines.get("social_image"),
        "id": parsed.lines.get("id"),
    }
    try:
        article.full_clean(exclude=None if slug_is_new else ["slug"])
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            line = field_lines.get(name) or parsed.lines["title"]
            report(line, _what("article", name), messages)

    sources = [Source(title=s.title, publisher=s.publisher, url=s.url) for s in parsed.sources]
    for source, parsed_source in zip(sources, parsed.sources, strict=True):
        try:
            source.full_clean(exclude=["article"])
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                report(parsed_source.line, _what("source", name), messages)
    links = []
    for parsed_link in parsed.related:
        if parsed_link.slug is None:
            # Checked against the article itself too: a link by its own title.
            link = RelatedLink(article=article, title=parsed_link.title)
            exclude = ["article"]
        else:
            # Resolved once every file is read (_resolve_targets); here only the title.
            link = RelatedLink(title=parsed_link.title)
            exclude = ["article", "target"]
        links.append(link)
        try:
            link.full_clean(exclude=exclude)
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                report(parsed.lines["related"], _what("related link", name), messages)

    try:
        article.validate_parts(tags=parsed.tags, sources=sources, related_links=links)
    except ValidationError as error:
        part_lines = {
            "tags": parsed.lines.get("tags"),
            "related_links": parsed.lines.get("related"),
            # The first source past the limit.
            "sources": parsed.sources[min(MAX_SOURCES, len(parsed.sources) - 1)].line
            if parsed.sources
            else None,
        }
        for part, messages in error.message_dict.items():
            report(part_lines[part] or parsed.lines["title"], part.replace("_", " "), messages)
    return problems


def _what(part, field):
    """How a problem with ``field`` of the article, a source or a related link is named:
    'title', 'source url', 'related link title', or the part itself when it is not about
    one field."""
    if field == NON_FIELD_ERRORS:
        return part
    field = field.replace("_", " ")
    return field if part == "article" else f"{part} {field}"


def _old_slug_problems(plan):
    """Old slugs the file gives its article, each kept as an address that redirects to it:
    real slugs, and none that is another article's address."""
    problems = []
    slug_field = RetiredSlug._meta.get_field("slug")
    existing_pk = plan.existing.pk if plan.existing else None
    retired = {}
    if plan.existing is not None:
        retired = {r.slug for r in plan.existing.retired_slugs.all()}
    for slug in plan.parsed.old_slugs or []:
        try:
            slug_field.clean(slug, None)
        except ValidationError as error:
            problems += [plan.problem("old_slugs", f"old slugs: {slug!r}: {m}") for m in error]
            continue
        if slug == plan.article.slug:
            problems.append(plan.problem("old_slugs", f"old slugs: {slug!r} is its own slug."))
            continue
        other = Article.objects.filter(slug=slug).exclude(pk=existing_pk).first()
        if other is None:
            other = Article.objects.filter(retired_slugs__slug=slug).exclude(pk=existing_pk).first()
        if other is not None:
            problems.append(
                plan.problem(
                    "old_slugs",
                    f"old slugs: {slug!r} is an address of another article, {other.title!r}.",
                )
            )
        elif slug not in retired:
            plan.new_old_slugs.append(slug)
    return problems


def _author_problems(plan):
    """The authors the file's Authors line names, by slug: each an existing author, once;
    none without the line. Authors are not created by an import (a name alone is not a
    profile); a site restore creates them first, from the backup's authors file."""
    slugs = plan.parsed.authors or []
    found = {author.slug: author for author in Author.objects.filter(slug__in=slugs)}
    problems, seen = [], set()
    for slug in slugs:
        if slug in seen:
            problems.append(plan.problem("authors", f"authors: {slug!r} is named twice."))
        elif slug not in found:
            problems.append(
                plan.problem(
                    "authors",
                    f"authors: no author has the slug {slug!r}; add the author in the admin first.",
                )
            )
        seen.add(slug)
    if not problems:
        plan.authors = [found[slug] for slug in slugs]
    return problems


def _correction_problems(plan, keep_ids, correction_ids_taken):
    """The corrections and updates the file lists, each checked by the model's rules; the
    ones the article lacks (by kind, time and words) are added. An import never edits or
    removes one, as "Old slugs" never removes an address: a published correction may not
    disappear quietly, and only an admin may change one, in the admin, where the change is
    recorded (editorial.admin.CorrectionAdmin). So a line with a stored note's time but
    other words or kind is refused, and stored notes the file leaves out are kept (the file
    may be older than they are). With ``keep_ids`` (a restore) a new note gets the file's
    id unless ``correction_ids_taken`` holds it."""
    stored = list(plan.existing.corrections.all()) if plan.existing is not None else []
    unmatched = [(c.kind, c.published_at, c.note) for c in stored]
    if plan.parsed.corrections is None:
        plan.kept_notes = len(stored)
        return []
    stored_times = {c.published_at for c in stored}
    problems, seen = [], {}
    for item in plan.parsed.corrections:
        key = (item.kind, item.published_at, item.note)
        if key in seen:
            problems.append(
                f"{plan.path}:{item.line}: this {item.kind} is also at line {seen[key]}."
            )
            continue
        seen[key] = item.line
        correction = Correction(kind=item.kind, published_at=item.published_at, note=item.note)
        try:
            correction.full_clean(exclude=["article", "revision"])
        except ValidationError as error:
            problems += [
                f"{plan.path}:{item.line}: {item.kind} {name.replace('_', ' ')}: {message}"
                for name, messages in error.message_dict.items()
                for message in messages
            ]
            continue
        if key in unmatched:
            unmatched.remove(key)
        elif item.published_at in stored_times:
            problems.append(
                f"{plan.path}:{item.line}: the article has a note published at this time with "
                "other words or of another kind; an import adds corrections and updates but "
                "never changes one: an admin edits it under Corrections in the admin, where "
                "the change is recorded."
            )
        else:
            if keep_ids and item.id is not None and item.id not in correction_ids_taken:
                correction_ids_taken.add(item.id)
                correction.pk = item.id
            plan.new_corrections.append(correction)
    plan.kept_notes = len(unmatched)
    return problems


def _plan(path, parsed, order, keep_ids, ids_taken, correction_ids_taken):
    """The article a file will write, and what is wrong with it. With ``keep_ids`` a new
    article gets its file's id unless ``ids_taken`` (stored ones and those of the files
    before) holds it, and a new correction likewise (``correction_ids_taken``)."""
    slug, existing = _find(parsed)
    # Read before the file's values replace them (``article`` is ``existing``).
    had = _removable(existing) if existing else _removable(Article())
    article = existing or Article(slug=slug)
    slug_is_new = existing is None or existing.slug != slug
    article.slug = slug
    article.title = parsed.title
    article.body = parsed.body
    article.event_date = parsed.event_date
    article.published_at = _published_at(parsed, existing)
    article.facts_verified = parsed.facts_verified
    # New articles are published unless the file says otherwise; an existing one keeps its
    # status, so that re-importing a plain export never publishes a draft.
    if parsed.status is not None:
        article.status = parsed.status
    elif existing is None:
        article.status = Article.Status.PUBLISHED
    # A file describes the whole article: a summary, search title, meta description, lead
    # or social image it leaves out is none.
    article.summary = parsed.summary or ""
    article.search_title = parsed.search_title or ""
    article.meta_description = parsed.meta_description or ""
    image_problems = []
    for name, what in (("lead_image", "lead image"), ("social_image", "social image")):
        key = getattr(parsed, name)
        if not key:
            setattr(article, name, None)
            continue
        found = list(Image.objects.filter(sha256__startswith=key)[:2])
        if len(found) == 1:
            setattr(article, name, found[0])
            continue
        image_problems.append(
            f"{path}:{parsed.lines[name]}: {what}: "
            + (
                f"no picture {key} in the image library; upload it first "
                "(a site backup's images/ folder holds it, and import_site restores it)."
                if not found
                else f"{key} names more than one picture; give more of its hash."
            )
        )
    if keep_ids and existing is None and parsed.id is not None and parsed.id not in ids_taken:
        ids_taken.add(parsed.id)
        article.pk = parsed.id
        # save() moves the version on whenever there is a primary key.
        article.version = 0
    plan = _Plan(path, parsed, article, existing, order, tags=Tag.objects.spellings(parsed.tags))
    problems = image_problems + _validate(path, parsed, article, slug_is_new)
    problems += _old_slug_problems(plan)
    problems += _author_problems(plan)
    problems += _correction_problems(plan, keep_ids, correction_ids_taken)
    if existing is not None:
        plan.removed = _removed_parts(plan, had)
    return plan, problems


def _removable(article):
    """The article's single-valued parts a file may leave out, by name, as they stand."""
    return {
        "lead image": article.lead_image_id,
        "summary": article.summary,
        "search title": article.search_title,
        "meta description": article.meta_description,
        "social image": article.social_image_id,
    }


def _removed_parts(plan, had):
    """The parts the stored article has and the file leaves out (or empties): the import
    removes them, and says so. ``had``: _removable() before the file's values."""
    article, parsed = plan.existing, plan.parsed
    now = _removable(article)
    parts = [
        *((name, bool(had[name]) and not now[name]) for name in had),
        ("authors", not plan.authors and article.authorships.exists()),
        ("sources", not parsed.sources and article.sources.exists()),
        ("related links", not parsed.related and article.related_links.exists()),
        ("topics", not parsed.tags and article.tags.exists()),
    ]
    return [name for name, removed in parts if removed]


def _resolve_targets(plans):
    """Each related link's article, by the address the file gives: one of the imported
    files (by its slug or an old slug), else a stored article (by its slug or an old
    one). A link whose address leads nowhere is kept by its title. Returns problems."""
    by_slug = {}
    for plan in plans:
        for slug in [plan.article.slug, *(plan.parsed.old_slugs or [])]:
            by_slug.setdefault(slug, plan)
    by_pk = {plan.existing.pk: plan for plan in plans if plan.existing is not None}
    problems = []
    for plan in plans:
        for link in plan.parsed.related:
            target = None
            if link.slug is not None:
                if link.slug in by_slug:
                    target = by_slug[link.slug].article
                else:
                    target = (
                        Article.objects.filter(slug=link.slug).first()
                        or Article.objects.filter(retired_slugs__slug=link.slug).first()
                    )
                    if target is not None and target.pk in by_pk:
                        target = by_pk[target.pk].article
            if target is not None and target is plan.article:
                problems.append(plan.problem("related", f"related link target: {SELF_RELATION}"))
            plan.targets.append(target)
    return problems


def _claims(plans):
    """Two files about one article, or giving the same address: problems."""
    problems, slugs, articles = [], {}, {}
    for plan in plans:
        if plan.existing is not None:
            if plan.existing.pk in articles:
                problems.append(
                    plan.problem(
                        "title",
                        f"the same article ({plan.existing.slug!r}) is also in "
                        f"{articles[plan.existing.pk]}.",
                    )
                )
                continue
            articles[plan.existing.pk] = plan.path
        for key, slug in [("title", plan.article.slug)] + [
            ("old_slugs", s) for s in plan.parsed.old_slugs or []
        ]:
            if slug in slugs:
                what = "the same article (slug" if key == "title" else "the address (old slug"
                problems.append(plan.problem(key, f"{what} {slug!r}) is also in {slugs[slug]}."))
            else:
                slugs[slug] = plan.path
    return problems


@transaction.atomic
def import_articles(paths, *, keep_ids=False):
    """Create or update articles from plain-text files; raise ImportFailed on any problem,
    leaving the database as it was. Each article created or changed gets a revision,
    "Imported from FILE". ``keep_ids`` gives new articles the id of their file's Id line
    (a site restore)."""
    files = find_files(paths)
    problems, plans = [], []
    ids_taken = set(Article.objects.values_list("pk", flat=True)) if keep_ids else set()
    correction_ids_taken = (
        set(Correction.objects.values_list("pk", flat=True)) if keep_ids else set()
    )
    for order, path in enumerate(files):
        try:
            parsed = parse(_read(path))
        except ImportFailed as error:
            problems += error.problems
            continue
        except FormatError as error:
            problems.append(f"{path}:{error.line}: {error.message}")
            continue
        plan, plan_problems = _plan(path, parsed, order, keep_ids, ids_taken, correction_ids_taken)
        problems += plan_problems
        plans.append(plan)
    problems += _claims(plans)
    problems += _resolve_targets(plans)
    if problems:
        raise ImportFailed(problems)

    stored = Article.objects.prefetch_related(
        "sources", "related_links__target", "tags", "authorships__author"
    )
    for plan in plans:
        if plan.existing is not None and not plan.new_old_slugs and not plan.new_corrections:
            article = stored.get(pk=plan.existing.pk)
            plan.changed = _stored_state(article) != _wanted_state(plan)
    # In the order of the files' ids (articles published at the same moment are listed by
    # id), then of the files.
    changed = sorted(
        (plan for plan in plans if plan.changed),
        key=lambda plan: (plan.parsed.id is None, plan.parsed.id or 0, plan.order),
    )
    # Every article first, so that related links can point to any of them.
    for plan in changed:
        with _naming(plan):
            plan.article.save()
    if keep_ids and changed:
        _reset_sequences([Article])
    for plan in changed:
        # The revision is made of what _write_parts() adds, once everything is written.
        with _naming(plan), reversion.create_revision(manage_manually=True):
            reversion.set_comment(f"Imported from {plan.path}")
            _write_parts(plan)
    if keep_ids and any(plan.new_corrections for plan in changed):
        _reset_sequences([Correction])

    result = ImportResult([], [], [])
    for plan in plans:
        if not plan.changed:
            result.unchanged.append(plan.article)
        else:
            (result.updated if plan.existing else result.created).append(plan.article)
            if plan.removed:
                result.removed.append((plan.article, plan.removed))
        if plan.existing is not None and plan.kept_notes:
            result.kept_notes.append((plan.article, plan.kept_notes))
    return result


def _reset_sequences(models):
    """After rows were written with chosen ids: new rows get ids past them (PostgreSQL)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(sql)


class _naming:
    """Turns a database error while writing ``plan`` into ImportFailed naming its file (the
    transaction rolls back: the files before this one are not kept either)."""

    def __init__(self, plan):
        self.plan = plan

    def __enter__(self):
        return self

    def __exit__(self, kind, error, traceback):
        if isinstance(error, DatabaseError):
            message = f"the import stopped while writing this article ({error})."
            raise ImportFailed([self.plan.problem("title", message)]) from error
        return False


def _write_parts(plan):
    """Write an article's sources, related links, new old slugs, tags, authors, new
    corrections and updates, and (for a new article whose file
    says when it was last changed) that time; then record it all as the revision's."""
    article, parsed = plan.article, plan.parsed
    article.sources.all().delete()
    Source.objects.bulk_create(
        Source(article=article, position=i, title=s.title, publisher=s.publisher, url=s.url)
        for i, s in enumerate(parsed.sources)
    )
    article.related_links.all().delete()
    RelatedLink.objects.bulk_create(
        # As RelatedLink.save(): a link to an article keeps that article's title.
        RelatedLink(
            article=article,
            position=i,
            target=target,
            title=(target.title if target else link.title).strip(),
        )
        for i, (link, target) in enumerate(zip(parsed.related, plan.targets, strict=True))
    )
    article.authorships.all().delete()
    ArticleAuthor.objects.bulk_create(
        ArticleAuthor(article=article, author=author, position=i)
        for i, author in enumerate(plan.authors)
    )
    for slug in plan.new_old_slugs:
        RetiredSlug.objects.update_or_create(slug=slug, defaults={"article": article})
    for correction in plan.new_corrections:
        # Saved one by one: its signal purges the article's page, /corrections/ and the
        # feeds. Not tied to a revision (its ``revision`` stays empty): the change it
        # describes was made before the file was written, and the import's revision would
        # show the whole file as its diff. The import's revision records it as added.
        correction.article = article
        correction.save(force_insert=True)
        reversion.add_to_revision(correction)
    if plan.existing is None and parsed.updated_at is not None:
        Article.objects.filter(pk=article.pk).update(updated_at=parsed.updated_at)
        article.updated_at = parsed.updated_at
    if plan.existing is None:
        article.tags.add(*plan.tags)
    else:
        article.tags.set(plan.tags)
    # The sources were written without signals: the searchable text is brought up to date
    # here, and this instance with it, so that a caller saving it again (load_demo) does
    # not write back the old text.
    article.refresh_search_extra()
    article.refresh_from_db(fields=["search_extra"])
    reversion.add_to_revision(article)


def _listing(path, parse_listing):
    try:
        return parse_listing(_read(path))
    except FormatError as error:
        raise ImportFailed([f"{path}:{error.line}: {error.message}"]) from None


def _authors(path):
    """The backup's authors as unsaved Author rows (each with ``restored_links`` and
    ``restored_updated_at``), and the problems found: the model's rules, as in the admin,
    and accounts that must exist by their username (a backup holds no accounts)."""
    parsed = _listing(path, parse_authors) if path.exists() else []
    users = {
        user.get_username(): user
        for user in get_user_model().objects.filter(
            username__in=[author.user for author in parsed if author.user]
        )
    }
    problems, authors, seen = [], [], {}
    for item in parsed:
        messages = []
        for what, value in (("id", item.id), ("slug", item.slug), ("user", item.user)):
            if value is not None and (what, value) in seen:
                messages.append(
                    f"the {what} {value!r} is also the author's at line {seen[what, value]}."
                )
            seen.setdefault((what, value), item.line)
        if item.user and item.user not in users:
            messages.append(
                f"no account has the username {item.user!r}: create it first, or remove the "
                "'User:' line."
            )
        author = Author(
            pk=item.id, slug=item.slug, name=item.name, role=item.role, bio=item.bio,
            user=users.get(item.user),
        )  # fmt: skip
        author.restored_links = [
            AuthorLink(author=author, position=i, label=label, url=url)
            for i, (label, url) in enumerate(item.links)
        ]
        author.restored_updated_at = item.updated_at
        author.restored_photo = (item.photo, item.line)
        for row, exclude in [
            (author, ["user"]),
            *((link, ["author"]) for link in author.restored_links),
        ]:
            try:
                row.full_clean(exclude=exclude, validate_unique=False)
            except ValidationError as error:
                for name, errors in error.message_dict.items():
                    messages += [f"{name.replace('_', ' ')}: {message}" for message in errors]
        problems += [f"{path}:{item.line}: {message}" for message in messages]
        authors.append(author)
    return authors, problems


def _author_photos(authors, path):
    """Give each author their photo, once the library is restored; the problems."""
    problems = []
    for author in authors:
        key, line = author.restored_photo
        if key is None:
            continue
        found = Image.objects.filter(sha256__startswith=key).first()
        if found is None:
            problems.append(f"{path}:{line}: photo {key} is not in the backup's images/.")
        author.photo = found
    return problems


def _restore_authors(authors):
    """Save the authors with their ids (so bylines and feed ids stay the same), their
    links and their last change; saved one by one, so their pages are purged."""
    for author in authors:
        author.save(force_insert=True)
        for link in author.restored_links:
            link.save()
        Author.objects.filter(pk=author.pk).update(updated_at=author.restored_updated_at)
    if authors:
        _reset_sequences([Author, AuthorLink])


def _source_urls(path):
    """The backup's source URLs as unsaved SourceURL rows, and the problems found (the
    model's rules, as in the admin; a URL listed twice). None in a backup made before
    source checks existed."""
    parsed = _listing(path, parse_source_urls) if path.exists() else []
    problems, rows, seen = [], [], {}
    for item in parsed:
        row = SourceURL(**{name: getattr(item, name) for name in _SOURCE_URL_COLUMNS})
        messages = []
        if item.url in seen:
            messages.append(f"this URL is also the block at line {seen[item.url]}.")
        seen.setdefault(item.url, item.line)
        try:
            row.full_clean(validate_unique=False)
        except ValidationError as error:
            for name, errors in error.message_dict.items():
                field = SourceURL._meta.get_field(name).verbose_name
                messages += [f"{field}: {message}" for message in errors]
        problems += [f"{path}:{item.line}: {message}" for message in messages]
        rows.append(row)
    return rows, problems


_SOURCE_URL_COLUMNS = [f.name for f in SourceURL._meta.concrete_fields if not f.primary_key]


def _embeds(path):
    """The backup's link cards as unsaved Embed rows (ready), and the problems found: a
    URL listed twice, a thumbnail not in the library (call after restore_library). None
    in a backup made before embeds existed."""
    parsed = _listing(path, parse_embeds) if path.exists() else []
    problems, rows, seen = [], [], {}
    for item in parsed:
        messages = []
        if item.url in seen:
            messages.append(f"this URL is also the block at line {seen[item.url]}.")
        seen.setdefault(item.url, item.line)
        thumbnail = None
        if item.thumbnail:
            thumbnail = Image.objects.filter(sha256__startswith=item.thumbnail).first()
            if thumbnail is None:
                messages.append(f"no picture {item.thumbnail} in images/.")
        width, height = item.player_size or (None, None)
        row = Embed(
            url=item.url, state=Embed.State.READY, kind=item.kind, provider=item.provider,
            title=item.title, author=item.author, text=item.text, thumbnail=thumbnail,
            player_url=item.player_url, player_width=width, player_height=height,
            fetched_at=item.fetched_at, requested_at=item.fetched_at,
        )  # fmt: skip
        try:
            row.full_clean(exclude=["thumbnail"], validate_unique=False)
        except ValidationError as error:
            for name, errors in error.message_dict.items():
                field = Embed._meta.get_field(name).verbose_name
                messages += [f"{field}: {message}" for message in errors]
        problems += [f"{path}:{item.line}: {message}" for message in messages]
        rows.append(row)
    return rows, problems


def _restore_source_urls(rows):
    """Written at once (check_sources writes them so, too); the pages citing a URL with
    an archived copy show it, so theirs are purged, as an editor's change would."""
    SourceURL.objects.bulk_create(rows, batch_size=1000)
    for row in rows:
        if row.archive_url:
            purge.source_url_changed(row.url)


def import_site(folder):
    """Restore a whole-site backup (export_site) into an empty database: its authors and
    topics, every article with its id, byline and notes, the addresses of deleted
    articles, and the source URLs' checks and archived copies.
    All or nothing, as import_articles(), files included: the pictures' files of a
    restore that fails are removed, and those of one that was killed are removed by the
    next (textfiles.journal)."""
    journal = Journal()
    with purge.restoring(), transaction.atomic():
        # No other restore runs while this one holds it (on SQLite, the write lock its
        # transaction takes): a journal left in the storage now is of one that died.
        transaction_lock(SITE_RESTORE_LOCK)
        unfinished_files = clean_unfinished()
        try:
            with transaction.atomic():
                result = _restore_site(Path(folder), journal)
        except BaseException:
            # Rolled back: no row uses this restore's files. If the database cannot tell
            # any more, the journal stays for the next restore to clean.
            with contextlib.suppress(DatabaseError):
                journal.undo()
            raise
        transaction.on_commit(journal.discard, robust=True)
    result.unfinished_files = unfinished_files
    return result


def _restore_site(folder, journal):
    if not (folder / BACKUP_ARTICLES).is_dir() or not (folder / BACKUP_TAGS).is_file():
        raise ImportFailed(
            [f"{folder}: not a site backup (no {BACKUP_ARTICLES}/ folder and {BACKUP_TAGS})."]
        )
    if (
        Article.objects.exists()
        or Tag.objects.exists()
        or RetiredSlug.objects.exists()
        or Author.objects.exists()
        or Image.objects.exists()
        or SourceURL.objects.exists()
        or Embed.objects.exists()
    ):
        raise ImportFailed(
            [
                f"{folder}: the database already has articles, topics, authors, images or "
                "source checks; a site backup is restored into an empty one (import single "
                "articles with import_articles)."
            ]
        )
    tags_path, gone_path = folder / BACKUP_TAGS, folder / BACKUP_GONE
    tags = _listing(tags_path, parse_tags)
    gone = _listing(gone_path, parse_gone) if gone_path.exists() else []
    authors, problems = _authors(folder / BACKUP_AUTHORS)
    source_urls, source_url_problems = _source_urls(folder / BACKUP_SOURCES)
    problems += source_url_problems
    names, slugs, ids = set(), set(), set()
    slug_field = Tag._meta.get_field("slug")
    for slug, name, line, id in tags:
        messages = [str(problem.message) for problem in tag_problems([name])]
        try:
            slug_field.run_validators(slug)
        except ValidationError as error:
            messages += error.messages
        if len(slug) > slug_field.max_length:
            messages.append(f"the slug is longer than {slug_field.max_length} characters.")
        if name.casefold() in names or slug in slugs:
            messages.append("this topic is listed twice.")
        if id in ids:
            messages.append(f"another topic has the id {id}.")
        if id:
            ids.add(id)
        names.add(name.casefold())
        slugs.add(slug)
        problems += [f"{tags_path}:{line}: {message}" for message in messages]
    for slug, line in gone:
        if not is_slug(slug) or len(slug) > RetiredSlug._meta.get_field("slug").max_length:
            problems.append(f"{gone_path}:{line}: {slug!r} is not a slug.")
    if problems:
        raise ImportFailed(problems)
    # Pictures first: articles name their lead images, authors their photos.
    problems = restore_library(folder, journal)
    problems += _author_photos(authors, folder / BACKUP_AUTHORS)
    if problems:
        raise ImportFailed(problems)
    embeds, problems = _embeds(folder / BACKUP_EMBEDS)
    if problems:
        raise ImportFailed(problems)
    # Before the articles: their saves ask only for the cards the backup does not hold.
    Embed.objects.bulk_create(embeds, batch_size=500)
    _restore_authors(authors)
    # With their ids: a topic's fediverse actor is /ap/topics/ID, which followers keep.
    # Those with ids first, so that the others' new ids come after them.
    Tag.objects.bulk_create(Tag(pk=id, name=name, slug=slug) for slug, name, _, id in tags if id)
    _reset_sequences([Tag])
    Tag.objects.bulk_create(Tag(name=name, slug=slug) for slug, name, _, id in tags if not id)
    result = import_articles([folder / BACKUP_ARTICLES], keep_ids=True)
    taken = {
        *Article.objects.values_list("slug", flat=True),
        *RetiredSlug.objects.values_list("slug", flat=True),
    }
    problems = [
        f"{gone_path}:{line}: {slug!r} is an address of an article in the backup."
        for slug, line in gone
        if slug in taken
    ]
    if problems:
        raise ImportFailed(problems)
    RetiredSlug.objects.bulk_create(RetiredSlug(slug=slug) for slug, _ in dict(gone).items())
    _restore_source_urls(source_urls)
    problems = restore_front(folder / BACKUP_FRONT)
    if problems:
        raise ImportFailed(problems)
    try:
        restore_live(folder / BACKUP_LIVE)
    except LiveFileError as error:
        raise ImportFailed(error.problems) from None
    problems = [
        problem
        for _, found in site_restoring.send(sender=import_site, folder=folder)
        for problem in found or []
    ]
    if problems:
        raise ImportFailed(problems)
    return SiteResult(result, len(tags), len(gone), len(authors), len(source_urls))
