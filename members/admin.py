from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.db.models import Count

from . import comments
from .models import ClosedStory, Comment, CommentSettings, Member, Moderation, SavedStory


class SavedStoryInline(admin.TabularInline):
    model = SavedStory
    fields = ["article", "saved_at"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Member)
class MemberAdmin(admin.ModelAdmin):
    list_display = ["email", "name", "created_at", "last_signed_in_at", "blocked_at"]
    list_filter = [("blocked_at", admin.EmptyFieldListFilter)]
    search_fields = ["email", "name"]
    date_hierarchy = "created_at"
    readonly_fields = ["email", "created_at", "last_signed_in_at", "blocked_at", "blocked_reason"]
    inlines = [SavedStoryInline]

    def has_add_permission(self, request):
        # A member is an address proven by a followed link; the newsroom makes none.
        return False


class ModerationForm(ActionForm):
    """The action bar's reason, recorded with what the moderator did."""

    reason = forms.CharField(
        required=False, max_length=500, widget=forms.TextInput(attrs={"size": 40})
    )


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    list_display = ["excerpt", "member", "article", "state", "reports_count", "created_at"]
    list_filter = ["state", ("member__blocked_at", admin.EmptyFieldListFilter)]
    list_select_related = ["member", "article"]
    search_fields = ["body", "member__email", "member__name"]
    date_hierarchy = "created_at"
    readonly_fields = ["article", "member", "parent", "body", "state", "created_at", "edited_at"]
    fields = readonly_fields
    action_form = ModerationForm
    actions = ["approve", "hide", "block_authors"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(reports_count=Count("reports"))

    def has_add_permission(self, request):
        return False

    @admin.display(description="comment")
    def excerpt(self, comment):
        return comment.body[:80] or "(deleted)"

    @admin.display(description="reports", ordering="reports_count")
    def reports_count(self, comment):
        return comment.reports_count

    @admin.action(description="Approve: show the selected comments", permissions=["change"])
    def approve(self, request, queryset):
        done = comments.moderate(queryset, "approve", request.POST.get("reason", ""), request.user)
        self.message_user(request, f"{done} comment(s) approved.", messages.SUCCESS)

    @admin.action(description="Hide the selected comments", permissions=["change"])
    def hide(self, request, queryset):
        done = comments.moderate(queryset, "hide", request.POST.get("reason", ""), request.user)
        self.message_user(request, f"{done} comment(s) hidden.", messages.SUCCESS)

    @admin.action(description="Block their authors (a reason is required)", permissions=["change"])
    def block_authors(self, request, queryset):
        reason = request.POST.get("reason", "").strip()
        if not reason:
            self.message_user(
                request, "Say why in “Reason” first: nobody was blocked.", messages.ERROR
            )
            return
        members = Member.objects.filter(pk__in=queryset.values("member"))
        done = comments.block(members, reason, request.user)
        self.message_user(
            request, f"{done} member(s) blocked: their comments are gone.", messages.SUCCESS
        )


@admin.register(Moderation)
class ModerationAdmin(admin.ModelAdmin):
    list_display = ["at", "action", "comment", "member", "reason", "by"]
    list_filter = ["action"]
    list_select_related = ["comment", "member", "by"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    # The record of who did what: kept, even from admins.
    has_delete_permission = has_change_permission


@admin.register(CommentSettings)
class CommentSettingsAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        # The permission first: the admin's menu asks for every user who sees Members.
        return super().has_add_permission(request) and not CommentSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(ClosedStory)
class ClosedStoryAdmin(admin.ModelAdmin):
    list_display = ["article", "closed_at"]
    autocomplete_fields = ["article"]
