"""The rules an author's profile must follow, on the model so that the admin and a site
restore say the same thing (STYLE.md, item 18).

People sits below news, so the two rules every typed text and link follow live here and
news.rules uses them: author names and bios go into the same feeds and JSON-LD as
titles, and say the same words when refused.
"""

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

MAX_BIO_CHARS = 1000


def no_control_characters(value):
    """Refuse the invisible control characters pasted text can hold: XML (feeds,
    sitemaps) cannot carry them."""
    for position, char in enumerate(value, start=1):
        if (ord(char) < 32 and char not in "\t\n\r") or 0x7F <= ord(char) < 0xA0:
            raise ValidationError(
                f"Remove the invisible control character U+{ord(char):04X} "
                f"(character {position}); it was probably pasted from another program.",
                code="control_character",
            )


def bio_within_limit(value):
    # A TextField's max_length only reaches the admin's form; this reaches every interface.
    if len(value) > MAX_BIO_CHARS:
        raise ValidationError(
            f"A bio can be at most {MAX_BIO_CHARS:,} characters long; this one has "
            f"{len(value):,}. Keep it to a few sentences.",
            code="max_length",
        )


def http_url_validator(value):
    URLValidator(schemes=["http", "https"])(value)
    # Legal in no URL unescaped, and they would break the plain-text format's "<URL>" and
    # the backup's "LABEL <URL>" lines.
    if any(char in value for char in "<>") or any(char.isspace() for char in value):
        raise ValidationError(
            "A URL cannot contain spaces or angle brackets; copy it from the browser's "
            "address bar, which encodes them."
        )
