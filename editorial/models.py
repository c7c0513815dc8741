from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.functions import Lower

from news.models import Article, Source
from sources.models import SourceURL


class FactsDue(Article):
    """Published articles whose facts are due for re-verification (an admin queue)."""

    class Meta:
        proxy = True
        verbose_name = "article with facts due for re-verification"
        verbose_name_plural = "Facts due for re-verification"


class SourceToFix(SourceURL):
    """A source URL that published articles cite and that needs an editor (an admin queue):
    moved, gone, a soft 404, or failing again and again (sources.models.SourceURL)."""

    class Meta:
        proxy = True
        verbose_name = "source to fix"
        verbose_name_plural = "Sources to fix"


def sources_to_fix():
    """The queue: URLs cited by published articles that need an editor."""
    return SourceToFix.objects.to_fix().filter(url__in=Source.objects.cited_urls())


def sources_to_fix_count():
    """How many URLs are in "Sources to fix" (for the dashboard)."""
    return sources_to_fix().count()


class AutoSave(models.Model):
    """What an editor last typed in an article's form, saved while they type, so a
    crash or a closed tab loses at most a few seconds. One per editor and article (or
    per editor for a new, unsaved article); removed when they save the article."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    article = models.ForeignKey(Article, null=True, blank=True, on_delete=models.CASCADE)
    fields = models.JSONField()
    saved_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "article"], name="autosave_once"),
            # One for a new article too (a NULL article is distinct from every other).
            models.UniqueConstraint(
                fields=["user"], condition=models.Q(article=None), name="autosave_new_once"
            ),
        ]

    def __str__(self):
        return f"{self.user} on {self.article or 'a new article'} at {self.saved_at:%H:%M:%S}"


class Presence(models.Model):
    """Who has an article's form open (their page says so every few seconds)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="+")
    since = models.DateTimeField()
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "article"], name="presence_once")]

    def __str__(self):
        return f"{self.user} on {self.article} since {self.since:%H:%M}"


class Note(models.Model):
    """A line of an article's conversation: a workflow step (submitted, sent back,
    published...) with what its author wrote, or a remark. Shown at the top of the
    article's form and, until read, on the other side's dashboard."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="notes")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The workflow step ("Sent back to the writer"), or "" for a remark.
    step = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    # Who the step is for: the article's writers, or the editors (editorial.workflow).
    for_editors = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["created_at", "pk"]

    def __str__(self):
        return f"{self.step or 'Note'}: {self.text[:40]}"


class NotesSeen(models.Model):
    """Until when a user has read an article's conversation (its form opened)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="+")
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "article"], name="notes_seen_once")]

    def __str__(self):
        return f"{self.user_id} saw {self.article_id} at {self.seen_at}"


class PreviewLink(models.Model):
    """A signed link to an unpublished article's page for someone outside the newsroom:
    it works until it expires (at most a week) or is revoked. Only the token's hash is
    kept; the link is shown once, when it is made."""

    article = models.ForeignKey(Article, on_delete=models.CASCADE, related_name="preview_links")
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"Preview of {self.article_id} until {self.expires_at}"


class Invitation(models.Model):
    """Someone asked to join the newsroom as a writer or an editor: the e-mail they are
    sent links to a page where they choose their name and password (editorial.invitations).
    Only the token's hash is kept."""

    class Role(models.TextChoices):
        WRITER = "Writers", "Writer"
        EDITOR = "Editors", "Editor"

    email = models.EmailField("e-mail address")
    name = models.CharField(max_length=150, blank=True, help_text="How to greet them.")
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.WRITER)
    token_hash = models.CharField(max_length=64, unique=True, editable=False)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        editable=False,
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(editable=False)
    accepted_at = models.DateTimeField(null=True, blank=True, editable=False)
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="invitation", editable=False,
    )  # fmt: skip

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One invitation waiting per address: the form refuses a second while the
            # first works (a double click sends one e-mail), and one that expired is
            # replaced (editorial.invitations.invite).
            models.UniqueConstraint(
                Lower("email"),
                condition=Q(accepted_at__isnull=True),
                name="one_waiting_invitation_per_address",
            ),
        ]

    def __str__(self):
        return f"{self.email} as {self.get_role_display().lower()}"
