"""The article list's filters and its cursor, checked like any input: a bad value is a
400 naming the parameter, never an empty list that looks like an answer."""

import operator
from functools import reduce

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db.models import Q
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination

from news.models import tagged

ORDERINGS = {
    "-published": ("-published_at", "-pk"),
    "published": ("published_at", "pk"),
    "-event_date": ("-event_date", "-published_at", "-pk"),
    "event_date": ("event_date", "published_at", "pk"),
}
MAX_QUERY_WORDS = 10


class ArticleFilters(serializers.Serializer):
    tag = serializers.SlugField(required=False, help_text="A topic's slug.")
    author = serializers.SlugField(required=False, help_text="An author's slug.")
    published_after = serializers.DateTimeField(
        required=False, help_text="Published at or after (ISO 8601)."
    )
    published_before = serializers.DateTimeField(
        required=False, help_text="Published before (ISO 8601)."
    )
    event_after = serializers.DateField(required=False, help_text="Event on or after.")
    event_before = serializers.DateField(required=False, help_text="Event on or before.")
    updated_since = serializers.DateTimeField(
        required=False,
        help_text="Changed at or after (ISO 8601): for syncing a copy. Deletions and "
        "unpublications are not listed: subscribe to webhooks for those.",
    )
    q = serializers.CharField(
        required=False, max_length=200, help_text="Words, all of which must appear."
    )
    ordering = serializers.ChoiceField(
        choices=list(ORDERINGS), required=False, default="-published"
    )

    def validate_q(self, value):
        words = value.split()
        if not words:
            raise serializers.ValidationError("Give at least one word.")
        if len(words) > MAX_QUERY_WORDS:
            raise serializers.ValidationError(f"At most {MAX_QUERY_WORDS} words.")
        return words

    def validate(self, data):
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

    def paginate_queryset(self, queryset, request, view=None):
        """A cursor that does not decode (NotFound, DRF's own) or holds a position the
        ordering's field refuses (a forged ``p=x``: a ValidationError of the model
        field, a 500 before) is a bad value of ``cursor``: a 400 naming it."""
        try:
            return super().paginate_queryset(queryset, request, view)
        except (NotFound, DjangoValidationError, ValueError, TypeError, OverflowError) as error:
            message = [self.invalid_cursor_message]
            raise serializers.ValidationError({"cursor": message}) from error
