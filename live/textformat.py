"""A live story's coverage and entries as plain text, losslessly: the whole-site backup
(``FOLDER/live/<slug>.txt``, textfiles' export_site and import_site), the demo content,
and export_live / import_live.

A file is blocks separated by blank lines: the coverage's block, then one block per
entry, oldest first. Typed text (What we know, headlines, entries' text) is a JSON
string, so any character, line break or space at either end comes back as it was::

    Article: python-3-13-released
    State: ended
    Starts: 2024-10-07 17:00:00+00:00
    Ended: 2024-10-07 19:30:00+00:00
    Writers' entries wait: no
    Version: 14
    What we know: "- Python 3.13.0 is out."

    Entry: 2024-10-07 17:02:00+00:00, id 3
    Headline: "It is out"
    Key event: yes
    Authors: nadia-okafor
    Updated: 2024-10-07 17:10:00+00:00
    Text: "Python 3.13.0 is on python.org."

``Headline``, ``Key event``, ``Status`` (``awaiting``), ``Authors`` and ``Updated`` are
written only when the entry has them. Who posted an entry is not kept (accounts are not
in a backup).
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.management.color import no_style
from django.db import connection, transaction

from news.models import Article
from pagecache import purges
from people.models import Author

from .dependencies import LIVE_STORIES
from .models import Entry, LiveCoverage

# The whole-site backup's folder of live stories (textfiles' export_site, import_site).
BACKUP_LIVE = "live"


class LiveFileError(Exception):
    def __init__(self, problems):
        super().__init__("\n".join(problems))
        self.problems = problems


def _time(value):
    return value.isoformat(sep=" ") if value else ""


def _text(value):
    return json.dumps(value, ensure_ascii=False)


def format_coverage(coverage, entries):
    """The file of ``coverage`` with ``entries`` (oldest first, authors loaded)."""
    head = [
        f"Article: {coverage.article.slug}",
        f"State: {coverage.state}",
        *([f"Starts: {_time(coverage.starts_at)}"] if coverage.starts_at else []),
        *([f"Ended: {_time(coverage.ended_at)}"] if coverage.ended_at else []),
        f"Writers' entries wait: {'yes' if coverage.approval_required else 'no'}",
        f"Version: {coverage.version}",
        f"Summary version: {coverage.summary_version}",
        f"What we know: {_text(coverage.summary)}",
    ]
    blocks = ["\n".join(head)]
    for entry in entries:
        lines = [f"Entry: {_time(entry.posted_at)}, id {entry.pk}"]
        if entry.headline:
            lines.append(f"Headline: {_text(entry.headline)}")
        if entry.key_event:
            lines.append("Key event: yes")
        if entry.status != Entry.Status.PUBLISHED:
            lines.append(f"Status: {entry.status}")
        authors = [author.slug for author in entry.authors.all()]
        if authors:
            lines.append(f"Authors: {', '.join(authors)}")
        if entry.edited_at:
            lines.append(f"Updated: {_time(entry.edited_at)}")
        lines.append(f"Entry version: {entry.version}")
        lines.append(f"Text: {_text(entry.body)}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"


def export_coverage(coverage):
    entries = coverage.entries.prefetch_related("authors").order_by("posted_at", "pk")
    return format_coverage(coverage, entries)


@dataclass
class ParsedEntry:
    line: int
    posted_at: datetime
    pk: int
    fields: dict = field(default_factory=dict)
    authors: list = field(default_factory=list)


@dataclass
class ParsedCoverage:
    slug: str
    fields: dict
    entries: list


COVERAGE_NAMES = {
    "Article", "State", "Starts", "Ended", "Writers' entries wait", "Version",
    "Summary version", "What we know",
}  # fmt: skip
ENTRY_NAMES = {
    "Entry", "Headline", "Key event", "Status", "Authors", "Updated", "Entry version", "Text",
}  # fmt: skip


def parse_coverage(text, name):
    """A ParsedCoverage of a file's ``text``; raises LiveFileError naming ``name:line``."""
    problems = []
    blocks, block, start = [], [], 1
    for number, line in enumerate(text.split("\n"), start=1):
        if line == "":
            if block:
                blocks.append((start, block))
            block = []
            continue
        if not block:
            start = number
        block.append((number, line))
    if block:
        blocks.append((start, block))
    if not blocks:
        raise LiveFileError([f"{name}:1: the file is empty."])

    def pairs(lines, known):
        found = {}
        for number, line in lines:
            key, sep, value = line.partition(": ")
            if not sep or key not in known:
                problems.append(f"{name}:{number}: not a line of this format: {line[:60]!r}")
            elif key in found:
                problems.append(f"{name}:{number}: {key} is given twice.")
            else:
                found[key] = (number, value)
        return found

    def when(number, value):
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            moment = None
        if moment is None or moment.tzinfo is None:
            problems.append(f"{name}:{number}: {value!r} is not a time with its UTC offset.")
        return moment

    def text_of(number, value):
        try:
            found = json.loads(value)
        except json.JSONDecodeError:
            found = None
        if not isinstance(found, str):
            problems.append(f"{name}:{number}: the text must be a JSON string.")
            return ""
        return found

    def count(number, value):
        if not value.isdigit():
            problems.append(f"{name}:{number}: {value!r} is not a whole number.")
            return 1
        return int(value)

    head = pairs(blocks[0][1], COVERAGE_NAMES)
    if "Article" not in head:
        problems.append(f"{name}:1: the first block must name the Article.")
    fields = {}
    if "State" in head:
        number, value = head["State"]
        if value not in LiveCoverage.State.values:
            problems.append(f"{name}:{number}: the state is one of upcoming, live, ended.")
        fields["state"] = value
    for key, attribute in (("Starts", "starts_at"), ("Ended", "ended_at")):
        if key in head:
            fields[attribute] = when(*head[key])
    if "Writers' entries wait" in head:
        number, value = head["Writers' entries wait"]
        if value not in {"yes", "no"}:
            problems.append(f"{name}:{number}: yes or no.")
        fields["approval_required"] = value == "yes"
    for key, attribute in (("Version", "version"), ("Summary version", "summary_version")):
        if key in head:
            fields[attribute] = count(*head[key])
    if "What we know" in head:
        fields["summary"] = text_of(*head["What we know"])

    entries, ids = [], set()
    for start, lines in blocks[1:]:
        found = pairs(lines, ENTRY_NAMES)
        if "Entry" not in found or "Text" not in found:
            problems.append(f"{name}:{start}: an entry needs its Entry and Text lines.")
            continue
        number, value = found["Entry"]
        moment, sep, ident = value.partition(", id ")
        if not sep or not ident.isdigit():
            problems.append(f"{name}:{number}: write the entry's line as 'TIME, id N'.")
            continue
        if int(ident) in ids:
            problems.append(f"{name}:{number}: entry {ident} is given twice.")
        ids.add(int(ident))
        entry = ParsedEntry(start, when(number, moment), int(ident))
        entry.fields["body"] = text_of(*found["Text"])
        if "Headline" in found:
            entry.fields["headline"] = text_of(*found["Headline"])
        if "Key event" in found:
            entry.fields["key_event"] = found["Key event"][1] == "yes"
        if "Status" in found:
            number, value = found["Status"]
            if value not in Entry.Status.values:
                problems.append(f"{name}:{number}: the status is published or awaiting.")
            entry.fields["status"] = value
        if "Updated" in found:
            entry.fields["edited_at"] = when(*found["Updated"])
        if "Entry version" in found:
            entry.fields["version"] = count(*found["Entry version"])
        if "Authors" in found:
            entry.authors = [slug.strip() for slug in found["Authors"][1].split(",")]
        entries.append(entry)
    if problems:
        raise LiveFileError(problems)
    return ParsedCoverage(head["Article"][1], fields, entries)


def import_coverage(parsed, name, keep_ids=True):
    """Store ``parsed``, replacing the article's coverage and entries. Raises
    LiveFileError (an unknown article or author, text the rules refuse)."""
    problems = []
    article = Article.objects.filter(slug=parsed.slug).first()
    if article is None:
        raise LiveFileError([f"{name}:1: no article has the address {parsed.slug!r}."])
    slugs = {slug for entry in parsed.entries for slug in entry.authors}
    authors = {author.slug: author for author in Author.objects.filter(slug__in=slugs)}
    coverage = LiveCoverage(article=article, **parsed.fields)
    try:
        coverage.full_clean(exclude=["article"])
    except ValidationError as error:
        problems += [f"{name}:1: {message}" for message in error.messages]
    entries = []
    for item in parsed.entries:
        entry = Entry(coverage=coverage, posted_at=item.posted_at, **item.fields)
        if keep_ids:
            entry.pk = item.pk
        try:
            entry.full_clean(exclude=["coverage", "posted_by"])
        except ValidationError as error:
            problems += [f"{name}:{item.line}: {message}" for message in error.messages]
        missing = [slug for slug in item.authors if slug not in authors]
        if missing:
            problems.append(f"{name}:{item.line}: no author {', '.join(missing)}.")
        entries.append((entry, [authors[s] for s in item.authors if s in authors]))
    if problems:
        raise LiveFileError(problems)
    with transaction.atomic():
        LiveCoverage.objects.filter(pk=article.pk).delete()
        coverage.save()
        for entry, _ in entries:
            entry.save()
        Through = Entry.authors.through
        Through.objects.bulk_create(
            Through(entry_id=entry.pk, author_id=author.pk)
            for entry, entry_authors in entries
            for author in entry_authors
        )
        # Searchable at once (an import is no desk post to keep fast): the remembered live
        # stories are purged now for this transaction's index to see this one, and again
        # at the commit (live.signals) for everyone else.
        purges.purge({LIVE_STORIES()})
        article.refresh_search_extra()
        if keep_ids:
            # Ids given on PostgreSQL leave its sequence behind: the next post would
            # take one of them.
            with connection.cursor() as cursor:
                for sql in connection.ops.sequence_reset_sql(no_style(), [Entry]):
                    cursor.execute(sql)
    return coverage


def write_folder(folder):
    """Each coverage's file into ``folder`` (made when there is any); how many."""
    folder = Path(folder)
    count = 0
    for coverage in LiveCoverage.objects.select_related("article").order_by("pk"):
        folder.mkdir(exist_ok=True)
        text = export_coverage(coverage)
        (folder / f"{coverage.article.slug}.txt").write_text(text, encoding="utf-8", newline="\n")
        count += 1
    return count


def import_folder(folder, keep_ids=True):
    """Every ``*.txt`` of ``folder`` (none if it does not exist), all or nothing."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    problems, parsed = [], []
    for path in sorted(folder.glob("*.txt")):
        try:
            parsed.append((parse_coverage(path.read_text(encoding="utf-8"), path), path))
        except LiveFileError as error:
            problems += error.problems
    if problems:
        raise LiveFileError(problems)
    stored = []
    with transaction.atomic():
        for item, path in parsed:
            stored.append(import_coverage(item, path, keep_ids=keep_ids))
    return stored
