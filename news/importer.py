"""Import plain-text articles: all files or none."""

from dataclasses import dataclass
from datetime import datetime, time
from pathlib import Path

from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db import DatabaseError, transaction
from django.utils import timezone

from .models import Article, RelatedLink, Source
from .rules import MAX_SOURCES
from .slugs import slug_from_title
from .textformat import FormatError, ParsedArticle, parse


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


def find_files(paths):
    files = []
    for path in map(Path, paths):
        if path.is_dir():
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
    if existing is not None and existing.published_date == parsed.published_date:
        return existing.published_at
    return timezone.make_aware(datetime.combine(parsed.published_date, time()))


def _state(article, sources, related, tags):
    """What an import compares, to leave unchanged articles untouched."""
    fields = (
        article.title,
        article.body,
        article.event_date,
        article.published_at,
        article.facts_verified,
        article.status,
    )
    return fields, sources, related, sorted(t.casefold() for t in tags)


def _existing_state(article):
    return _state(
        article,
        [(s.title, s.publisher, s.url) for s in article.sources.all()],
        [link.display_title for link in article.related_links.all()],
        [tag.name for tag in article.tags.all()],
    )


def _validate(path, parsed: ParsedArticle, article):
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
        "published_at": parsed.lines["footer"],
    }
    try:
        article.full_clean(exclude=["slug"] if article.pk else None)
    except ValidationError as error:
        for name, messages in error.message_dict.items():
            report(field_lines.get(name, parsed.lines["title"]), _what("article", name), messages)

    sources = [Source(title=s.title, publisher=s.publisher, url=s.url) for s in parsed.sources]
    for source, parsed_source in zip(sources, parsed.sources, strict=True):
        try:
            source.full_clean(exclude=["article"])
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                report(parsed_source.line, _what("source", name), messages)
    links = [RelatedLink(article=article, title=title) for title in parsed.related_titles]
    for link in links:
        try:
            link.full_clean(exclude=["article"])
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


@transaction.atomic
def import_articles(paths):
    """Create or update articles by slug from plain-text files; raise ImportFailed on any
    problem, leaving the database as it was."""
    files = find_files(paths)
    problems, plans, seen = [], [], {}
    for path in files:
        try:
            parsed = parse(_read(path))
        except ImportFailed as error:
            problems += error.problems
            continue
        except FormatError as error:
            problems.append(f"{path}:{error.line}: {error.message}")
            continue
        slug = slug_from_title(parsed.title)
        if slug in seen:
            problems.append(
                f"{path}:{parsed.lines['title']}: the same article (slug {slug!r}) "
                f"is also in {seen[slug]}."
            )
            continue
        seen[slug] = path
        # By slug; an article whose slug an editor chose in the admin, by its title.
        existing = (
            Article.objects.filter(slug=slug).first()
            or Article.objects.filter(title_upper=parsed.title.upper()).order_by("pk").first()
        )
        article = existing or Article(slug=slug)
        article.title = parsed.title
        article.body = parsed.body
        article.event_date = parsed.event_date
        article.published_at = _published_at(parsed, existing)
        article.facts_verified = parsed.facts_verified
        # New articles are published; an existing one keeps its status, so that
        # re-importing an export never publishes a draft.
        if existing is None:
            article.status = Article.Status.PUBLISHED
        problems += _validate(path, parsed, article)
        plans.append((path, parsed, article, existing))
    if problems:
        raise ImportFailed(problems)

    result = ImportResult([], [], [])
    for path, parsed, article, existing in plans:
        try:
            written = _write(article, existing, parsed)
        except DatabaseError as error:
            # The transaction rolls back: the files before this one are not kept either.
            line = parsed.lines["title"]
            raise ImportFailed(
                [f"{path}:{line}: the import stopped while writing this article ({error})."]
            ) from error
        if written:
            (result.updated if existing else result.created).append(article)
        else:
            result.unchanged.append(article)
    return result


def _write(article, existing, parsed):
    """Save one planned article with its sources, related links and tags; False if it is
    stored already, unchanged."""
    sources = [(s.title, s.publisher, s.url) for s in parsed.sources]
    wanted = _state(article, sources, parsed.related_titles, parsed.tags)
    if existing is not None:
        stored = Article.objects.prefetch_related("sources", "related_links", "tags")
        if _existing_state(stored.get(pk=existing.pk)) == wanted:
            return False
    article.save()
    article.sources.all().delete()
    Source.objects.bulk_create(
        Source(article=article, position=i, title=t, publisher=p, url=u)
        for i, (t, p, u) in enumerate(sources)
    )
    article.related_links.all().delete()
    RelatedLink.objects.bulk_create(
        RelatedLink(article=article, position=i, title=title)
        for i, title in enumerate(parsed.related_titles)
    )
    article.tags.set(parsed.tags, clear=True)
    return True
