"""The image library in a whole-site backup: ``images/`` holds each picture's original
file, named by its key, and ``images/library.json`` what the library knows of each (its
id, words, licence and focal point). news' export_site and import_site call these."""

import json
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files import File
from django.core.management.color import no_style
from django.db import connection
from django.utils.dateparse import parse_datetime

from images.models import Image
from images.tasks import make_renditions
from images.uploads import check_upload

FOLDER = "images"
LIBRARY = "library.json"
WORDS = ["alt_text", "decorative", "caption", "credit", "licence", "focal_x", "focal_y"]


def write_library(folder):
    """Copy every image and its record into ``folder``/images; return how many."""
    target = Path(folder) / FOLDER
    target.mkdir()
    records = []
    for image in Image.objects.order_by("pk").iterator(chunk_size=200):
        name = f"{image.key}.{image.file.name.rsplit('.', 1)[-1]}"
        with image.file.open("rb") as original, (target / name).open("wb") as copy:
            for chunk in original.chunks():
                copy.write(chunk)
        records.append(
            {
                "id": image.pk,
                "file": name,
                **{field: getattr(image, field) for field in WORDS},
                "original_name": image.original_name,
                "uploaded_at": image.uploaded_at.isoformat(),
            }
        )
    text = json.dumps(records, ensure_ascii=False, indent=1) + "\n"
    (target / LIBRARY).write_text(text, encoding="utf-8", newline="\n")
    return len(records)


def restore_library(folder, journal):
    """Restore ``folder``/images into the library, ids kept, renditions made, each
    picture's files named in ``journal`` (textfiles.journal) before they are written;
    return a list of problems ('images/library.json: image 3 (x.jpg): ...'), empty if it
    worked. A backup made before images existed has no such folder: nothing to do."""
    source = Path(folder) / FOLDER
    listing = source / LIBRARY
    if not listing.exists():
        return []
    try:
        records = json.loads(listing.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:
        return [f"{listing}: not a readable image list ({error})."]
    problems, restored = [], []
    for number, record in enumerate(records, start=1):
        where = f"{listing}: image {number} ({record.get('file', '?')})"
        try:
            restored.append(_restore(source, record, journal))
        except (ValidationError, KeyError, TypeError, ValueError, OSError) as error:
            messages = error.messages if isinstance(error, ValidationError) else [repr(error)]
            problems += [f"{where}: {message}" for message in messages]
    if not problems and restored:
        # Ids were given: the database's own counter must move past them (PostgreSQL).
        with connection.cursor() as cursor:
            for sql in connection.ops.sequence_reset_sql(no_style(), [Image]):
                cursor.execute(sql)
    return problems


def _restore(source, record, journal):
    path = source / Path(record["file"]).name
    with path.open("rb") as handle:
        file = File(handle, name=record.get("original_name") or path.name)
        upload = check_upload(file)
        if not upload.sha256.startswith(Path(record["file"]).stem):
            raise ValidationError("the file's content does not match its name (changed?).")
        image = Image(pk=record["id"], **{field: record[field] for field in WORDS})
        image.full_clean(exclude=["file", "sha256", "format", "width", "height", "file_size"])
        image.take(file, upload)
        journal.add(image)
        image.save()
        # Here, not by a worker: a restored site has every page back once this ends.
        make_renditions.call(image.pk)
    uploaded = parse_datetime(record.get("uploaded_at") or "")
    if uploaded:
        Image.objects.filter(pk=image.pk).update(uploaded_at=uploaded)
    return image
