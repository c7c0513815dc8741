"""The "Sources to fix" queue: dead or moved source URLs of published articles (found by
``manage.py check_sources``), one row per URL with the articles citing it, and what an
editor can do about each."""

from collections import defaultdict
from datetime import timedelta

import reversion
from django import forms
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.db import transaction
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html_join

from news.models import Article, Source
from sources.models import SourceURL

from .models import SourceToFix, sources_to_fix
from .roles import can_publish

URL_FIELD = Source._meta.get_field("url")
ARCHIVE_FIELD = SourceURL._meta.get_field("archive_url")


class ReplaceForm(forms.Form):
    # The same rules as a source's URL in the article form (one validation layer).
    url = forms.URLField(
        label="New URL",
        max_length=URL_FIELD.max_length,
        validators=URL_FIELD.validators,
        assume_scheme="https",
    )


class ArchiveForm(forms.Form):
    url = forms.URLField(
        label="Archived copy",
        max_length=ARCHIVE_FIELD.max_length,
        validators=URL_FIELD.validators,
        assume_scheme="https",
        help_text="e.g. https://web.archive.org/web/2024/https://example.org/notes",
    )


class IgnoreForm(forms.Form):
    months = forms.IntegerField(label="Ignore for (months)", min_value=1, max_value=24, initial=6)


class CitingChangeList(ChangeList):
    """Loads the articles citing the URLs of a page of the queue in one query."""

    def get_results(self, request):
        super().get_results(request)
        citing = defaultdict(dict)
        sources = Source.objects.filter(
            url__in=[row.url for row in self.result_list],
            article__in=Article.objects.published(),
        ).select_related("article")
        for source in sources.only("url", "article__title", "article__slug"):
            citing[source.url][source.article_id] = source.article
        for row in self.result_list:
            row.citing = list(citing[row.url].values())


def replace_url(request, old, new):
    """Every source citing ``old`` now cites ``new``: each article saved, in one revision
    saying so (the pages and feeds showing them are purged as for any save)."""
    with transaction.atomic(), reversion.create_revision():
        reversion.set_user(request.user)
        reversion.set_comment(f"Source URL replaced from “Sources to fix”: {old} → {new}")
        sources = Source.objects.select_related("article").select_for_update(of=("self",))
        for source in sources.filter(url=old):
            source.url = new
            source.save()
            article = source.article
            article.updated_by = request.user
            article.save()
            reversion.add_to_revision(article)
        SourceURL.objects.get_or_create(url=new)


@admin.register(SourceToFix)
class SourceToFixAdmin(admin.ModelAdmin):
    list_display = ["url", "state", "problem", "failures", "last_ok_at", "final_url", "articles"]
    list_filter = ["state"]
    search_fields = ["url", "final_url"]
    ordering = ["-failures", "url"]
    actions = ["accept_redirect", "replace", "archive", "ignore"]

    class Media:
        # Long URLs wrap, so that the table fits the page and "Cited by" stays in view.
        css = {"all": ["editorial/sources-to-fix.css"]}

    def changelist_view(self, request, extra_context=None):
        # Not Django's "Select source to fix to view": the queue's own name.
        return super().changelist_view(
            request, {"title": "Sources to fix", **(extra_context or {})}
        )

    def get_queryset(self, request):
        return sources_to_fix()

    def get_changelist(self, request, **kwargs):
        return CitingChangeList

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # rows change through the actions only

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("news.view_article")

    def has_publish_permission(self, request):
        return can_publish(request.user)

    @admin.display(description="problem")
    def problem(self, row):
        return row.last_error or (f"HTTP {row.last_status}" if row.last_status else "")

    @admin.display(description="cited by")
    def articles(self, row):
        return format_html_join(
            ", ",
            '<a href="{}">{}</a>',
            (
                (reverse("admin:news_article_change", args=[article.pk]), article.title)
                for article in row.citing
            ),
        )

    @admin.action(description="Accept the redirect target as the new URL", permissions=["publish"])
    def accept_redirect(self, request, queryset):
        count = 0
        for row in queryset.filter(state="moved").exclude(final_url=""):
            replace_url(request, row.url, row.final_url)
            count += 1
        level = messages.SUCCESS if count else messages.WARNING
        self.message_user(request, f"Updated {count} moved URL(s) to their new address.", level)

    @admin.action(description="Replace the URL…", permissions=["publish"])
    def replace(self, request, queryset):
        return self.one_row_form(
            request, queryset, ReplaceForm, "Replace a source URL",
            lambda row, url: replace_url(request, row.url, url),
            "Replaced {old} with {new} in every article citing it.",
        )  # fmt: skip

    @admin.action(description="Mark an archived copy…", permissions=["publish"])
    def archive(self, request, queryset):
        def mark(row, url):
            row.archive_url = url
            row.save(update_fields=["archive_url"])

        return self.one_row_form(
            request, queryset, ArchiveForm, "Link an archived copy", mark,
            "Readers now see the archived copy {new} next to {old}.",
        )  # fmt: skip

    @admin.action(description="Ignore for some months…", permissions=["publish"])
    def ignore(self, request, queryset):
        form = IgnoreForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            months = form.cleaned_data["months"]
            until = timezone.now() + timedelta(days=round(months * 30.44))
            count = queryset.update(ignored_until=until)
            self.message_user(
                request, f"Ignoring {count} URL(s) until {until:%d %B %Y}.", messages.SUCCESS
            )
            return None
        return self.render_action_form(request, queryset, form, "Ignore source URLs")

    def one_row_form(self, request, queryset, form_class, title, apply, done):
        """An action asking for one URL, for one selected row."""
        rows = list(queryset[:2])
        if len(rows) != 1:
            self.message_user(request, "Select exactly one URL for this action.", messages.ERROR)
            return None
        form = form_class(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            apply(rows[0], form.cleaned_data["url"])
            self.message_user(
                request, done.format(old=rows[0].url, new=form.cleaned_data["url"]),
                messages.SUCCESS,
            )  # fmt: skip
            return None
        return self.render_action_form(request, queryset, form, title)

    def render_action_form(self, request, queryset, form, title):
        return render(
            request,
            "admin/editorial/sourcetofix/action.html",
            {
                **self.admin_site.each_context(request),
                "title": title,
                "rows": queryset,
                "form": form,
                "action": request.POST.get("action"),
                "opts": self.model._meta,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
            },
        )
