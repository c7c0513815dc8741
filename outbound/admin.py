"""Remote hosts in the admin: which are backed off (outbound.budget), and asking one
again at once (a host known to be back, say)."""

from django.contrib import admin

from .models import Host


@admin.register(Host)
class HostAdmin(admin.ModelAdmin):
    list_display = ["name", "backed_off_until", "failures"]
    search_fields = ["name"]
    readonly_fields = ["name", "window", "seconds", "failures", "backed_off_until"]
    actions = ["ask_again"]

    def has_add_permission(self, request):
        return False  # a row is made by the first request to its host

    @admin.action(description="Ask the selected hosts again now")
    def ask_again(self, request, queryset):
        done = queryset.update(backed_off_until=None, failures=0, seconds=0)
        self.message_user(request, f"{done} host(s) may be asked again now.")
