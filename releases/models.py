"""The release desk's records: the projects Skillo watches, where their releases are
announced (each a source with its health), and the tips, one per release, that wait on
the dashboard until someone writes them up or says they are not news."""

import re
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from django.db import models
from django.urls import reverse
from django.utils import timezone

# How long a source waits between two reads when all is well.
READ_EVERY = timedelta(minutes=30)

# Where each service publishes a project's releases, for an identifier that is a name
# (an identifier that is an address is read as it is).
SERVICE_ADDRESSES = {
    "github": "https://github.com/{}/releases.atom",
    "pypi": "https://pypi.org/rss/project/{}/releases.xml",
    "npm": "https://registry.npmjs.org/{}",
    "crates": "https://crates.io/api/v1/crates/{}/versions",
}
# Who publishes a release page, as an article's source names it.
PUBLISHERS = {
    "github.com": "GitHub",
    "pypi.org": "PyPI",
    "www.npmjs.com": "npm",
    "npmjs.com": "npm",
    "crates.io": "crates.io",
}


def publisher_of(url):
    """The publisher an article's source names for ``url``: the service's name for a
    known one, else the site's host without "www."."""
    host = (urlsplit(url).hostname or "").lower()
    return PUBLISHERS.get(host) or host.removeprefix("www.") or "unknown"


class WatchedProject(models.Model):
    name = models.CharField(max_length=100, help_text="As headlines name it: “PyTorch”.")
    slug = models.SlugField(
        max_length=100, unique=True, help_text="Its public page's address: /releases/SLUG/."
    )
    topics = models.ManyToManyField(
        "news.Tag",
        blank=True,
        related_name="+",
        help_text="The tags an article on one of its releases starts with.",
    )
    public_page = models.BooleanField(
        "public page",
        default=False,
        help_text="Readers may see the project's page: the releases Skillo covered.",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = "watched project"

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("releases:project", args=[self.slug])


# What is read: a change to one of these reads the source afresh.
READ_FIELDS = ("kind", "identifier", "include")
# Names as each service allows them, and how the error message names them.
NAME_RULES = {
    "github": (re.compile(r"[\w.-]+/[\w.-]+"), "repository as owner/name (pytorch/pytorch)"),
    "pypi": (re.compile(r"[A-Za-z0-9]([\w.-]*[A-Za-z0-9])?"), "package's name on PyPI (torch)"),
    "npm": (re.compile(r"(@[a-z0-9][\w.-]*/)?[a-z0-9][\w.-]*"), "package's name on npm (react)"),
    "crates": (re.compile(r"[A-Za-z][\w-]*"), "crate's name (serde)"),
}


class ReleaseSourceQuerySet(models.QuerySet):
    def due(self, now=None):
        """The sources to read now: never read, or past their next attempt."""
        now = now or timezone.now()
        return self.filter(
            models.Q(next_attempt_at__isnull=True) | models.Q(next_attempt_at__lte=now)
        )


class ReleaseSource(models.Model):
    class Kind(models.TextChoices):
        GITHUB = "github", "GitHub releases or tags (Atom)"
        PYPI = "pypi", "PyPI project (release RSS)"
        NPM = "npm", "npm package (registry document)"
        CRATES = "crates", "crates.io crate"
        FEED = "feed", "Feed (RSS, Atom or JSON Feed)"

    class Include(models.TextChoices):
        STABLE = "stable", "Stable releases only"
        ALL = "all", "Everything, pre-releases too"

    project = models.ForeignKey(WatchedProject, on_delete=models.CASCADE, related_name="sources")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    identifier = models.CharField(
        max_length=500,
        help_text="GitHub: owner/repository (or its releases.atom or tags.atom address); "
        "PyPI, npm, crates.io: the package's name; a feed: its address.",
    )
    include = models.CharField(
        "releases", max_length=10, choices=Include.choices, default=Include.STABLE
    )
    # Health, kept by the worker (releases.polling).
    checked_at = models.DateTimeField("last read", null=True, blank=True, editable=False)
    last_success_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_error = models.TextField(
        blank=True,
        editable=False,
        help_text="What went wrong at the last read, or what in it was skipped.",
    )
    failures = models.PositiveIntegerField(default=0, editable=False)
    etag = models.CharField(max_length=500, blank=True, editable=False)
    last_modified = models.CharField(max_length=100, blank=True, editable=False)
    next_attempt_at = models.DateTimeField(
        "next read", null=True, blank=True, editable=False, db_index=True
    )

    objects = ReleaseSourceQuerySet.as_manager()

    class Meta:
        ordering = ["project", "pk"]
        verbose_name = "release source"
        constraints = [
            models.UniqueConstraint(
                fields=["project", "kind", "identifier"], name="release_source_once"
            )
        ]

    def __str__(self):
        return f"{self.project}: {self.get_kind_display()} {self.identifier}"

    def save(self, *args, **kwargs):
        stored = getattr(self, "_stored", None)
        if stored is not None and stored != tuple(getattr(self, name) for name in READ_FIELDS):
            # Another address, or pre-releases now wanted: read it whole at the next run
            # (its ETag would answer 304 and keep what the old filter left out).
            self.etag = self.last_modified = ""
            self.next_attempt_at = None
            self.failures = 0
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {
                    *kwargs["update_fields"],
                    "etag", "last_modified", "next_attempt_at", "failures",
                }  # fmt: skip
        super().save(*args, **kwargs)
        self._stored = tuple(getattr(self, name) for name in READ_FIELDS)

    @classmethod
    def from_db(cls, db, field_names, values, **kwargs):
        source = super().from_db(db, field_names, values, **kwargs)
        # Remembered so that save() knows when what is read has changed.
        source._stored = tuple(source.__dict__.get(name) for name in READ_FIELDS)
        return source

    def clean(self):
        self.identifier = self.identifier.strip()
        if self.identifier.startswith(("http://", "https://")):
            try:
                URLValidator(schemes=["http", "https"])(self.identifier)
            except ValidationError:
                raise ValidationError({"identifier": "This address is not a valid URL."}) from None
            return
        rule = NAME_RULES.get(self.kind)
        if rule is None:
            raise ValidationError({"identifier": "A feed is given by its address (https://...)."})
        pattern, example = rule
        if not pattern.fullmatch(self.identifier):
            raise ValidationError(
                {"identifier": f"Give the {example}, or the address to read (https://...)."}
            )

    @property
    def address(self):
        """The address read: the identifier if it is one, else the service's."""
        if self.identifier.startswith(("http://", "https://")):
            return self.identifier
        pattern = SERVICE_ADDRESSES.get(self.kind)
        return pattern.format(self.identifier.strip("/")) if pattern else self.identifier

    @property
    def last_success(self):
        """When it last answered well: its last read while it is not failing (a read
        that changed nothing writes nothing, see releases.polling)."""
        return self.checked_at if not self.failures else self.last_success_at


class TipQuerySet(models.QuerySet):
    def on_desk(self):
        """The tips waiting for someone: new or assigned, newest release first."""
        return self.filter(state__in=[Tip.State.NEW, Tip.State.ASSIGNED]).order_by(
            "-released_at", "-pk"
        )


class Tip(models.Model):
    class State(models.TextChoices):
        NEW = "new", "New"
        DISMISSED = "dismissed", "Not news"
        ASSIGNED = "assigned", "Assigned"
        WRITTEN = "written", "Written up"

    project = models.ForeignKey(WatchedProject, on_delete=models.CASCADE, related_name="tips")
    version = models.CharField(max_length=100, help_text="As the first source wrote it.")
    # The version as every source of the project writes it alike ("v2.4.0", "2.4.0" and
    # "2.4" are one release): one tip per release whatever reports it.
    version_key = models.CharField(max_length=100, editable=False)
    prerelease = models.BooleanField(default=False)
    released_at = models.DateTimeField(help_text="The source's own date, in UTC.")
    release_url = models.URLField("release page", max_length=500)
    notes_url = models.URLField("notes or changelog", max_length=500, blank=True)
    summary = models.TextField(blank=True, help_text="The notes' first paragraph, plain text.")
    state = models.CharField(max_length=10, choices=State.choices, default=State.NEW)
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="release_tips",
    )
    article = models.ForeignKey(
        "news.Article",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="release_tips",
    )
    found_at = models.DateTimeField(auto_now_add=True)

    objects = TipQuerySet.as_manager()

    class Meta:
        ordering = ["-released_at", "-pk"]
        get_latest_by = "released_at"
        constraints = [
            models.UniqueConstraint(fields=["project", "version_key"], name="tip_once_per_version")
        ]
        indexes = [models.Index(fields=["state", "-released_at"], name="tip_state_released")]

    def __str__(self):
        return f"{self.project} {self.version}"

    @property
    def headline(self):
        return f"{self.project.name} {self.version} released"


class TipLink(models.Model):
    """Where one source reported a tip's release: the same version from GitHub and PyPI
    is one tip with two links."""

    tip = models.ForeignKey(Tip, on_delete=models.CASCADE, related_name="links")
    source = models.ForeignKey(ReleaseSource, on_delete=models.CASCADE, related_name="+")
    url = models.URLField(max_length=500)
    notes_url = models.URLField(max_length=500, blank=True)

    class Meta:
        ordering = ["pk"]
        constraints = [
            models.UniqueConstraint(fields=["tip", "source"], name="tip_link_once_per_source")
        ]

    def __str__(self):
        return self.url

    @property
    def publisher(self):
        return publisher_of(self.url)
