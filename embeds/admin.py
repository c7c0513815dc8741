"""The link cards in the admin: what each link alone on a line shows, and why one is a
plain link (its fetch failed); fetched again on request."""

from django.contrib import admin, messages
from django.utils import timezone

from .models import Embed
from .tasks import fetch_embed


@admin.register(Embed)
class EmbedAdmin(admin.ModelAdmin):
    list_display = ["url", "state", "kind", "provider", "title", "fetched_at"]
    list_filter = ["state", "kind", "provider"]
    search_fields = ["url", "title", "provider"]
    readonly_fields = [
        "url", "state", "kind", "provider", "title", "author", "text", "thumbnail",
        "player_url", "player_width", "player_height", "error", "fetched_at", "requested_at",
    ]  # fmt: skip
    actions = ["fetch_again"]

    def has_add_permission(self, request):
        return False  # made by the articles that set a link alone on a line

    @admin.action(description="Fetch the selected cards again")
    def fetch_again(self, request, queryset):
        urls = list(queryset.values_list("url", flat=True))
        queryset.update(state=Embed.State.PENDING, requested_at=timezone.now())
        for url in urls:
            fetch_embed.enqueue(url)
        self.message_user(
            request, f"{len(urls)} card(s) will be fetched again in a moment.", messages.SUCCESS
        )
