"""Slugs made from titles in any script."""

import re

from anyascii import anyascii
from django.utils.text import slugify

from maintenance.locks import transaction_lock

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


# PostgreSQL names advisory locks by number; this one stands for "choosing an article slug".
ARTICLE_SLUG_LOCK = 0x5C1110


def lock_article_slugs(using="default"):
    """Take turns choosing article slugs until the current transaction ends.

    Without it two saves can both find a slug free and both insert it: one of them then
    fails with an IntegrityError instead of a form error or a slug of its own. On
    PostgreSQL the next save waits here and then sees the committed slug. SQLite, for
    development only, has no such lock; it lets one writer in at a time.
    """
    transaction_lock(ARTICLE_SLUG_LOCK, using)
