"""The articles list's sidebar filters."""

from django.contrib import admin

from news.models import Tag
from news.topics import biggest_topics
from people.models import Author

# What readers see of an article without authors.
NO_BYLINE = "Skillo editorial"


class TopicFilter(admin.SimpleListFilter):
    """The biggest topics, and the one chosen if it is not among them. Every topic, as
    Django's filter for a relation lists them, made the sidebar 5,000 links at 5,000
    topics (half a second of every list page at 100,000 articles). The parameter is
    Django's, so earlier links to a topic's articles still work."""

    title = "topic"
    parameter_name = "tags__id__exact"
    SHOWN = 20

    def lookups(self, request, model_admin):
        topics = [(str(tag.pk), tag.name) for tag in biggest_topics(self.SHOWN)]
        chosen = self.value()
        if chosen and chosen.isdigit() and chosen not in dict(topics):
            topics += Tag.objects.filter(pk=chosen).values_list("pk", "name")
        return [(str(pk), name) for pk, name in topics]

    def queryset(self, request, queryset):
        # Not a topic's id: Django's list answers with its "?e=1" error, as for any filter.
        return queryset.filter(tags__id=int(self.value())) if self.value() else queryset


class AuthorFilter(admin.SimpleListFilter):
    """By byline: each author, and the articles signed by none ("Skillo editorial")."""

    title = "author"
    parameter_name = "author"
    NONE = "none"

    def lookups(self, request, model_admin):
        return [
            *(
                (str(pk), name)
                for pk, name in Author.objects.order_by("name").values_list("pk", "name")
            ),
            (self.NONE, NO_BYLINE),
        ]

    def queryset(self, request, queryset):
        value = self.value()
        if value == self.NONE:
            return queryset.filter(authorships__isnull=True)
        if value and value.isdigit():
            return queryset.filter(authorships__author=int(value))
        return queryset
