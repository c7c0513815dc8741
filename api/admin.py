"""API tokens and webhooks in the admin: the API's own concern, kept with the api app
(editorial holds the newsroom's admin; these are for whoever runs integrations). Only
the Admins role has their permissions (editorial.roles gives Admins every permission,
Writers and Editors a list without these): a token that reads drafts is a key to
unpublished work."""

import secrets

from django import forms
from django.contrib import admin, messages
from django.db import IntegrityError
from django.utils import timezone

from .delivery import send_again
from .models import (
    SECRET_OVERLAP,
    ApiToken,
    Attempt,
    Delivery,
    Event,
    Scope,
    Webhook,
    WebhookHost,
)


class ApiTokenForm(forms.ModelForm):
    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="None: what the public site shows, at a higher rate limit.",
    )

    class Meta:
        model = ApiToken
        # form_key: a new one each time the add form is shown, sent back with it; the
        # token keeps it (the constraint api_token_once_per_form), so the same form sent
        # twice makes one token, not a second that no one saw.
        fields = ["name", "user", "scopes", "expires_at", "form_key"]
        widgets = {"form_key": forms.HiddenInput}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk is None:
            self.fields["form_key"].required = True
            self.initial.setdefault("form_key", secrets.token_urlsafe(16))


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    form = ApiTokenForm
    list_display = ["name", "prefix", "user", "scopes", "created_at", "expires_at", "revoked_at"]
    list_filter = ["revoked_at", "created_at"]
    search_fields = ["name", "prefix", "user__username"]
    autocomplete_fields = ["user"]
    readonly_fields = ["prefix", "created_at", "revoked_at"]
    actions = ["revoke"]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except IntegrityError:
            if object_id is not None or request.method != "POST":
                raise
            # The same add form, sent at the same moment by another request that made
            # its token first (api_token_once_per_form): this one's transaction was
            # rolled back whole, and the form, read again, says so.
            return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        token = obj.issue() if not change else None
        super().save_model(request, obj, form, change)
        if token is not None:
            self.message_user(
                request,
                f"The token, shown this once (only its hash is kept): {token}",
                messages.WARNING,
            )

    @admin.action(description="Revoke the selected tokens")
    def revoke(self, request, queryset):
        count = queryset.filter(revoked_at__isnull=True).update(revoked_at=timezone.now())
        self.message_user(request, f"Revoked {count} tokens.")


@admin.register(WebhookHost)
class WebhookHostAdmin(admin.ModelAdmin):
    list_display = ["host", "note"]
    search_fields = ["host", "note"]


class WebhookForm(forms.ModelForm):
    events = forms.MultipleChoiceField(choices=Event.choices, widget=forms.CheckboxSelectMultiple)

    class Meta:
        model = Webhook
        fields = ["name", "url", "events", "active", "previous_secret_until"]


@admin.register(Webhook)
class WebhookAdmin(admin.ModelAdmin):
    form = WebhookForm
    list_display = ["name", "url", "events", "active", "created_at", "previous_secret_until"]
    list_filter = ["active"]
    search_fields = ["name", "url"]
    readonly_fields = ["secret"]
    actions = ["rotate_secrets"]

    def get_fields(self, request, obj=None):
        fields = ["name", "url", "events", "active"]
        # A new webhook's secret is made as it is saved; its page shows it from then on.
        return fields if obj is None else [*fields, "secret", "previous_secret_until"]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if not change:
            self.message_user(
                request,
                f"Give the receiver this secret (it is also on the webhook's page): {obj.secret}",
                messages.WARNING,
            )

    @admin.action(
        description=f"Rotate the secrets (the old ones still sign for {SECRET_OVERLAP.days} days)"
    )
    def rotate_secrets(self, request, queryset):
        now = timezone.now()
        hooks = list(queryset)
        for hook in hooks:
            hook.rotate_secret(now)
        Webhook.objects.bulk_update(hooks, ["secret", "previous_secret", "previous_secret_until"])
        self.message_user(
            request,
            f"Rotated {len(hooks)} secrets: give each receiver its new one, from its page.",
        )


class AttemptInline(admin.TabularInline):
    model = Attempt
    fields = ["at", "status_code", "error", "duration_ms"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):
    list_display = [
        "pk", "event", "webhook", "article_id", "state", "attempts", "last_status", "due_at",
        "created_at",
    ]  # fmt: skip
    list_filter = ["state", "event", "webhook"]
    list_select_related = ["webhook"]
    date_hierarchy = "created_at"
    readonly_fields = [
        "webhook", "webhook_id_header", "event", "article_id", "payload", "state", "due_at",
        "scheduled_for", "attempts", "created_at", "last_status",
    ]  # fmt: skip
    inlines = [AttemptInline]
    actions = ["send_again_action"]

    def has_add_permission(self, request):
        return False

    @admin.display(description="webhook-id")
    def webhook_id_header(self, delivery):
        # What the receiver logged, to find a delivery it asks about.
        return delivery.msg_id

    @admin.action(description="Send again", permissions=["change"])
    def send_again_action(self, request, queryset):
        count = send_again(queryset)
        self.message_user(request, f"{count} deliveries will be sent again by the worker.")
