"""Slugs made from titles in any script."""

import re
from collections import Counter

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


def spelled_name(slug, texts):
    """A readable name for a topic named by its slug ("programming-languages", as the
    demo content's Tags lines were written until they gave names): its words as ``texts``
    (its articles' titles, summaries and text) spell them most often, else the slug's
    words; in sentence case when that spelling has no capitals ("Machine learning"), as
    given when it has ("PostgreSQL", "PyTorch"). Never a name with another slug.
    """
    words = slug.split("-")
    # The words in any case, apart by spaces or hyphens, not inside a longer word.
    phrase = re.compile(
        r"(?<![\w-])" + r"[\s-]+".join(map(re.escape, words)) + r"(?![\w-])", re.IGNORECASE
    )
    seen = Counter(
        re.sub(r"\s+", " ", match.group()) for text in texts for match in phrase.finditer(text)
    )
    # The most used; of as many, the one with capitals, then the first alphabetically.
    spellings = sorted(
        seen.items(), key=lambda item: (-item[1], item[0] == item[0].lower(), item[0])
    )
    name = spellings[0][0] if spellings else " ".join(words)
    if name == name.lower():
        name = name[:1].upper() + name[1:]
    return name if slug_from_title(name, fallback="") == slug else slug


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
