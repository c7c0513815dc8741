from django.contrib import admin
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from . import views
from .models import ReleaseSource, Tip, TipLink, WatchedProject


class ReleaseSourceInline(admin.TabularInline):
    model = ReleaseSource
    extra = 1
    fields = ["kind", "identifier", "include", "health"]
    readonly_fields = ["health"]

    @admin.display(description="health")
    def health(self, source):
        return health(source)


def health(source):
    """What the desk needs to know of a source: when it last answered, and what went
    wrong or was skipped."""
    if source.pk is None or source.checked_at is None:
        return "Not read yet"
    if source.failures:
        since = source.last_success
        when = f"last success {timezone.localtime(since):%-d %b %H:%M}" if since else "never read"
        return format_html(
            "<strong>Failing ({} in a row)</strong>, {}, next try {}: {}",
            source.failures,
            when,
            f"{timezone.localtime(source.next_attempt_at):%-d %b %H:%M}",
            source.last_error,
        )
    text = f"OK, read {timezone.localtime(source.checked_at):%-d %b %H:%M}"
    if source.last_error:
        return format_html("{}; skipped: {}", text, source.last_error)
    return text


class HealthFilter(admin.SimpleListFilter):
    title = "health"
    parameter_name = "health"

    def lookups(self, request, model_admin):
        return [("failing", "Failing"), ("ok", "Answering")]

    def queryset(self, request, queryset):
        if self.value() == "failing":
            return queryset.filter(failures__gt=0)
        if self.value() == "ok":
            return queryset.filter(failures=0, checked_at__isnull=False)
        return queryset


@admin.register(WatchedProject)
class WatchedProjectAdmin(admin.ModelAdmin):
    list_display = ["name", "public_page", "source_count"]
    search_fields = ["name"]
    prepopulated_fields = {"slug": ["name"]}
    autocomplete_fields = ["topics"]
    inlines = [ReleaseSourceInline]

    @admin.display(description="sources")
    def source_count(self, project):
        return project.sources.count()


@admin.register(ReleaseSource)
class ReleaseSourceAdmin(admin.ModelAdmin):
    """The sources and their health, failing first."""

    list_display = ["__str__", "include", "health_text", "checked_at"]
    list_filter = ["kind", HealthFilter]
    list_select_related = ["project"]
    search_fields = ["project__name", "identifier"]
    ordering = ["-failures", "project__name"]
    readonly_fields = [
        "checked_at",
        "last_success_at",
        "failures",
        "last_error",
        "etag",
        "last_modified",
        "next_attempt_at",
    ]

    @admin.display(description="health")
    def health_text(self, source):
        return health(source)


class TipLinkInline(admin.TabularInline):
    model = TipLink
    extra = 0
    fields = ["source", "url", "notes_url"]
    readonly_fields = fields
    can_delete = False


@admin.register(Tip)
class TipAdmin(admin.ModelAdmin):
    list_display = ["__str__", "released_at", "state", "assignee", "article_link"]
    list_filter = ["state", "project"]
    list_select_related = ["project", "assignee", "article"]
    search_fields = ["project__name", "version"]
    date_hierarchy = "released_at"
    readonly_fields = ["version_key", "found_at"]
    raw_id_fields = ["article"]
    inlines = [TipLinkInline]

    @admin.display(description="article")
    def article_link(self, tip):
        if tip.article_id is None:
            return ""
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:news_article_change", args=[tip.article_id]),
            tip.article.title,
        )

    def get_urls(self):
        # The dashboard's buttons; each view checks who may (releases.desk).
        wrap = self.admin_site.admin_view
        return [
            path("<int:tip_id>/write-up/", wrap(views.write_up), name="releases_tip_write_up"),
            path("<int:tip_id>/dismiss/", wrap(views.dismiss), name="releases_tip_dismiss"),
            path("<int:tip_id>/assign/", wrap(views.assign), name="releases_tip_assign"),
            *super().get_urls(),
        ]
