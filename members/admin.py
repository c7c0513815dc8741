from django.contrib import admin

from .models import Member, SavedStory


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
    list_display = ["email", "created_at", "last_signed_in_at"]
    search_fields = ["email"]
    date_hierarchy = "created_at"
    readonly_fields = ["email", "created_at", "last_signed_in_at"]
    inlines = [SavedStoryInline]

    def has_add_permission(self, request):
        # A member is an address proven by a followed link; the newsroom makes none.
        return False
