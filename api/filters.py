"""The article list's filters and its cursor, checked like any input: a bad value is a
400 naming the parameter, never an empty list that looks like an answer."""

import operator
import re
from datetime import UTC, datetime
from functools import reduce
from urllib.parse import parse_qs, urlencode

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.utils.urls import replace_query_param

from news.models import tagged

from . import cursors

ORDERINGS = {
    "-published": ("-published_at", "-pk"),
    "published": ("published_at", "pk"),
    "-event_date": ("-event_date", "-published_at", "-pk"),
    "event_date": ("event_date", "published_at", "pk"),
}
MAX_QUERY_WORDS = 10
# What ``str.split()`` splits words on (each character for which ``str.isspace()`` is
# true), spelt out so that the schema's pattern means the same in every dialect of
# regular expressions: ECMA 262's ``\s``, which JSON Schema uses, is another set.
SPACE = r"\t\n\x0b\x0c\r\x1c-\x1f \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
# One to MAX_QUERY_WORDS words; no NUL, which DRF's CharField refuses.
QUERY_PATTERN = (
    rf"^[{SPACE}]*(?:[^{SPACE}\x00]+[{SPACE}]+){{0,{MAX_QUERY_WORDS - 1}}}"
    rf"[^{SPACE}\x00]+[{SPACE}]*$"
)


def check_single_values(query_params, names):
    """A 400 naming each of ``names`` given empty or more than once. The schema promises
    one value that is not empty, and DRF would quietly read an empty value as no value
    and a repeated one as its last: an answer to a question the client did not ask."""
    errors = {}
    for name in names:
        values = query_params.getlist(name)
        if len(values) > 1:
            errors[name] = ["Give this parameter once."]
        elif values == [""]:
            errors[name] = ["Give a value, or leave the parameter out."]
    if errors:
        raise serializers.ValidationError(errors)


def whole_number(query_params, name):
    """The value of ``name`` as a whole number from 1, None if it is not given, a 400
    naming it if it is anything else. Digits only: ``int()`` would also take "+3",
    " 3", "3_0" and the other scripts' digits, which the schema's integer is not."""
    value = query_params.get(name)
    if value is None:
        return None
    digits = value.lstrip("0")
    if not re.fullmatch("[0-9]+", value) or not digits:
        raise serializers.ValidationError({name: ["A whole number from 1."]})
    # Past any page and over any page size, without int() of thousands of digits.
    return int(digits) if len(digits) <= 18 else 10**18


class InstantField(serializers.DateTimeField):
    """A date-time that Python cannot hold in this time zone (0001-01-01T00:00:00+05:00
    is in year 0 in UTC) is the first or the last instant Python has: it compares with
    every article as the instant itself would. DRF answered a 400 for a valid value."""

    def enforce_timezone(self, value):
        try:
            return super().enforce_timezone(value)
        except serializers.ValidationError:
            if value.tzinfo is None:
                raise
            edge = datetime.min if value.year == datetime.min.year else datetime.max
            return edge.replace(tzinfo=UTC)


class ArticleFilters(serializers.Serializer):
    tag = serializers.SlugField(required=False, help_text="A topic's slug.")
    author = serializers.SlugField(required=False, help_text="An author's slug.")
    published_after = InstantField(
        required=False,
        help_text="Published at or after (ISO 8601). Not later than published_before, "
        "or the answer is a 400 naming published_after.",
    )
    published_before = InstantField(required=False, help_text="Published before (ISO 8601).")
    event_after = serializers.DateField(
        required=False,
        help_text="Event on or after. Not later than event_before, or the answer is a 400 "
        "naming event_after.",
    )
    event_before = serializers.DateField(required=False, help_text="Event on or before.")
    updated_since = InstantField(
        required=False,
        help_text="Changed at or after (ISO 8601): for syncing a copy. Deletions and "
        "unpublications are not listed: subscribe to webhooks for those.",
    )
    q = serializers.RegexField(
        QUERY_PATTERN,
        required=False,
        max_length=200,
        error_messages={"invalid": f"Give 1 to {MAX_QUERY_WORDS} words (no NUL characters)."},
        help_text=f"Words, all of which must appear: 1 to {MAX_QUERY_WORDS}.",
    )
    ordering = serializers.ChoiceField(
        choices=list(ORDERINGS), required=False, default="-published"
    )

    def validate_q(self, value):
        return value.split()  # the pattern has made sure of their number

    def validate(self, data):
        # A rule across two parameters, which JSON Schema cannot state for a query: the
        # schema says it in words (the help texts above).
        for low, high in (("published_after", "published_before"), ("event_after", "event_before")):
            if low in data and high in data and data[low] > data[high]:
                raise serializers.ValidationError({low: f"Must not be later than {high}."})
        return data


# The parameters that change the list: the page cache keeps each combination apart.
LIST_PARAMETERS = (*ArticleFilters().fields, "cursor", "page_size")


def filter_articles(articles, data, topic=None, author=None):
    """``articles`` narrowed by the checked filters ``data``; ``topic`` and ``author``
    are those the view looked up for the ``tag`` and ``author`` filters."""
    if topic is not None:
        articles = articles.filter(tagged(topic.pk, topic.article_count))
    if author is not None:
        articles = articles.filter(authorships__author=author)
    for name, lookup in (
        ("published_after", "published_at__gte"),
        ("published_before", "published_at__lt"),
        ("event_after", "event_date__gte"),
        ("event_before", "event_date__lte"),
        ("updated_since", "updated_at__gte"),
    ):
        if name in data:
            articles = articles.filter(**{lookup: data[name]})
    if "q" in data:
        # Each word in the title, summary or text. A scan, not the search app's index:
        # the API sits beside search, not above it (README, "Map of the code").
        articles = articles.filter(
            reduce(
                operator.and_,
                (
                    Q(title__icontains=word)
                    | Q(summary__icontains=word)
                    | Q(body_text__icontains=word)
                    for word in data["q"]
                ),
            )
        )
    return articles


class ArticleCursor(CursorPagination):
    """Opaque cursors on the list's own order: a new publication never shifts a page the
    client is reading (unlike page numbers)."""

    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100

    def get_ordering(self, request, queryset, view):
        return ORDERINGS[view.filters["ordering"]]

    def get_page_size(self, request):
        # DRF reads a page_size that is no number as the default one, and one over the
        # maximum as the maximum: a 400 for each, as docs/api.md says.
        size = whole_number(request.query_params, self.page_size_query_param)
        if size is not None and size > self.max_page_size:
            raise serializers.ValidationError(
                {self.page_size_query_param: [f"At most {self.max_page_size}."]}
            )
        return self.page_size if size is None else size

    def get_schema_operation_parameters(self, view):
        cursor, size = super().get_schema_operation_parameters(view)
        cursor["description"] = (
            "Opaque: the cursor of a next or previous link of this list, with the same "
            "ordering. Any other value is a 400 naming cursor."
        )
        # A format of our own, for tools that can draw real cursors (schemathesis,
        # tests/api/schemathesis_hooks.py); any other tool reads it as a plain string.
        cursor["schema"].update(format="cursor", minLength=1)
        size["description"] = (
            f"Articles a page: {self.page_size} by default, at most {self.max_page_size}."
        )
        size["schema"].update(minimum=1, maximum=self.max_page_size, default=self.page_size)
        return [cursor, size]

    def encode_cursor(self, cursor):
        # As DRF writes its tokens, signed (api.cursors).
        tokens = {}
        if cursor.offset != 0:
            tokens["o"] = str(cursor.offset)
        if cursor.reverse:
            tokens["r"] = "1"
        if cursor.position is not None:
            tokens["p"] = cursor.position
        # Its ordering: a position in one order is no position in another.
        tokens["s"] = self.ordering_name
        signed = cursors.sign(urlencode(tokens))
        return replace_query_param(self.base_url, self.cursor_query_param, signed)

    def decode_cursor(self, request):
        """The Cursor of the request's ``cursor``, if this API signed it: anything else
        is DRF's NotFound, which paginate_queryset answers as a 400."""
        encoded = request.query_params.get(self.cursor_query_param)
        if encoded is None:
            return None
        try:
            tokens = parse_qs(cursors.unsign(encoded), keep_blank_values=True)
        except cursors.BadCursor:
            raise NotFound(self.invalid_cursor_message) from None
        # Cursors made before they named their ordering have none.
        if tokens.get("s", [self.ordering_name])[0] != self.ordering_name:
            raise NotFound(self.invalid_cursor_message)
        offset = min(int(tokens.get("o", ["0"])[0]), self.offset_cutoff)
        reverse = tokens.get("r", ["0"])[0] == "1"
        return Cursor(offset=offset, reverse=reverse, position=tokens.get("p", [None])[0])

    def paginate_queryset(self, queryset, request, view=None):
        """A cursor this API did not sign (NotFound from decode_cursor) is a bad value
        of ``cursor``: a 400 naming it. So is a signed one whose position the ordering's
        field refuses, which only someone holding the key could make (a ValidationError
        of the model field; a forged ``p=x`` was a 500 before cursors were signed)."""
        self.ordering_name = view.filters["ordering"]
        try:
            return super().paginate_queryset(queryset, request, view)
        except (NotFound, DjangoValidationError, ValueError, TypeError, OverflowError) as error:
            message = [self.invalid_cursor_message]
            raise serializers.ValidationError({"cursor": message}) from error
