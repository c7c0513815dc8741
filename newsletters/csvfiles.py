"""Subscribers to and from CSV. An import says what is wrong and on which line, and
imports nothing if any line is wrong (as the article importer does); addresses without
a recorded opt-in are added waiting for confirmation and sent the link, never a
newsletter before they follow it."""

import csv
import io
from dataclasses import dataclass, field
from datetime import date

from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import transaction
from django.db.models.functions import Lower

from news.models import Tag
from people.models import Author

from .models import Subscriber, Suppressed, digest
from .tasks import send_confirmation

COLUMNS = ["email", "opted_in", "consent_date", "source", "frequency", "topics", "authors"]
YES, NO = {"yes", "y", "true", "1"}, {"no", "n", "false", "0", ""}
MAX_ROWS = 100_000
SOURCE_LENGTH = Subscriber._meta.get_field("source").max_length


@dataclass
class Report:
    added_active: int = 0
    added_pending: int = 0
    already: int = 0
    suppressed: int = 0
    problems: list = field(default_factory=list)


class ImportRefused(Exception):
    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


def read_rows(data):
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ImportRefused([f"The file is not UTF-8 text (byte {error.start})."]) from error
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise ImportRefused([f"Line {line}: a NUL character (\\0), which is no text: is it a CSV?"])
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or "email" not in [name.strip() for name in reader.fieldnames]:
        raise ImportRefused(["Line 1: the header must name an “email” column."])
    unknown = [name for name in reader.fieldnames if name.strip() not in COLUMNS]
    if unknown:
        raise ImportRefused(
            [f"Line 1: unknown column(s) {', '.join(unknown)}; the columns are "
             f"{', '.join(COLUMNS)}."]
        )  # fmt: skip
    return reader


def lines(reader):
    """The reader's rows numbered from 2 (the header is line 1), a field too long for the
    csv module (128 KB) named by its line."""
    number = 2
    while True:
        try:
            yield number, next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            raise ImportRefused(
                [f"Line {number}: {error}; no column needs as much: is it a CSV?"]
            ) from error
        number += 1


def parse(data):
    """The rows as dicts ready to save, or ImportRefused with every problem found."""
    reader = read_rows(data)
    topics = {tag.slug: tag for tag in Tag.objects.all()}
    authors = {author.slug: author for author in Author.objects.all()}
    problems, rows, seen = [], [], {}
    for number, raw in lines(reader):
        if number > MAX_ROWS + 1:
            problems.append(f"Line {number}: at most {MAX_ROWS:,} subscribers per file.")
            break
        row = {key.strip(): (value or "").strip() for key, value in raw.items() if key}
        where = f"Line {number}"
        email = row.get("email", "")
        try:
            validate_email(email)
            if len(email) > 254:
                raise ValidationError("too long")
        except ValidationError:
            problems.append(f"{where}: “{email[:80]}” is not an e-mail address.")
            continue
        if email.lower() in seen:
            problems.append(f"{where}: {email} is also on line {seen[email.lower()]}.")
            continue
        seen[email.lower()] = number
        opted = row.get("opted_in", "").lower()
        if opted not in YES | NO:
            problems.append(f"{where}: opted_in is “{opted}”; write yes or no.")
            continue
        consent = None
        if row.get("consent_date"):
            try:
                consent = date.fromisoformat(row["consent_date"])
            except ValueError:
                problems.append(
                    f"{where}: consent_date “{row['consent_date']}” is not a date like 2026-05-31."
                )
                continue
        if opted in YES and consent is None:
            problems.append(
                f"{where}: opted in, but no consent_date: say when they opted in, or "
                "write no to send them a confirmation link."
            )
            continue
        if len(row.get("source", "")) > SOURCE_LENGTH:
            problems.append(f"{where}: source has at most {SOURCE_LENGTH} characters.")
            continue
        frequency = row.get("frequency") or Subscriber.Frequency.EACH
        if frequency not in Subscriber.Frequency.values:
            problems.append(f"{where}: frequency “{frequency}”; write each, daily or weekly.")
            continue
        chosen = {}
        for column, known in (("topics", topics), ("authors", authors)):
            slugs = row.get(column, "").replace(";", " ").split()
            missing = [slug for slug in slugs if slug not in known]
            if missing:
                problems.append(f"{where}: no {column[:-1]} “{'”, “'.join(missing)}”.")
            chosen[column] = [known[slug] for slug in slugs if slug in known]
        if problems and problems[-1].startswith(f"{where}:"):
            continue
        rows.append({
            "email": email, "active": opted in YES, "consent": consent,
            "source": row.get("source") or "import", "frequency": frequency, **chosen,
        })  # fmt: skip
    if problems:
        raise ImportRefused(problems)
    return rows


def import_subscribers(data, confirm=True):
    """Import every row of the CSV ``data`` (bytes) or none; a Report."""
    rows = parse(data)
    report = Report()
    blocked = set(
        Suppressed.objects.filter(address__in=[digest(r["email"]) for r in rows]).values_list(
            "address", flat=True
        )
    )
    with transaction.atomic():
        existing = existing_addresses([row["email"] for row in rows])
        for row in rows:
            if digest(row["email"]) in blocked:
                report.suppressed += 1
                continue
            if row["email"].lower() in existing:
                report.already += 1
                continue
            subscriber = Subscriber(
                email=row["email"],
                frequency=row["frequency"],
                everything=not (row["topics"] or row["authors"]),
                source=f"{row['source']}"
                + (f", consent {row['consent']:%Y-%m-%d}" if row["consent"] else ""),
            )
            if row["active"]:
                subscriber.state = Subscriber.State.ACTIVE
                subscriber.confirm_nonce = ""
            else:
                subscriber.start_confirmation()
            subscriber.save()
            subscriber.topics.set(row["topics"])
            subscriber.authors.set(row["authors"])
            if row["active"]:
                report.added_active += 1
            else:
                report.added_pending += 1
                if confirm:
                    send_confirmation.enqueue(subscriber.pk)
    return report


def existing_addresses(addresses, chunk=1000):
    """Which of ``addresses`` (lowercased) already subscribe, in any state."""
    found = set()
    lowered = [address.lower() for address in addresses]
    for start in range(0, len(lowered), chunk):
        found |= set(
            Subscriber.objects.annotate(lowered=Lower("email"))
            .filter(lowered__in=lowered[start : start + chunk])
            .values_list("lowered", flat=True)
        )
    return found


def export(subscribers):
    """CSV text of ``subscribers``. A value a spreadsheet would run as a formula is
    written with a leading apostrophe."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([
        "email", "state", "frequency", "everything", "topics", "authors", "corrections",
        "source", "created_at", "confirmed_at",
    ])  # fmt: skip
    for s in subscribers.prefetch_related("topics", "authors").order_by("pk").iterator(2000):
        writer.writerow(
            safe(value)
            for value in (
                s.email, s.state, s.frequency, "yes" if s.everything else "no",
                " ".join(t.slug for t in s.topics.all()),
                " ".join(a.slug for a in s.authors.all()),
                "yes" if s.corrections else "no", s.source,
                s.created_at.isoformat(), s.confirmed_at.isoformat() if s.confirmed_at else "",
            )
        )  # fmt: skip
    return out.getvalue()


def safe(value):
    text = str(value)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
