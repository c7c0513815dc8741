"""Members: readers known by their e-mail address, who sign in with a link sent to it.

A member is an address proven by a followed link, nothing more: no password, no name.
A newsletter subscriber of the same address is the same person (newsletters.Subscriber,
matched by address when the portal opens), so nobody signs up twice."""

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import models
from django.db.models.functions import Lower
from django.utils import timezone


def new_token():
    return secrets.token_urlsafe(32)


def token_hash(token):
    """What the database keeps of a link's or a session's token: someone who reads the
    database (a backup, a leak) cannot sign in with it. The tokens are 256 random bits,
    so a plain SHA-256 is enough (no salt or stretching: nothing to guess)."""
    return hashlib.sha256(token.encode()).hexdigest()


class MemberQuerySet(models.QuerySet):
    def with_address(self, email):
        return self.filter(email__iexact=email.strip())


class Member(models.Model):
    email = models.EmailField("e-mail address", max_length=254)
    name = models.CharField(
        "name shown with comments",
        max_length=60,
        blank=True,
        help_text="Never the address; “A Skillo member” while empty.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_signed_in_at = models.DateTimeField(null=True, blank=True, editable=False)
    # Blocked by a moderator: their comments are shown nowhere, and they post no more.
    blocked_at = models.DateTimeField(null=True, blank=True, editable=False)
    blocked_reason = models.CharField(max_length=500, blank=True, editable=False)

    objects = MemberQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(Lower("email"), name="one_member_per_address"),
        ]

    def __str__(self):
        return self.email

    @property
    def shown_name(self):
        return self.name or "A Skillo member"


class BlockedAddress(models.Model):
    """A blocked member who erased their membership: their address's keyed hash only
    (newsletters.models.digest), so that the block outlives the erasure and a new
    membership for the address starts blocked."""

    address = models.CharField(max_length=64, unique=True)
    blocked_at = models.DateTimeField()
    reason = models.CharField(max_length=500, blank=True)

    class Meta:
        verbose_name_plural = "blocked addresses"

    def __str__(self):
        return f"Blocked {self.blocked_at:%Y-%m-%d}: {self.reason}"


class SignInLink(models.Model):
    """A link sent by e-mail: its token's hash, for whom, when. It works once
    (used_at) and for MEMBER_LINK_MINUTES; the address, not a member, because the
    first link of an address is also how it becomes a member."""

    email = models.EmailField(max_length=254)
    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self):
        return f"sign-in link of {self.created_at:%Y-%m-%d %H:%M}"

    @property
    def expires_at(self):
        return self.created_at + timedelta(minutes=settings.MEMBER_LINK_MINUTES)


class MemberSession(models.Model):
    """One browser signed in: the hash of its cookie's token. Signing out deletes the
    row; signing out everywhere deletes every row of the member."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="sessions")
    token = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()

    def __str__(self):
        return f"session of {self.created_at:%Y-%m-%d %H:%M}"


class SavedStory(models.Model):
    """A story a member keeps for later. The article is kept by id even while it is
    unpublished (it may come back); lists show only what is public now."""

    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="saved")
    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="+")
    saved_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-saved_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["member", "article"], name="save_a_story_once"),
        ]
        verbose_name_plural = "saved stories"

    def __str__(self):
        return f"{self.member} saved {self.article_id}"


class CommentQuerySet(models.QuerySet):
    def shown(self):
        """What readers see: approved, by a member who is not blocked."""
        return self.filter(state=Comment.State.APPROVED, member__blocked_at=None)


class Comment(models.Model):
    """A member's comment under a story, or a reply to one (one level: a reply's parent
    is a comment, never a reply). The member's plain text is kept as typed; its HTML
    (paragraphs and links marked nofollow ugc) is made on save (members.comments)."""

    class State(models.TextChoices):
        PENDING = "pending", "Waiting for moderation"
        APPROVED = "approved", "Approved"
        HIDDEN = "hidden", "Hidden by a moderator"
        DELETED = "deleted", "Deleted by its author"

    article = models.ForeignKey("news.Article", on_delete=models.CASCADE, related_name="+")
    member = models.ForeignKey(Member, on_delete=models.CASCADE, related_name="comments")
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="replies"
    )
    body = models.TextField(max_length=5000)
    body_html = models.TextField(editable=False)
    state = models.CharField(max_length=10, choices=State.choices, default=State.PENDING)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    edited_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = CommentQuerySet.as_manager()

    class Meta:
        ordering = ["created_at", "pk"]
        indexes = [
            models.Index(fields=["article", "state", "created_at"], name="members_comment_shown")
        ]

    def __str__(self):
        return f"{self.member} on {self.article_id}: {self.body[:40]}"


class CommentReport(models.Model):
    """A reader's report of a comment, by a keyed hash of their address (one each)."""

    comment = models.ForeignKey(Comment, on_delete=models.CASCADE, related_name="reports")
    client = models.CharField(max_length=64)
    reason = models.CharField(max_length=500, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["comment", "client"], name="report_a_comment_once")
        ]

    def __str__(self):
        return f"report of {self.comment_id}"


class Moderation(models.Model):
    """What a moderator did, to which comment or member, and why."""

    class Action(models.TextChoices):
        APPROVE = "approve", "Approved"
        HIDE = "hide", "Hidden"
        BLOCK = "block", "Blocked the member"

    action = models.CharField(max_length=10, choices=Action.choices)
    comment = models.ForeignKey(
        Comment, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    member = models.ForeignKey(
        Member, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reason = models.CharField(max_length=500, blank=True)
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self):
        return f"{self.get_action_display()} at {self.at:%Y-%m-%d %H:%M}"


class CommentSettings(models.Model):
    """The site's rules for comments, chosen by editors (one row)."""

    first_comment_waits = models.BooleanField(
        "a member's first comment waits for a moderator",
        default=True,
        help_text="Their later comments are shown at once.",
    )
    close_after_days = models.PositiveIntegerField(
        "close comments after (days)",
        default=0,
        help_text="Days after a story is published; 0 keeps comments open.",
    )

    class Meta:
        verbose_name = verbose_name_plural = "comment settings"

    def __str__(self):
        return "Comment settings"

    @classmethod
    def current(cls):
        return cls.objects.order_by("pk").first() or cls()


class ClosedStory(models.Model):
    """A story whose comments an editor closed: what is there stays, nothing is added."""

    article = models.OneToOneField("news.Article", on_delete=models.CASCADE, related_name="+")
    closed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = "story closed to comments"
        verbose_name_plural = "stories closed to comments"

    def __str__(self):
        return f"comments closed on {self.article_id}"
