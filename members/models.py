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
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_signed_in_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = MemberQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(Lower("email"), name="one_member_per_address"),
        ]

    def __str__(self):
        return self.email


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
