"""The rules an article must follow, and the words that say which one was broken.

Every interface that takes an article (the admin, the plain-text importer, any later
one) gets them from the model layer, never from its own copy (STYLE.md, item 18):

- the field validators below are on the fields of ``news.models`` (so ``full_clean()``
  runs them), together with ``Article.clean()`` and ``RelatedLink.clean()``;
- the limits on the parts of an article that are not columns of its row (tags, sources,
  related links) are checked by ``Article.validate_parts()``, which uses the
  ``*_problems`` functions below.

The limits are far beyond any real article. An article at every limit at once, in
four-byte characters, still fits in Django's request limits (DATA_UPLOAD_MAX_MEMORY_SIZE,
DATA_UPLOAD_MAX_NUMBER_FIELDS), so an editor always gets the message that names the limit
rather than a "request too large" page.
"""

from django.core.exceptions import ValidationError
from django.utils.text import Truncator
from taggit.models import TagBase

# The rules for any typed text and any link, shared with people (below news), so that
# both say the same words; kept under these names too, as migrations refer to them.
from people.rules import http_url_validator as http_url_validator
from people.rules import no_control_characters as no_control_characters

MAX_BODY_CHARS = 100_000
# Lists, search results and link previews show the summary whole.
MAX_SUMMARY_CHARS = 500
MAX_SOURCES = 50
MAX_RELATED_LINKS = 50
MAX_TAGS = 30
MAX_TOPIC_INTRO_CHARS = 1000
# The header's chosen topics: more would not fit a phone's header.
MAX_HEADER_TOPICS = 8
# The tag table's column: a longer name is refused here, not by the database (PostgreSQL
# would refuse it only while the article's other rows are being written).
MAX_TAG_CHARS = TagBase._meta.get_field("name").max_length
EARLIEST_YEAR, LATEST_YEAR = 1800, 2200
# Google's Article guidance: images at least 1,200 pixels wide for Top stories and
# Discover; the social crops are made at that width.
MIN_LEAD_IMAGE_WIDTH = 1200
# About what a search result shows of a title and of a description before cutting it:
# the longest search title and meta description an editor may set.
SEARCH_TITLE_CHARS = 60
SEARCH_DESCRIPTION_CHARS = 160

SELF_RELATION = "An article cannot relate to itself."
# A correction's or update's public note: a sentence or two, shown whole.
MAX_NOTE_CHARS = 1000


def note_within_limit(value):
    if len(value) > MAX_NOTE_CHARS:
        raise ValidationError(
            f"A note can be at most {MAX_NOTE_CHARS:,} characters long; this one has "
            f"{len(value):,}.",
            code="note_too_long",
        )


def within_years(value):
    """Catches typos such as 0224 for 2024, and times that no time zone can convert
    (9999-12-31 23:59 in New York is past the last moment Python can hold in UTC)."""
    if not EARLIEST_YEAR <= value.year <= LATEST_YEAR:
        raise ValidationError(
            f"Enter a date between the years {EARLIEST_YEAR} and {LATEST_YEAR}; "
            f"this one is in {value.year}.",
            code="year_out_of_range",
        )


def body_within_limit(value):
    if len(value) > MAX_BODY_CHARS:
        raise ValidationError(
            f"The body can be at most {MAX_BODY_CHARS:,} characters long; this one has "
            f"{len(value):,}. Split it into several articles.",
            code="max_length",
        )


def intro_within_limit(value):
    if len(value) > MAX_TOPIC_INTRO_CHARS:
        raise ValidationError(
            f"A topic's intro can be at most {MAX_TOPIC_INTRO_CHARS:,} characters long; this "
            f"one has {len(value):,}.",
            code="max_length",
        )


def summary_within_limit(value):
    # A TextField's max_length only reaches the admin's form; this reaches every interface.
    if len(value) > MAX_SUMMARY_CHARS:
        raise ValidationError(
            f"The summary can be at most {MAX_SUMMARY_CHARS} characters long; this one has "
            f"{len(value):,}. Keep it to one or two sentences.",
            code="max_length",
        )


def lead_image_problems(image, role="lead image"):
    """Why ``image`` cannot be an article's lead image (or, ``role``, its social image)."""
    if image.width < MIN_LEAD_IMAGE_WIDTH:
        return [
            ValidationError(
                f"A {role} must be at least {MIN_LEAD_IMAGE_WIDTH:,} pixels wide (search "
                f"engines and link previews show nothing smaller); this one is "
                f"{image.width:,}. Choose a larger picture, or place this one in the body.",
                code="too_small",
            )
        ]
    return []


def missing_image_problems(keys):
    return [
        ValidationError(
            f"The body places image:{key}, which is not in the image library. Copy the "
            "line from the image's page in the library.",
            code="unknown_image",
        )
        for key in keys
    ]


def tag_problems(names):
    """What is wrong with an article's tag names (a list of messages, empty if nothing).
    Names that differ only in case are one tag (TAGGIT_CASE_INSENSITIVE)."""
    count = len({name.casefold() for name in names})
    if count > MAX_TAGS:
        return [
            ValidationError(
                f"An article can have at most {MAX_TAGS} tags; this one has {count}.",
                code="too_many",
            )
        ]
    problems = []
    for name in names:
        try:
            no_control_characters(name)
        except ValidationError as error:
            problems.append(error)
        if len(name) > MAX_TAG_CHARS:
            problems.append(
                ValidationError(
                    f"A tag can be at most {MAX_TAG_CHARS} characters long; "
                    f"“{Truncator(name).chars(40)}” has {len(name)}.",
                    code="max_length",
                )
            )
    return problems


def source_count_problems(count):
    if count > MAX_SOURCES:
        return [
            ValidationError(
                f"An article can have at most {MAX_SOURCES} sources. This one has {count}: "
                "remove some.",
                code="too_many",
            )
        ]
    return []


def related_link_count_problems(count):
    if count > MAX_RELATED_LINKS:
        return [
            ValidationError(
                f"An article can have at most {MAX_RELATED_LINKS} related links. This one has "
                f"{count}: remove some.",
                code="too_many",
            )
        ]
    return []
