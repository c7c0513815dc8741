from django import forms
from django.contrib import admin
from django.utils import timezone

from .models import Article, RelatedLink, Source


class ArticleForm(forms.ModelForm):
    facts_verified = forms.DateField(
        label="Facts verified",
        input_formats=["%Y-%m", "%Y-%m-%d"],
        widget=forms.DateInput(attrs={"type": "month"}, format="%Y-%m"),
        help_text="The month in which an editor last checked the facts (YYYY-MM).",
        initial=timezone.localdate,
    )

    class Meta:
        model = Article
        fields = [
            "title", "slug", "summary", "body", "tags",
            "status", "event_date", "published_at", "facts_verified",
        ]  # fmt: skip


class SourceInline(admin.TabularInline):
    model = Source
    fields = ["position", "title", "publisher", "url"]
    extra = 1


class RelatedLinkFormSet(forms.BaseInlineFormSet):
    def clean(self):
        super().clean()
        article = self.instance
        for form in self.forms:
            if not form.has_changed() or form.cleaned_data.get("DELETE"):
                continue
            target = form.cleaned_data.get("target")
            title = (form.cleaned_data.get("title") or "").strip()
            if target is not None and article.pk and target.pk == article.pk:
                form.add_error("target", "An article cannot relate to itself.")
            elif target is None and title and title.casefold() == article.title.casefold():
                form.add_error("title", "An article cannot relate to itself.")


class RelatedLinkInline(admin.TabularInline):
    model = RelatedLink
    formset = RelatedLinkFormSet
    fk_name = "article"
    fields = ["position", "target", "title"]
    autocomplete_fields = ["target"]
    extra = 1
    verbose_name = "related link"
    verbose_name_plural = "Related on Skillo"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("target")


@admin.register(Article)
class ArticleAdmin(admin.ModelAdmin):
    form = ArticleForm
    list_display = ["title", "status", "is_published", "event_date", "published_at", "tag_list"]
    list_filter = ["status", "tags", "event_date", "published_at"]
    search_fields = ["title", "summary", "body"]
    date_hierarchy = "published_at"
    prepopulated_fields = {"slug": ["title"]}
    inlines = [SourceInline, RelatedLinkInline]
    fieldsets = [
        (None, {"fields": ["title", "slug", "summary", "body", "tags"]}),
        (
            "Dates and status",
            {"fields": ["status", "event_date", "published_at", "facts_verified"]},
        ),
    ]

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("tags")

    @admin.display(description="tags")
    def tag_list(self, article):
        return ", ".join(tag.name for tag in article.tags.all())
