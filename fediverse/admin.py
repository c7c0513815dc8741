"""The fediverse in the admin: replies to moderate, followers, blocks, and how
deliveries went."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.html import format_html

from .models import BlockedDomain, Delivery, Follower, Instance, RemoteActor, Reply
from .replies import purge_replies


@admin.register(Reply)
class ReplyAdmin(admin.ModelAdmin):
    list_display = ["remote", "article", "excerpt", "published_at", "state"]
    list_filter = ["state"]
    list_select_related = ["remote", "article"]
    search_fields = ["content", "remote__username", "remote__domain", "article__title"]
    readonly_fields = ["uri", "article", "remote", "shown_content", "url", "published_at",
                       "updated_at", "received_at"]  # fmt: skip
    fields = [*readonly_fields, "state"]
    actions = ["approve", "reject", "block_actor", "block_instance"]

    def has_add_permission(self, request):
        return False  # replies come from the fediverse only

    @admin.display(description="reply")
    def excerpt(self, reply):
        from django.utils.html import strip_tags
        from django.utils.text import Truncator

        return Truncator(strip_tags(reply.content)).chars(80)

    @admin.display(description="content")
    def shown_content(self, reply):
        return format_html('<div class="reply-content">{}</div>', reply.content)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        purge_replies(obj.article_id)

    def set_state(self, request, queryset, state, words):
        with transaction.atomic():
            for article_id in set(queryset.values_list("article_id", flat=True)):
                purge_replies(article_id)
            count = queryset.update(state=state)
        self.message_user(request, f"{count} repl{'y' if count == 1 else 'ies'} {words}.")

    @admin.action(description="Approve: show under the article", permissions=["change"])
    def approve(self, request, queryset):
        self.set_state(request, queryset, Reply.State.APPROVED, "approved and shown")

    @admin.action(description="Reject: never show", permissions=["change"])
    def reject(self, request, queryset):
        self.set_state(request, queryset, Reply.State.REJECTED, "rejected")

    @admin.action(description="Block their authors (and reject all their replies)",
                  permissions=["change"])  # fmt: skip
    def block_actor(self, request, queryset):
        remotes = RemoteActor.objects.filter(replies__in=queryset).distinct()
        names = ", ".join(str(remote) for remote in remotes)
        with transaction.atomic():
            remotes.update(blocked=True)
            self.set_state(request, Reply.objects.filter(remote__in=remotes),
                           Reply.State.REJECTED, "rejected")  # fmt: skip
            Follower.objects.filter(remote__in=remotes).delete()
        self.message_user(request, f"Blocked {names}.", messages.WARNING)

    @admin.action(description="Block their instances (and reject all replies from them)",
                  permissions=["change"])  # fmt: skip
    def block_instance(self, request, queryset):
        domains = sorted(set(queryset.values_list("remote__domain", flat=True)))
        with transaction.atomic():
            for domain in domains:
                BlockedDomain.objects.get_or_create(
                    domain=domain, defaults={"note": f"Blocked by {request.user} from a reply"}
                )
            from_there = Reply.objects.filter(remote__domain__in=domains)
            self.set_state(request, from_there, Reply.State.REJECTED, "rejected")
            Follower.objects.filter(remote__domain__in=domains).delete()
        self.message_user(request, f"Blocked {', '.join(domains)}.", messages.WARNING)


@admin.register(RemoteActor)
class RemoteActorAdmin(admin.ModelAdmin):
    list_display = ["__str__", "name", "domain", "blocked", "fetched_at"]
    list_filter = ["blocked"]
    search_fields = ["username", "domain", "name", "uri"]
    readonly_fields = ["uri", "domain", "inbox", "shared_inbox", "key_id", "username", "name",
                       "url", "fetched_at"]  # fmt: skip
    fields = [*readonly_fields, "blocked"]

    def has_add_permission(self, request):
        return False


@admin.register(BlockedDomain)
class BlockedDomainAdmin(admin.ModelAdmin):
    list_display = ["domain", "note", "created_at"]
    search_fields = ["domain"]


@admin.register(Follower)
class FollowerAdmin(admin.ModelAdmin):
    list_display = ["remote", "local", "created_at"]
    list_select_related = ["remote", "local"]
    search_fields = ["remote__username", "remote__domain"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = ["__str__", "state", "attempts", "due_at", "last_error"]
    list_filter = ["state"]
    search_fields = ["inbox", "domain"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(Instance)
class InstanceAdmin(admin.ModelAdmin):
    list_display = ["domain", "failures", "retry_after", "given_up_at", "last_success_at"]
    search_fields = ["domain"]

    def has_add_permission(self, request):
        return False
