"""Slugs made from titles in any script."""

import re

from anyascii import anyascii
from django.utils.text import slugify

MAX_SLUG_LENGTH = 80


def slug_from_title(title, fallback="article"):
    """A readable ASCII slug for any title, never empty.

    Dots inside words become hyphens so "PyTorch 2.4" reads "pytorch-2-4", other
    scripts are transliterated ("Привет" -> "privet") and emoji become their names.
    """
    # anyascii writes emoji as ":name:"; the colons would glue the names together.
    text = anyascii(title or "").replace(":", " ")
    text = re.sub(r"(?<=\w)\.(?=\w)", "-", text)
    slug = slugify(text)[:MAX_SLUG_LENGTH].strip("-")
    if "-" in slug and len(slugify(text)) > MAX_SLUG_LENGTH:
        slug = slug.rsplit("-", 1)[0]
    return slug or fallback
