"""Readers who get Skillo by e-mail: who they are, what they chose, and the sign-ups
counted against mail bombing through the form."""

import hashlib
import hmac
import secrets

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone

from news.models import Tag
from people.models import Author


def new_key():
    return secrets.token_urlsafe(18)


def digest(value):
    """A keyed hash of an address or a client: what rate limits and the suppression list
    keep instead of the thing itself."""
    return hmac.new(
        settings.SECRET_KEY.encode(), value.strip().lower().encode(), hashlib.sha256
    ).hexdigest()


class SubscriberQuerySet(models.QuerySet):
    def with_address(self, email):
        return self.filter(email__iexact=email.strip())


class Subscriber(models.Model):
    class State(models.TextChoices):
        PENDING = "pending", "Waiting for confirmation"
        ACTIVE = "active", "Active"
        PAUSED = "paused", "Paused"
        UNSUBSCRIBED = "unsubscribed", "Unsubscribed"
        BOUNCED = "bounced", "Bounced"
        COMPLAINED = "complained", "Marked as spam"

    class Frequency(models.TextChoices):
        EACH = "each", "Each story as it is published"
        DAILY = "daily", "A daily digest"
        WEEKLY = "weekly", "A weekly digest"

    email = models.EmailField("e-mail address", max_length=254)
    state = models.CharField(max_length=20, choices=State.choices, default=State.PENDING)
    frequency = models.CharField(max_length=10, choices=Frequency.choices, default=Frequency.EACH)
    everything = models.BooleanField(
        "the whole site",
        default=True,
        help_text="Every story; otherwise the chosen topics and authors.",
    )
    topics = models.ManyToManyField(Tag, blank=True, related_name="+")
    authors = models.ManyToManyField(Author, blank=True, related_name="+")
    corrections = models.BooleanField(
        "tell me about corrections",
        default=True,
        help_text="A short follow-up when a story they were sent is corrected.",
    )
    # In every signed link (newsletters.links): a new key makes every link sent before
    # stop working.
    key = models.CharField(max_length=32, default=new_key, editable=False)
    # The confirmation link in flight; emptied once followed, so that it works once.
    confirm_nonce = models.CharField(max_length=32, blank=True, editable=False)
    source = models.CharField(
        max_length=100,
        default="form",
        help_text="Where the consent came from: the form, an import.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    confirmed_at = models.DateTimeField(null=True, blank=True, editable=False)
    left_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Temporary failures in a row (a full mailbox): NEWSLETTER_SOFT_BOUNCES of them make
    # a bounce; a delivery in between starts the count again.
    soft_bounces = models.PositiveSmallIntegerField(default=0, editable=False)

    objects = SubscriberQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(Lower("email"), name="one_subscriber_per_address"),
        ]

    def __str__(self):
        return self.email

    @property
    def receives_mail(self):
        return self.state == self.State.ACTIVE

    @property
    def suppressed(self):
        """Never mailed again, whatever the form is sent: the address bounced or its
        owner marked Skillo as spam."""
        return self.state in (self.State.BOUNCED, self.State.COMPLAINED)

    def start_confirmation(self):
        """A new confirmation link (the one before stops working); saved by the caller."""
        self.confirm_nonce = secrets.token_urlsafe(12)
        return self.confirm_nonce

    def confirm(self, nonce):
        """Follow the confirmation link of ``nonce``: True for the one request that
        confirms; False if it was followed already (a double click), replaced, or the
        address left since this row was read. A conditional update, so that the
        confirmation (and its time, the consent's record) is written once."""
        confirmed = (
            Subscriber.objects.filter(pk=self.pk, state=self.State.PENDING, confirm_nonce=nonce)
            .exclude(confirm_nonce="")
            .update(
                state=self.State.ACTIVE, confirm_nonce="", confirmed_at=timezone.now(), left_at=None
            )
        )
        self.refresh_from_db()
        return bool(confirmed)

    def leave(self):
        if self.state in (self.State.UNSUBSCRIBED, self.State.BOUNCED, self.State.COMPLAINED):
            return False
        self.state = self.State.UNSUBSCRIBED
        self.left_at = timezone.now()
        self.confirm_nonce = ""
        self.save(update_fields=["state", "left_at", "confirm_nonce"])
        return True


class IssueQuerySet(models.QuerySet):
    def sent(self):
        """What the archive shows: issues that went out, whose story is still public."""
        from news.models import public_rule

        public = {f"article__{field}": value for field, value in public_rule().items()}
        return (
            self.filter(state=Issue.State.SENT)
            .filter(models.Q(article__isnull=True) | models.Q(**public))
            .order_by("-sent_at", "-pk")
        )


class Issue(models.Model):
    """One newsletter mailing: a story as it is published (kind "story"), a digest or a
    one-off. A story has one issue for ever, so a story published again after it was
    unpublished is not sent again."""

    class Kind(models.TextChoices):
        STORY = "story", "A story as it is published"
        DAILY = "daily", "Daily digest"
        WEEKLY = "weekly", "Weekly digest"
        ONE_OFF = "one-off", "One-off"
        CORRECTION = "correction", "A correction to a story sent"
        LIVE_ENDED = "live-ended", "A live story's end, with what we know"

    class State(models.TextChoices):
        DRAFT = "draft", "Draft"
        PLANNED = "planned", "Planned"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        CANCELLED = "cancelled", "Cancelled"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PLANNED)
    article = models.ForeignKey(
        "news.Article", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # A correction follow-up: to those who were sent the story, if they asked for it.
    correction = models.ForeignKey(
        "news.Correction", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    subject = models.CharField(max_length=300)
    intro = models.TextField(
        blank=True, help_text="A few words from the editors above the stories."
    )
    # A one-off's stories, as the editor chose them.
    articles = models.ManyToManyField(
        "news.Article",
        blank=True,
        related_name="+",
        help_text="The stories it presents (published ones only are sent).",
    )
    # A digest's stories: those that went public in [period_start, period_end).
    period_start = models.DateTimeField(null=True, blank=True)
    period_end = models.DateTimeField(null=True, blank=True)
    due_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    recipients = models.PositiveIntegerField(default=0, editable=False)
    sent_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = IssueQuerySet.as_manager()

    class Meta:
        ordering = ["-due_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["article"],
                condition=models.Q(kind="story"),
                name="one_story_issue_per_article",
            ),
            models.UniqueConstraint(
                fields=["kind", "period_end"],
                condition=models.Q(kind__in=["daily", "weekly"]),
                name="one_digest_per_period",
            ),
            models.UniqueConstraint(
                fields=["correction"],
                condition=models.Q(kind="correction"),
                name="one_follow_up_per_correction",
            ),
            # Coverage ended, resumed and ended again: its summary is sent the first time.
            models.UniqueConstraint(
                fields=["article"],
                condition=models.Q(kind="live-ended"),
                name="one_ending_per_live_story",
            ),
        ]

    def __str__(self):
        return self.subject

    def get_absolute_url(self):
        from django.urls import reverse

        return reverse("newsletters:issue", args=[self.pk])

    @property
    def is_digest(self):
        return self.kind in (self.Kind.DAILY, self.Kind.WEEKLY)

    @property
    def lists_stories(self):
        """A digest or a one-off: a list of stories, not one story."""
        return self.is_digest or self.kind == self.Kind.ONE_OFF


class Delivery(models.Model):
    """One e-mail of an issue to one subscriber: at most one per pair (the constraint),
    marked sent in the same instant the mail server is told to take it
    (newsletters.sending)."""

    class State(models.TextChoices):
        QUEUED = "queued", "Queued"
        SENT = "sent", "Sent"
        DEFERRED = "deferred", "Deferred (the server asked to try later)"
        FAILED = "failed", "Refused by the server"
        SKIPPED = "skipped", "Skipped (left or paused before it was sent)"

    issue = models.ForeignKey(Issue, on_delete=models.CASCADE, related_name="deliveries")
    subscriber = models.ForeignKey(Subscriber, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    sent_at = models.DateTimeField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["issue", "subscriber"], name="one_mail_per_issue")
        ]
        indexes = [models.Index(fields=["issue", "state"])]
        verbose_name_plural = "deliveries"

    def __str__(self):
        return f"{self.issue} to {self.subscriber}"


class Suppressed(models.Model):
    """An address never to be mailed again, by a keyed hash only (newsletters.models.
    digest): it bounced, its owner marked Skillo as spam, or asked for their data to be
    erased (GDPR art. 17), after which nothing but this hash is left of them."""

    class Reason(models.TextChoices):
        BOUNCED = "bounced", "Bounced"
        COMPLAINED = "complained", "Marked as spam"
        ERASED = "erased", "Data erased on request"

    address = models.CharField(max_length=64, unique=True)
    reason = models.CharField(max_length=12, choices=Reason.choices)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "suppressed addresses"

    def __str__(self):
        return f"{self.get_reason_display()} ({self.at:%Y-%m-%d})"
