"""API tokens for editors' tools, and webhooks: where to send what, and every attempt.

Tokens are stored hashed (only their first characters in clear, to find them); a
webhook's secret is stored as it is, since every delivery is signed with it.
"""

import base64
import hashlib
import secrets
import uuid
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

TOKEN_START = "skl_"
# How a token's holder finds it again: the characters after TOKEN_START.
PREFIX_LENGTH = 8


class Scope(models.TextChoices):
    READ_DRAFTS = "read:drafts", "Read drafts and scheduled articles"


def hash_token(token):
    # SHA-256, not a password hash: a token is 256 random bits, which no one can guess
    # from its hash, and a slow hash would slow every API request down.
    return hashlib.sha256(token.encode()).hexdigest()


class ApiTokenQuerySet(models.QuerySet):
    def usable(self):
        now = timezone.now()
        return self.filter(revoked_at__isnull=True, user__is_active=True).filter(
            models.Q(expires_at__isnull=True) | models.Q(expires_at__gt=now)
        )


class ApiToken(models.Model):
    """A key an editors' tool sends as ``Authorization: Bearer skl_...``. Without a scope
    it reads what the public reads (with a higher rate limit); ``read:drafts`` adds
    drafts and scheduled articles."""

    name = models.CharField(max_length=100, help_text="What uses it, e.g. “Newsletter tool”.")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="api_tokens",
        help_text="The account it acts for: a deactivated account's tokens stop working.",
    )
    prefix = models.CharField(max_length=PREFIX_LENGTH, unique=True, editable=False)
    hashed = models.CharField(max_length=64, editable=False)
    scopes = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(null=True, blank=True, help_text="Empty: never.")
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The key of the admin's add form that made it (api.admin.ApiTokenForm): one token
    # per form sent, however often it is sent (a double click, a reload).
    form_key = models.CharField(max_length=32, blank=True)

    objects = ApiTokenQuerySet.as_manager()

    class Meta:
        verbose_name = "API token"
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["form_key"],
                condition=~models.Q(form_key=""),
                name="api_token_once_per_form",
                violation_error_message=(
                    "This form was sent already: its token was made then, and shown once on "
                    "the page that answered. If it was not copied, revoke it and make a new one."
                ),
            )
        ]

    def __str__(self):
        return f"{self.name} ({TOKEN_START}{self.prefix}…)"

    def clean(self):
        unknown = set(self.scopes) - set(Scope.values)
        if unknown:
            raise ValidationError({"scopes": f"Unknown scopes: {', '.join(sorted(unknown))}."})

    def issue(self):
        """Give the token a new secret and return it: shown once, never stored."""
        self.prefix = secrets.token_hex(PREFIX_LENGTH // 2)
        token = f"{TOKEN_START}{self.prefix}_{secrets.token_urlsafe(32)}"
        self.hashed = hash_token(token)
        return token

    def has_scope(self, scope):
        return scope in self.scopes


class Event(models.TextChoices):
    PUBLISHED = "article.published", "An article was published"
    UPDATED = "article.updated", "A published article changed"
    UNPUBLISHED = "article.unpublished", "A published article was unpublished"
    DELETED = "article.deleted", "A published article was deleted"
    CORRECTION = "article.correction", "A correction was added to an article"


class WebhookHost(models.Model):
    """A host webhooks may be sent to; an admin allows each one."""

    host = models.CharField(
        max_length=253,
        unique=True,
        help_text="A host name exactly as in the URL, e.g. hooks.partner.example.",
    )
    note = models.CharField(max_length=200, blank=True, help_text="Whose it is.")

    class Meta:
        verbose_name = "allowed webhook host"
        ordering = ["host"]

    def __str__(self):
        return self.host

    def save(self, *args, **kwargs):
        self.host = self.host.strip().lower().rstrip(".")
        super().save(*args, **kwargs)


SECRET_START = "whsec_"
# How long a replaced secret still signs deliveries beside the new one: the time a
# receiver has to switch (Standard Webhooks' zero-downtime rotation).
SECRET_OVERLAP = timedelta(days=7)


def new_secret():
    # Standard Webhooks' form: "whsec_" and the base64 of 24 to 64 random bytes.
    return SECRET_START + base64.b64encode(secrets.token_bytes(32)).decode()


def signing_key(secret):
    """The HMAC key of a ``whsec_`` secret: the bytes its base64 stands for."""
    return base64.b64decode(secret.removeprefix(SECRET_START))


class Webhook(models.Model):
    name = models.CharField(max_length=100)
    url = models.URLField(
        "URL", max_length=500, help_text="http or https, on a host allowed in “Allowed hosts”."
    )
    events = models.JSONField(default=list)
    secret = models.CharField(
        max_length=200,
        default=new_secret,
        editable=False,
        help_text="Signs each delivery (Standard Webhooks, HMAC-SHA256): give it to the "
        "receiver, which verifies with it.",
    )
    # The secret before the last rotation, still signing until previous_secret_until.
    previous_secret = models.CharField(max_length=200, blank=True, editable=False)
    previous_secret_until = models.DateTimeField(
        "previous secret signs until",
        null=True,
        blank=True,
        help_text="After a rotation, deliveries carry a signature with the old secret too "
        "until then, while the receiver switches. Empty it to stop at once.",
    )
    active = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name

    def clean(self):
        errors = {}
        problem = url_problem(self.url)
        if problem:
            errors["url"] = problem
        unknown = set(self.events) - set(Event.values)
        if unknown:
            errors["events"] = f"Unknown events: {', '.join(sorted(unknown))}."
        elif not self.events:
            errors["events"] = "Choose at least one event."
        if errors:
            raise ValidationError(errors)

    def rotate_secret(self, now):
        """A new secret; the old one still signs beside it for SECRET_OVERLAP."""
        self.previous_secret, self.secret = self.secret, new_secret()
        self.previous_secret_until = now + SECRET_OVERLAP

    def signing_secrets(self, now):
        """The secrets a delivery is signed with at ``now``, the current one first."""
        until = self.previous_secret_until
        if self.previous_secret and until and now < until:
            return [self.secret, self.previous_secret]
        return [self.secret]


def url_problem(url):
    """Why a webhook may not be sent to ``url``, or None (the address it resolves to is
    checked again at each delivery: api.delivery)."""
    parts = urlsplit(url or "")
    if parts.scheme not in {"http", "https"}:
        return "Only http and https URLs."
    if parts.username or parts.password:
        return "No user name or password in the URL: the signature authenticates."
    host = (parts.hostname or "").rstrip(".")
    if not WebhookHost.objects.filter(host=host).exists():
        return (
            f"The host {host or '(none)'} is not allowed: an admin adds it under “Allowed hosts”."
        )
    return None


class Delivery(models.Model):
    """One event for one webhook, tried until it is delivered or a day has passed."""

    class State(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed (gave up)"
        CANCELLED = "cancelled", "Cancelled"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # Its webhook-id, the same on every attempt so that receivers can drop duplicates;
    # random rather than the row's id, which a database restored from a backup gives out
    # again.
    message_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event = models.CharField(max_length=30, choices=Event.choices)
    article_id = models.BigIntegerField(null=True, blank=True)
    # The body, as Standard Webhooks has it: {"type", "timestamp" (of the event), "data"}.
    payload = models.JSONField()
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    # When it is tried next: at once, after a back-off, or at a scheduled publication.
    due_at = models.DateTimeField(default=timezone.now)
    # For a scheduled publication: the time the article was scheduled for; if it no
    # longer is when that comes, nothing is sent.
    scheduled_for = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    last_status = models.CharField(max_length=200, blank=True)

    class Meta:
        verbose_name_plural = "deliveries"
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["state", "due_at"], name="delivery_state_due")]

    def __str__(self):
        return f"{self.get_event_display()} → {self.webhook}"

    @property
    def msg_id(self):
        """The webhook-id header (not webhook_id: that is the foreign key)."""
        return f"msg_{self.message_id.hex}"

    @property
    def gives_up_at(self):
        return (self.scheduled_for or self.created_at) + RETRY_FOR


# Retries: 1, 2, 4, 8... minutes after each failure, for a day; then it is given up.
RETRY_FIRST = timedelta(minutes=1)
RETRY_FOR = timedelta(days=1)


class Attempt(models.Model):
    """One try at a delivery: what the receiver answered, or what went wrong."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="log")
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["at", "pk"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.status_code or self.error}"

    @property
    def ok(self):
        return self.status_code is not None and 200 <= self.status_code < 300
