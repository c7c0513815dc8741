"""The newsletter in the admin: subscribers, and issues with their figures; one-off
issues composed here, previewed as readers will see them, tried on oneself, then
scheduled."""

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count, Q
from django.http import HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html

from . import compose, csvfiles, digests, suppression
from .models import Delivery, Issue, Subscriber
from .tasks import send_issue


class ImportForm(forms.Form):
    file = forms.FileField(label="CSV file", widget=forms.FileInput(attrs={"accept": ".csv"}))
    confirm = forms.BooleanField(
        label="Send those without a recorded opt-in a confirmation link",
        required=False,
        initial=True,
    )


@admin.register(Subscriber)
class SubscriberAdmin(admin.ModelAdmin):
    list_display = ["email", "state", "frequency", "everything", "created_at", "confirmed_at"]
    list_filter = ["state", "frequency", "everything", "corrections", "source"]
    search_fields = ["email"]
    readonly_fields = ["created_at", "confirmed_at", "left_at", "source"]
    autocomplete_fields = ["authors"]
    filter_horizontal = ["topics"]
    fields = [
        "email", "state", "frequency", "everything", "topics", "authors", "corrections",
        "source", "created_at", "confirmed_at", "left_at",
    ]  # fmt: skip
    actions = ["export_csv", "erase"]
    change_list_template = "admin/newsletters/subscriber/change_list.html"

    @admin.action(description="Export as CSV", permissions=["view"])
    def export_csv(self, request, queryset):
        response = HttpResponse(csvfiles.export(queryset), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="subscribers.csv"'
        return response

    def get_urls(self):
        return [
            path(
                "import/",
                self.admin_site.admin_view(self.import_view),
                name="newsletters_subscriber_import",
            ),
            *super().get_urls(),
        ]

    def import_view(self, request):
        if not self.has_add_permission(request):
            raise PermissionDenied
        form = ImportForm(request.POST or None, request.FILES or None)
        problems = []
        if request.method == "POST" and form.is_valid():
            try:
                report = csvfiles.import_subscribers(
                    form.cleaned_data["file"].read(), confirm=form.cleaned_data["confirm"]
                )
            except csvfiles.ImportRefused as refusal:
                problems = refusal.problems
            else:
                messages.success(
                    request,
                    f"Imported: {report.added_active} opted in, {report.added_pending} "
                    f"waiting for confirmation; {report.already} already subscribed and "
                    f"{report.suppressed} suppressed (bounced, complained or erased), left "
                    "as they were.",
                )
                return HttpResponseRedirect(reverse("admin:newsletters_subscriber_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "title": "Import subscribers from CSV",
            "form": form,
            "problems": problems,
            "opts": self.model._meta,
            "columns": csvfiles.COLUMNS,
        }
        status = 400 if problems else 200
        return TemplateResponse(
            request, "admin/newsletters/subscriber/import.html", context, status=status
        )

    # Erasing is deleting: for those who may delete subscribers (admins).
    @admin.action(
        description="Erase their data (GDPR art. 17): keep only a hash", permissions=["delete"]
    )
    def erase(self, request, queryset):
        count = 0
        for subscriber in queryset:
            suppression.erase(subscriber)
            count += 1
        messages.success(
            request,
            f"Erased {count} subscriber(s): nothing of them is left but a hash of the "
            "address, so that it is not mailed again unless it signs up again.",
        )


FIGURES = {
    "sent": Q(deliveries__state=Delivery.State.SENT),
    "queued": Q(deliveries__state=Delivery.State.QUEUED),
    "failed": Q(deliveries__state=Delivery.State.FAILED),
    "skipped": Q(deliveries__state=Delivery.State.SKIPPED),
    # Left after it was sent to them (not necessarily because of it).
    "left": Q(
        deliveries__state=Delivery.State.SENT,
        deliveries__subscriber__state=Subscriber.State.UNSUBSCRIBED,
    ),
    "bounced": Q(
        deliveries__state=Delivery.State.SENT,
        deliveries__subscriber__state=Subscriber.State.BOUNCED,
    ),
    "complained": Q(
        deliveries__state=Delivery.State.SENT,
        deliveries__subscriber__state=Subscriber.State.COMPLAINED,
    ),
}


@admin.register(Issue)
class IssueAdmin(admin.ModelAdmin):
    list_display = [
        "subject", "kind", "state", "due_at", "recipients", "sent", "failed", "left",
    ]  # fmt: skip
    list_filter = ["kind", "state"]
    search_fields = ["subject"]
    date_hierarchy = "due_at"
    autocomplete_fields = ["articles"]
    change_form_template = "admin/newsletters/issue/change_form.html"

    def get_queryset(self, request):
        figures = {name: Count("deliveries", filter=rule) for name, rule in FIGURES.items()}
        return super().get_queryset(request).annotate(**figures)

    @admin.display(ordering="sent")
    def sent(self, issue):
        return issue.sent

    @admin.display(ordering="failed", description="refused")
    def failed(self, issue):
        return issue.failed

    @admin.display(ordering="left", description="unsubscribed since")
    def left(self, issue):
        return issue.left

    def get_fields(self, request, obj=None):
        if obj is None or obj.kind == Issue.Kind.ONE_OFF:
            return ["subject", "intro", "articles", "due_at", "figures"]
        return ["subject", "kind", "article", "intro", "due_at", "state", "figures"]

    def get_readonly_fields(self, request, obj=None):
        if obj is None:
            return ["figures"]
        if obj.state not in (Issue.State.DRAFT, Issue.State.PLANNED):
            return [*self.get_fields(request, obj)]  # sent or being sent: as it went
        if obj.kind == Issue.Kind.ONE_OFF:
            return ["figures"]
        # A planned story or digest: its intro may be written before it goes.
        return ["subject", "kind", "article", "due_at", "state", "figures"]

    @admin.display(description="Figures")
    def figures(self, issue):
        if issue.pk is None or not issue.recipients:
            return "Not sent yet."
        row = Issue.objects.filter(pk=issue.pk).annotate(
            **{name: Count("deliveries", filter=rule) for name, rule in FIGURES.items()}
        )[0]
        return format_html(
            "{} recipients: {} sent, {} waiting, {} refused by their server, {} skipped "
            "(left or paused first); since then {} unsubscribed, {} bounced, {} marked it "
            "as spam.",
            issue.recipients, row.sent, row.queued, row.failed, row.skipped, row.left,
            row.bounced, row.complained,
        )  # fmt: skip

    def save_model(self, request, obj, form, change):
        if not change:
            obj.kind = Issue.Kind.ONE_OFF
            obj.state = Issue.State.DRAFT
        super().save_model(request, obj, form, change)

    def response_change(self, request, obj):
        if "_send_test" in request.POST:
            return self.send_test(request, obj)
        if "_schedule" in request.POST:
            return self.schedule(request, obj)
        return super().response_change(request, obj)

    def response_add(self, request, obj, post_url_continue=None):
        if "_send_test" in request.POST or "_schedule" in request.POST:
            return self.response_change(request, obj)
        return super().response_add(request, obj, post_url_continue)

    def change_url(self, obj):
        return reverse("admin:newsletters_issue_change", args=[obj.pk])

    def send_test(self, request, issue):
        address = request.user.email
        if not address:
            messages.error(request, "Your account has no e-mail address to send a test to.")
            return HttpResponseRedirect(self.change_url(issue))
        tester = Subscriber(pk=0, email=address, state=Subscriber.State.ACTIVE, key="test")
        mail = compose.mail(issue, self.shared(issue), tester)
        mail.subject = f"[Test] {mail.subject}"
        mail.send()
        messages.success(request, f"A test of “{issue}” was sent to {address}.")
        return HttpResponseRedirect(self.change_url(issue))

    def schedule(self, request, issue):
        if issue.state != Issue.State.DRAFT:
            messages.error(request, "Only a draft can be scheduled.")
            return HttpResponseRedirect(self.change_url(issue))
        if not digests.stories(issue):
            messages.error(request, "Choose at least one published story first.")
            return HttpResponseRedirect(self.change_url(issue))
        with transaction.atomic():
            Issue.objects.filter(pk=issue.pk).update(state=Issue.State.PLANNED)
            send_issue.using(run_after=max(issue.due_at, timezone.now())).enqueue(issue.pk)
        when = "now" if issue.due_at <= timezone.now() else f"at {issue.due_at:%d %b %Y %H:%M %Z}"
        messages.success(request, f"“{issue}” will be sent to every subscriber {when}.")
        return HttpResponseRedirect(reverse("admin:newsletters_issue_changelist"))

    def shared(self, issue):
        if issue.lists_stories:
            return compose.digest_context(issue, digests.stories(issue))
        return compose.story_context(issue.article, issue.correction)

    def get_urls(self):
        return [
            path(
                "<int:pk>/preview/<str:part>/",
                self.admin_site.admin_view(self.preview),
                name="newsletters_issue_preview",
            ),
            *super().get_urls(),
        ]

    def preview(self, request, pk, part):
        """The issue as a reader will get it: its HTML or its plain text."""
        issue = get_object_or_404(Issue, pk=pk)
        if not self.has_view_permission(request, issue) or part not in ("html", "text"):
            raise PermissionDenied
        reader = Subscriber(pk=0, email="reader@example.org", key="preview")
        mail = compose.mail(issue, self.shared(issue), reader)
        if part == "text":
            return HttpResponse(mail.body, content_type="text/plain; charset=utf-8")
        response = HttpResponse(mail.alternatives[0].content)
        # The mail's own inline styles: the admin's CSP would strip them.
        response["Content-Security-Policy"] = (
            "default-src 'none'; img-src * data:; style-src 'unsafe-inline'; frame-ancestors 'self'"
        )
        return response
