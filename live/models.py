"""Live coverage: an article whose story goes on, told in short timestamped entries.

The article stays an article (title, summary, topics, sources, byline, dates, the review
workflow). Its coverage holds what only a live story has: its state (upcoming, live,
ended), the editors' "What we know" summary, whether writers' entries wait for an
editor, and a *version* that moves with every change readers can see, so that a reader's
page can ask what changed since the version it shows (live.views.updates).
"""

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from news.models import Article, public_rule
from news.rendering import html_to_text, render_markdown
from news.rules import no_control_characters

# An entry is a paragraph or three; longer news is an article of its own.
MAX_ENTRY_CHARS = 5000
MAX_WHAT_WE_KNOW_CHARS = 5000


def entry_within_limit(value):
    if len(value) > MAX_ENTRY_CHARS:
        raise ValidationError(
            f"An entry can be at most {MAX_ENTRY_CHARS:,} characters long; this one has "
            f"{len(value):,}. Write the rest as an article and link to it.",
            code="max_length",
        )


def summary_within_limit(value):
    if len(value) > MAX_WHAT_WE_KNOW_CHARS:
        raise ValidationError(
            f"“What we know” can be at most {MAX_WHAT_WE_KNOW_CHARS:,} characters long; "
            f"this one has {len(value):,}.",
            code="max_length",
        )


def public_story(prefix):
    """The public rule (news.models.public_rule) for the article at ``prefix``."""
    return {f"{prefix}__{lookup}": value for lookup, value in public_rule().items()}


class CoverageQuerySet(models.QuerySet):
    def published(self):
        """Coverage of stories readers may see."""
        return self.filter(**public_story("article"))


class LiveCoverage(models.Model):
    class State(models.TextChoices):
        UPCOMING = "upcoming", "Upcoming"
        LIVE = "live", "Live"
        ENDED = "ended", "Ended"

    article = models.OneToOneField(
        Article, on_delete=models.CASCADE, related_name="live_coverage", primary_key=True
    )
    state = models.CharField(
        max_length=10, choices=State.choices, default=State.UPCOMING, editable=False
    )
    starts_at = models.DateTimeField(
        "starts",
        null=True,
        blank=True,
        help_text="Upcoming: when coverage is to start, as readers are told. Set to the "
        "moment it starts when an editor starts it.",
    )
    ended_at = models.DateTimeField("ended", null=True, blank=True, editable=False)
    summary = models.TextField(
        "what we know",
        blank=True,
        validators=[no_control_characters, summary_within_limit],
        help_text="Markdown, kept up to date at the top of the story: the facts so far.",
    )
    summary_html = models.TextField(editable=False, default="")
    approval_required = models.BooleanField(
        "writers' entries wait for an editor",
        default=False,
        help_text="On: a writer's entry is shown once an editor approves it. Off: at once.",
    )
    # Moved on by every change readers can see (an entry posted, edited, approved or
    # deleted; the summary; the state): readers' pages ask what changed since theirs.
    version = models.PositiveIntegerField(default=1, editable=False)
    # The version at which the summary last changed: open pages replace theirs then.
    summary_version = models.PositiveIntegerField(default=1, editable=False)
    changed_at = models.DateTimeField(auto_now=True)

    objects = CoverageQuerySet.as_manager()

    class Meta:
        verbose_name = "live coverage"
        verbose_name_plural = "live coverage"

    def __str__(self):
        return f"Live coverage of “{self.article}”"

    def save(self, *args, **kwargs):
        self.summary_html = render_markdown(self.summary, typed_tags=True)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return self.article.get_absolute_url()

    @property
    def is_live(self):
        return self.state == self.State.LIVE

    @property
    def has_ended(self):
        return self.state == self.State.ENDED


class EntryQuerySet(models.QuerySet):
    def published(self):
        """What readers may see: approved entries of public stories."""
        return self.filter(status=Entry.Status.PUBLISHED, **public_story("coverage__article"))

    def for_page(self):
        return self.published().prefetch_related("authors").order_by("-posted_at", "-pk")


# What survives sanitising with an id, or links to one (footnotes, headings): made unique
# per entry when shown, since a page holds many entries' "fn-1".
_ANCHOR = re.compile(r'(id="|href="#)([^"]+)"')


class Entry(models.Model):
    class Status(models.TextChoices):
        PUBLISHED = "published", "Published"
        AWAITING = "awaiting", "Awaiting approval"

    coverage = models.ForeignKey(LiveCoverage, on_delete=models.CASCADE, related_name="entries")
    posted_at = models.DateTimeField("time", default=timezone.now)
    headline = models.CharField(
        max_length=200, blank=True, validators=[no_control_characters], help_text="Optional."
    )
    body = models.TextField(
        validators=[no_control_characters, entry_within_limit],
        help_text="Markdown, as in articles: links, images from the library (image:KEY), "
        "a link alone on its line for a card.",
    )
    body_html = models.TextField(editable=False, default="")
    body_text = models.TextField(editable=False, default="")
    key_event = models.BooleanField(
        "key event", default=False, help_text="Listed at the top; sent to the fediverse."
    )
    authors = models.ManyToManyField(
        "people.Author", blank=True, related_name="live_entries", help_text="Optional."
    )
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PUBLISHED)
    posted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="+",
    )
    # Set by an edit after posting: readers see "Updated" with it.
    edited_at = models.DateTimeField("updated", null=True, blank=True, editable=False)
    # The coverage's version when the entry last changed (LiveCoverage.version).
    version = models.PositiveIntegerField(default=0, editable=False)

    objects = EntryQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "entries"
        ordering = ["-posted_at", "-pk"]
        get_latest_by = "posted_at"
        indexes = [
            # A story's page: its entries newest first, and the updates since a version.
            models.Index(
                fields=["coverage", "status", "-posted_at", "-id"], name="entry_page_order"
            ),
            models.Index(fields=["coverage", "version"], name="entry_by_version"),
        ]

    def __str__(self):
        return self.headline or self.body_text[:60] or f"Entry {self.pk}"

    def save(self, *args, **kwargs):
        self.body_html = render_markdown(self.body, typed_tags=True)
        self.body_text = html_to_text(self.body_html)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return f"{self.coverage.get_absolute_url()}#{self.anchor}"

    @property
    def anchor(self):
        return f"entry-{self.pk}"

    @property
    def anchored_html(self):
        """The body's HTML with its ids (footnotes, headings) and links to them prefixed
        with the entry's anchor, unique on a page of entries."""
        return _ANCHOR.sub(lambda m: f'{m[1]}{self.anchor}-{m[2]}"', self.body_html)


class RemovedEntry(models.Model):
    """An entry deleted: only its number, so that open pages remove it too. Readers see
    nothing of it."""

    coverage = models.ForeignKey(LiveCoverage, on_delete=models.CASCADE, related_name="+")
    entry_id = models.PositiveIntegerField()
    version = models.PositiveIntegerField()

    class Meta:
        indexes = [models.Index(fields=["coverage", "version"], name="removed_entry_by_version")]

    def __str__(self):
        return f"Entry {self.entry_id} removed"
