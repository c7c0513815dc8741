"""Skillo on the fediverse (ActivityPub): its own actors and their keys, the remote
actors that follow them, and what was sent to whom.

Skillo's actors are the site, each author and each topic. An actor's row (and its RSA
key pair) is made when the actor is first needed: a WebFinger lookup, its document, a
follow. Their ids hang on the author's or the tag's primary key, not on a slug, so a
renamed author or topic keeps its followers."""

from django.db import models
from django.db.models import Q

from news.models import Tag
from people.models import Author


class LocalActor(models.Model):
    class Kind(models.TextChoices):
        SITE = "site"
        AUTHOR = "author"
        TOPIC = "topic"

    kind = models.CharField(max_length=10, choices=Kind.choices)
    author = models.OneToOneField(
        Author, null=True, blank=True, on_delete=models.CASCADE, related_name="fediverse_actor"
    )
    tag = models.OneToOneField(
        Tag, null=True, blank=True, on_delete=models.CASCADE, related_name="fediverse_actor"
    )
    public_key_pem = models.TextField(editable=False)
    # Never shown, in no page or API: only the signing code reads it (fediverse.signatures),
    # and the whole-site backup carries it (fediverse.jsonl), so a moved site signs as before.
    private_key_pem = models.TextField(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "Skillo actor"
        constraints = [
            models.UniqueConstraint(
                fields=["kind"], condition=Q(kind="site"), name="fediverse_one_site_actor"
            ),
            models.CheckConstraint(
                condition=(
                    Q(kind="site", author__isnull=True, tag__isnull=True)
                    | Q(kind="author", author__isnull=False, tag__isnull=True)
                    | Q(kind="topic", author__isnull=True, tag__isnull=False)
                ),
                name="fediverse_actor_of_its_kind",
            ),
        ]

    def __str__(self):
        if self.kind == self.Kind.SITE:
            return "the site"
        return f"{self.kind} {self.author_id or self.tag_id}"


class RemoteActor(models.Model):
    """Someone on another server, as their actor document said when last fetched."""

    uri = models.URLField(max_length=500, unique=True)
    domain = models.CharField(max_length=255, db_index=True)
    inbox = models.URLField(max_length=500)
    shared_inbox = models.URLField(max_length=500, blank=True)
    key_id = models.URLField(max_length=500, blank=True, db_index=True)
    public_key_pem = models.TextField(blank=True)
    username = models.CharField(max_length=200, blank=True)
    name = models.CharField(max_length=200, blank=True)
    url = models.URLField(max_length=500, blank=True)
    fetched_at = models.DateTimeField()
    blocked = models.BooleanField(
        default=False, help_text="Refuse everything from this actor and send it nothing."
    )

    class Meta:
        verbose_name = "remote actor"

    def __str__(self):
        return f"@{self.username}@{self.domain}" if self.username else self.uri

    @property
    def delivery_inbox(self):
        return self.shared_inbox or self.inbox


class Follower(models.Model):
    local = models.ForeignKey(LocalActor, on_delete=models.CASCADE, related_name="followers")
    remote = models.ForeignKey(RemoteActor, on_delete=models.CASCADE, related_name="follows")
    # The Follow activity's id: an Undo names it.
    follow_uri = models.URLField(max_length=500)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["local", "remote"], name="fediverse_follow_once")
        ]

    def __str__(self):
        return f"{self.remote} follows {self.local}"


class BlockedDomain(models.Model):
    domain = models.CharField(
        max_length=255,
        unique=True,
        help_text="An instance's host name, e.g. spam.example; its subdomains are blocked too.",
    )
    note = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = "blocked instance"

    def __str__(self):
        return self.domain

    def save(self, *args, **kwargs):
        self.domain = self.domain.strip().lower().rstrip(".")
        super().save(*args, **kwargs)


class ReceivedSignature(models.Model):
    """A signature accepted on the inbox, kept while its Date is in the window: the same
    signed request sent again is a replay and is refused."""

    digest = models.CharField(max_length=64, unique=True)
    received_at = models.DateTimeField(db_index=True)

    def __str__(self):
        return self.digest


class Instance(models.Model):
    """A remote server Skillo delivers to, and how that went lately."""

    domain = models.CharField(max_length=255, unique=True)
    failures = models.PositiveIntegerField(default=0)
    failing_since = models.DateTimeField(null=True, blank=True)
    # Deliveries wait until then after repeated failures (backed off for days).
    retry_after = models.DateTimeField(null=True, blank=True)
    # Set once it failed for long enough: its followers are kept, it is no longer tried.
    given_up_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return self.domain


class Delivery(models.Model):
    """One activity to one inbox, sent by the worker (fediverse.delivery)."""

    class State(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    actor = models.ForeignKey(LocalActor, on_delete=models.CASCADE, related_name="deliveries")
    inbox = models.URLField(max_length=500)
    domain = models.CharField(max_length=255)
    activity = models.JSONField()
    # A scheduled publication's Create is sent only if the article is public by then.
    article_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    due_at = models.DateTimeField()
    last_error = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name_plural = "deliveries"
        indexes = [models.Index(fields=["state", "due_at"], name="fediverse_delivery_due")]

    def __str__(self):
        return f"{self.activity.get('type')} to {self.inbox}"


class Publication(models.Model):
    """An article as sent to one inbox, and by which actor: its Update and Delete go
    to the same inbox from the same actor (a server accepts those from the sender only)."""

    article_id = models.BigIntegerField(db_index=True)
    inbox = models.URLField(max_length=500)
    actor = models.ForeignKey(LocalActor, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["article_id", "inbox"], name="fediverse_sent_once")
        ]

    def __str__(self):
        return f"article {self.article_id} to {self.inbox}"


class ArticleState(models.Model):
    """What the fediverse was last told of an article: a Delete makes its object URL
    answer 410, and an edit that changes nothing they show sends no Update."""

    article_id = models.BigIntegerField(primary_key=True)
    digest = models.CharField(max_length=64, blank=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    likes = models.PositiveIntegerField(default=0)
    boosts = models.PositiveIntegerField(default=0)

    def __str__(self):
        return f"article {self.article_id}"


class Reaction(models.Model):
    """A like or a boost of an article by one remote actor, kept as a keyed hash of the
    actor's id (fediverse.replies.actor_hash), never the id itself: enough to count each
    actor once, and for an Undo to take off its own actor's and no one else's. The
    counts shown are ArticleState's, changed in the same transaction as these rows."""

    class Kind(models.TextChoices):
        LIKE = "Like"
        ANNOUNCE = "Announce"

    article_id = models.BigIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices)
    actor = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["article_id", "kind", "actor"], name="fediverse_one_reaction_per_actor"
            )
        ]

    def __str__(self):
        return f"{self.kind} of article {self.article_id}"


class Reply(models.Model):
    """A post from the fediverse answering an article, held until a moderator approves
    it; only approved replies are shown under the article."""

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for moderation"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    uri = models.URLField("address", max_length=500, unique=True)
    article = models.ForeignKey(
        "news.Article", on_delete=models.CASCADE, related_name="fediverse_replies"
    )
    remote = models.ForeignKey(RemoteActor, on_delete=models.CASCADE, related_name="replies")
    # Sanitised like editors' Markdown (fediverse.replies.sanitise) when it is received.
    content = models.TextField()
    url = models.URLField("original", max_length=500, blank=True)
    published_at = models.DateTimeField()
    updated_at = models.DateTimeField(null=True, blank=True)
    received_at = models.DateTimeField(auto_now_add=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)

    class Meta:
        verbose_name_plural = "replies"
        ordering = ["published_at", "pk"]
        indexes = [
            models.Index(fields=["article", "state", "published_at"], name="fediverse_reply_shown")
        ]

    def __str__(self):
        return f"{self.remote} on {self.article_id}"


class PendingActivity(models.Model):
    """A signed activity whose signing key was not known and could not be fetched within
    the web request's budget: answered 202 at once, kept here, and checked by a
    background task (fediverse.inbox.verify_later) before anything it says takes effect.
    The request is kept as its signature covers it."""

    fingerprint = models.CharField(max_length=64, unique=True)
    domain = models.CharField(max_length=255, db_index=True)
    received_at = models.DateTimeField()
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=2000)
    host = models.CharField(max_length=255)
    url = models.CharField(max_length=2300)
    headers = models.JSONField()
    body = models.BinaryField()

    def __str__(self):
        return f"{self.domain} at {self.received_at:%Y-%m-%d %H:%M:%S}"
