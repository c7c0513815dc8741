"""The live desk in the admin: a story's coverage, its composer and its entries on one
page (``desk_view``), each action a small POST that saves no article.

Writers open the desk and post; editors also start and end coverage, approve writers'
entries, change anyone's entry and the coverage's settings (live.desk's rules).
"""

import secrets

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views.decorators.http import require_POST

from pagecache.store import cache_call

from . import desk
from .forms import EntryEditForm, EntryForm
from .models import Entry, LiveCoverage

# The desk lists this many entries, newest first (awaiting ones always).
DESK_ENTRIES = 100
# How long the composer's one-time mark is remembered (pagecache's shared cache).
ONCE_SECONDS = 3600
STARTED_AND_SENT = "Live coverage started, and the story sent to subscribers"
STARTED_TO_BE_SENT = "Live coverage started; the story goes to subscribers when published"


def first_sending(once):
    """Whether the composer's form carrying ``once`` (a random mark each time the desk is
    shown) is sent for the first time. Without a mark, or with the cache down, yes."""
    if not once:
        return True
    ok, added = cache_call("add", f"live:once:{once[:64]}", 1, timeout=ONCE_SECONDS)
    return added or not ok


def forget_sending(once):
    if once:
        cache_call("delete", f"live:once:{once[:64]}")


@admin.register(LiveCoverage)
class LiveCoverageAdmin(admin.ModelAdmin):
    list_display = ["article", "state", "starts_at", "ended_at", "approval_required"]
    list_filter = ["state"]
    list_select_related = ["article"]
    search_fields = ["article__title"]
    autocomplete_fields = ["article"]
    fields = ["article", "starts_at", "summary", "approval_required"]

    def has_view_permission(self, request, obj=None):
        return desk.can_post(request.user)

    def has_module_permission(self, request):
        return desk.can_post(request.user)

    def has_change_permission(self, request, obj=None):
        return desk.can_run(request.user)

    has_add_permission = has_change_permission
    has_delete_permission = has_change_permission

    def get_readonly_fields(self, request, obj=None):
        return ["article"] if obj is not None else []

    def save_model(self, request, obj, form, change):
        desk.save_settings(obj, request.user)

    def response_add(self, request, obj, post_url_continue=None):
        return redirect(self.desk_url(obj))

    def response_change(self, request, obj):
        messages.success(request, "The coverage's settings are saved.")
        return redirect(self.desk_url(obj))

    @staticmethod
    def desk_url(coverage):
        return reverse("admin:live_livecoverage_desk", args=[coverage.pk])

    def get_urls(self):
        routes = [
            ("<int:pk>/desk/", self.desk_view, "desk"),
            ("<int:pk>/post/", self.post_view, "post"),
            ("<int:pk>/start/", self.start_view, "start"),
            ("<int:pk>/end/", self.end_view, "end"),
            ("entries/<int:entry>/edit/", self.edit_view, "edit"),
            ("entries/<int:entry>/delete/", self.delete_entry_view, "delete_entry"),
            ("entries/<int:entry>/approve/", self.approve_view, "approve"),
        ]
        return [
            path(route, self.admin_site.admin_view(function), name=f"live_livecoverage_{name}")
            for route, function, name in routes
        ] + super().get_urls()

    # The desk

    def coverage_or_404(self, request, pk):
        if not desk.can_post(request.user):
            raise PermissionDenied
        return get_object_or_404(LiveCoverage.objects.select_related("article"), pk=pk)

    def desk_view(self, request, pk, form=None):
        coverage = self.coverage_or_404(request, pk)
        entries = coverage.entries.prefetch_related("authors").select_related("posted_by")
        awaiting = list(entries.filter(status=Entry.Status.AWAITING))
        shown = list(entries.filter(status=Entry.Status.PUBLISHED)[:DESK_ENTRIES])
        context = {
            **self.admin_site.each_context(request),
            # The desk, not the story: a live story's own title often starts "Live:".
            "title": f"Live desk: {coverage.article.title}",
            "subtitle": None,
            "opts": self.opts,
            "coverage": coverage,
            "article": coverage.article,
            "form": form or EntryForm(),
            "once": secrets.token_urlsafe(16),
            "awaiting": awaiting,
            "entries": shown,
            "published_count": len(shown)
            if len(shown) < DESK_ENTRIES
            else entries.filter(status=Entry.Status.PUBLISHED).count(),
            "can_run": desk.can_run(request.user),
            "user_pk": request.user.pk,
            "has_view_permission": True,
        }
        return TemplateResponse(
            request, "admin/live/desk.html", context, status=400 if form is not None else 200
        )

    @method_decorator(require_POST)
    def post_view(self, request, pk):
        if not desk.can_post(request.user):
            raise PermissionDenied
        # The story is read (and checked) once, by post_entry, under its lock.
        coverage = LiveCoverage(pk=pk)
        form = EntryForm(request.POST)
        if form.is_valid():
            if not first_sending(request.POST.get("once", "")):
                # A double click, or the form sent again: the entry is there already.
                messages.info(request, "That entry was posted already.")
                return redirect(self.desk_url(coverage))
            try:
                entry = desk.post_entry(coverage, request.user, **form.cleaned_data)
            except LiveCoverage.DoesNotExist:
                raise Http404("No such live story.") from None
            except ValidationError as error:
                forget_sending(request.POST.get("once", ""))
                form.add_error(None, error)
            else:
                waiting = entry.status == Entry.Status.AWAITING
                messages.success(
                    request,
                    f"Posted at {timezone.localtime(entry.posted_at):%H:%M:%S}"
                    + (", waiting for an editor's approval." if waiting else "."),
                )
                return redirect(self.desk_url(coverage))
        # The text as typed comes back with the reason: nothing is lost.
        return self.desk_view(request, pk, form=form)

    @staticmethod
    def entry_or_404(request, pk):
        if not desk.can_post(request.user):
            raise PermissionDenied
        return get_object_or_404(Entry, pk=pk)

    def edit_view(self, request, entry):
        entry = self.entry_or_404(request, entry)
        if not desk.can_change(request.user, entry):
            raise PermissionDenied
        initial = {"authors": list(entry.authors.all())}
        form = EntryEditForm(request.POST or None, instance=entry, initial=initial)
        if request.method == "POST" and form.is_valid():
            fields = {name: form.cleaned_data[name] for name in desk.EDITABLE}
            try:
                desk.edit_entry(entry, request.user, authors=form.cleaned_data["authors"], **fields)
            except ValidationError as error:
                form.add_error(None, error)
            else:
                messages.success(request, "The entry is changed.")
                return redirect(self.desk_url(LiveCoverage(pk=entry.coverage_id)))
        context = self.entry_page(request, entry, "Change an entry", form=form)
        status = 400 if form.is_bound else 200
        return TemplateResponse(request, "admin/live/edit_entry.html", context, status=status)

    def entry_page(self, request, entry, title, **context):
        """What a page about one entry shows: its story (read again: a failed form
        leaves the instance with the typed values) and the admin's own context."""
        coverage = LiveCoverage.objects.select_related("article").get(pk=entry.coverage_id)
        return {
            **self.admin_site.each_context(request),
            "title": title,
            "opts": self.opts,
            "coverage": coverage,
            "article": coverage.article,
            "entry": entry,
            **context,
        }

    def entry_action(self, request, entry, action, done):
        entry = self.entry_or_404(request, entry)
        try:
            action(entry, request.user)
        except ValidationError as error:
            messages.error(request, " ".join(error.messages))
        else:
            messages.success(request, done)
        return redirect(self.desk_url(LiveCoverage(pk=entry.coverage_id)))

    @staticmethod
    def coverage_action(request, pk, action, done):
        if not desk.can_run(request.user):
            raise PermissionDenied
        coverage = get_object_or_404(LiveCoverage, pk=pk)
        action(coverage, request.user)
        messages.success(request, done)
        return redirect(LiveCoverageAdmin.desk_url(coverage))

    def delete_entry_view(self, request, entry):
        """Asks first (GET): readers' pages drop a deleted entry within seconds, for good."""
        if request.method == "POST":
            return self.entry_action(request, entry, desk.delete_entry, "The entry is deleted.")
        entry = self.entry_or_404(request, entry)
        if not desk.can_change(request.user, entry):
            raise PermissionDenied
        context = self.entry_page(request, entry, "Delete this entry?")
        return TemplateResponse(request, "admin/live/delete_entry.html", context)

    @method_decorator(require_POST)
    def approve_view(self, request, entry):
        return self.entry_action(
            request, entry, desk.approve_entry, "The entry is approved and shown."
        )

    @method_decorator(require_POST)
    def start_view(self, request, pk):
        if not desk.can_run(request.user):
            raise PermissionDenied
        coverage = get_object_or_404(LiveCoverage.objects.select_related("article"), pk=pk)
        started = desk.start_coverage(
            coverage, request.user, email=request.POST.get("email") == "on"
        )
        messages.success(request, "Coverage is live.")
        if started.email_planned:
            # As the article's own "Send to subscribers" is: in the story's history.
            article = coverage.article
            words = STARTED_AND_SENT if article.is_published() else STARTED_TO_BE_SENT
            article.note_in_history(request.user, words)
        if started.email_planned is not None:
            messages.add_message(request, *self.email_outcome(coverage.article, started))
        return redirect(self.desk_url(coverage))

    @staticmethod
    def email_outcome(article, started):
        title = f"“{article.title}”"
        if started.email_planned and article.is_published():
            return messages.SUCCESS, f"{title} is being e-mailed to subscribers."
        if started.email_planned:
            return (
                messages.SUCCESS,
                f"{title} will be e-mailed to subscribers when it is published, at "
                f"{timezone.localtime(article.published_at):%H:%M on %d %B}.",
            )
        if article.is_published():
            return (
                messages.WARNING,
                f"{title} was e-mailed to subscribers before: a story is e-mailed once.",
            )
        return (
            messages.WARNING,
            f"{title} is not published yet: it will be e-mailed to subscribers when it is.",
        )

    @method_decorator(require_POST)
    def end_view(self, request, pk):
        return self.coverage_action(request, pk, desk.end_coverage, "Coverage has ended.")
