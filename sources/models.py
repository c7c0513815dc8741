"""What Skillo knows about each source URL it cites: checked over HTTP now and then
(``manage.py check_sources``), keyed by the URL, not by the article citing it, so a URL
cited by twenty articles is fetched once and fixed once."""

from datetime import timedelta

from django.db import models
from django.db.models import Q
from django.utils import timezone

from background.limits import backoff

# How soon a URL is checked again: working ones weekly; failing ones sooner, doubling
# from an hour, so that a site down for a moment is confirmed or cleared quickly.
RECHECK_AFTER = timedelta(days=7)
FIRST_RETRY_AFTER = timedelta(hours=1)
# A URL failing (5xx, timeouts, TLS, DNS) this many checks in a row needs an editor; one
# failure alone is usually a site's bad minute.
FAILING_AFTER = 2


class State(models.TextChoices):
    UNCHECKED = "unchecked", "not checked yet"
    FINE = "fine", "fine"
    MOVED = "moved", "moved permanently"
    GONE = "gone", "gone (404 or 410)"
    FAILING = "failing", "failing"
    SOFT_404 = "soft-404", "soft 404"


# States in which the page still answers with what was cited.
WORKING = {State.FINE, State.MOVED}


class SourceURLQuerySet(models.QuerySet):
    def due(self, now=None):
        """Never checked, or due again."""
        now = now or timezone.now()
        return self.filter(Q(next_check_at__isnull=True) | Q(next_check_at__lte=now))

    def to_fix(self, now=None):
        """URLs an editor should look at: moved, gone, soft 404s, and those failing
        FAILING_AFTER checks in a row; not while ignored, nor once an archived copy
        stands in for them."""
        now = now or timezone.now()
        return (
            self.filter(
                Q(state__in=[State.MOVED, State.GONE, State.SOFT_404])
                | Q(state=State.FAILING, failures__gte=FAILING_AFTER)
            )
            .filter(archive_url="")
            .exclude(ignored_until__gt=now)
        )


class SourceURL(models.Model):
    url = models.URLField("URL", max_length=500, unique=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.UNCHECKED)
    last_status = models.PositiveSmallIntegerField(
        "last status", null=True, blank=True, help_text="The HTTP status of the last answer."
    )
    last_error = models.CharField(
        "last error", max_length=200, blank=True, help_text="Why the last check failed."
    )
    final_url = models.URLField(
        "final URL", max_length=2000, blank=True, help_text="Where the redirects led."
    )
    last_checked_at = models.DateTimeField("last checked", null=True, blank=True)
    last_ok_at = models.DateTimeField("last worked", null=True, blank=True)
    failures = models.PositiveIntegerField(
        default=0, help_text="Checks in a row that found it gone, failing or a soft 404."
    )
    next_check_at = models.DateTimeField(null=True, blank=True, db_index=True)
    archive_url = models.URLField(
        "archived copy",
        max_length=2000,
        blank=True,
        help_text="A copy in a web archive; readers see it next to the source.",
    )
    ignored_until = models.DateTimeField(
        null=True, blank=True, help_text="Left out of “Sources to fix” until then."
    )

    objects = SourceURLQuerySet.as_manager()

    class Meta:
        verbose_name = "source URL"
        verbose_name_plural = "source URLs"
        ordering = ["url"]
        indexes = [models.Index(fields=["state", "failures"], name="sourceurl_state")]

    def __str__(self):
        return self.url

    def record(self, outcome, now):
        """Take the result of one check (sources.checker.Outcome) made at ``now``."""
        self.state = outcome.state
        self.last_status = outcome.status
        self.last_error = outcome.error[:200]
        self.final_url = outcome.final_url[:2000]
        self.last_checked_at = now
        if outcome.state in WORKING:
            self.last_ok_at = now
            self.failures = 0
            self.next_check_at = now + RECHECK_AFTER
        else:
            self.failures += 1
            self.next_check_at = now + backoff(FIRST_RETRY_AFTER, self.failures, RECHECK_AFTER)


# Fields check_sources writes (bulk_update: a check changes no public page).
CHECK_FIELDS = [
    "state", "last_status", "last_error", "final_url", "last_checked_at", "last_ok_at",
    "failures", "next_check_at",
]  # fmt: skip
