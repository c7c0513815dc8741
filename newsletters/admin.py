from django.contrib import admin

from .models import Subscriber


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
