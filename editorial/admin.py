import reversion
from django.contrib import admin, messages
from django.contrib.admin.views.main import ChangeList
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.urls import path, reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.html import format_html
from django.utils.http import urlencode
from reversion.models import Version
from reversion_compare.admin import CompareVersionAdmin
from reversion_compare.helpers import html_diff
from taggit.models import Tag as TaggitTag

from news.identity import absolute
from news.models import (
    WORDS_PER_MINUTE,
    Article,
    ArticleAuthor,
    Correction,
    FrontPin,
    RelatedLink,
    Source,
    Tag,
    byline_prefetch,
)
from news.purge import email_choice_changed
from news.rules import (
    MAX_RELATED_LINKS,
    MAX_SOURCES,
    MAX_SUMMARY_CHARS,
    SEARCH_DESCRIPTION_CHARS,
    SEARCH_TITLE_CHARS,
)
from news.slugs import slug_from_title
from news.templatetags.news import author_url
from people.models import Author, AuthorLink

from . import calendar, conversation, invitations, keeping, previews, queues, workflow
from .filters import NO_BYLINE, AuthorFilter, TopicFilter
from .forms import (
    ArticleForm,
    AuthorForm,
    FrontPinForm,
    InvitationForm,
    RelatedLinkFormSet,
    ScheduleForm,
    SourceFormSet,
    offered_lead_image,
    taken_slug,
)
from .models import FactsDue, Invitation
from .preview import preview_document
from .prose_diff import prose_diff
from .roles import can_publish
from .widgets import NamedEmptyAutocomplete

EDITORIAL_ACTIONS = {"publish_selected", "unpublish_selected", "schedule_selected"}


def save_each(request, queryset, change, comment):
    """Apply ``change`` to each selected article and save it, as one revision by the
    acting user; returns how many were saved."""
    count = 0
    # Locked by primary key: the changelist's own queryset may be DISTINCT (a tag filter),
    # which PostgreSQL will not lock.
    articles = Article.objects.select_for_update().filter(pk__in=queryset.values("pk"))
    with transaction.atomic(), reversion.create_revision():
        reversion.set_user(request.user)
        reversion.set_comment(comment)
        for article in articles:
            change(article)
            article.updated_by = request.user
            article.save()
            count += 1
    return count


class SourceInline(admin.TabularInline):
    model = Source
    formset = SourceFormSet
    fields = ["position", "title", "publisher", "url"]
    extra = 1
    max_num = MAX_SOURCES  # for the page's "Add another"; Article.validate_parts enforces it


class RelatedLinkInline(NamedEmptyAutocomplete, admin.TabularInline):
    model = RelatedLink
    formset = RelatedLinkFormSet
    fk_name = "article"
    fields = ["position", "target", "title"]
    autocomplete_fields = ["target"]
    extra = 1
    max_num = MAX_RELATED_LINKS  # as for sources
    verbose_name = "related link"
    verbose_name_plural = "Related on Skillo"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("target")


class ArticleAuthorInline(NamedEmptyAutocomplete, admin.TabularInline):
    """The byline, in order; none gives "Skillo editorial"."""

    model = ArticleAuthor
    fields = ["position", "author"]
    autocomplete_fields = ["author"]
    extra = 1
    verbose_name_plural = "Authors (in byline order; none: “Skillo editorial”)"

    def get_queryset(self, request):
        return super().get_queryset(request).select_related("author")


class ArticleChangeList(ChangeList):
    # The bylines of the list's page in one query; the form reads its own (the inline).
    def get_queryset(self, request, exclude_parameters=None):
        queryset = super().get_queryset(request, exclude_parameters)
        return queryset.prefetch_related(byline_prefetch())


@admin.register(Article)
class ArticleAdmin(NamedEmptyAutocomplete, CompareVersionAdmin):
    form = ArticleForm
    list_display = [
        "title", "byline", "state", "event_date", "published", "tag_list", "version_marker",
    ]  # fmt: skip
    list_filter = ["status", TopicFilter, AuthorFilter, "event_date", "published_at"]
    search_fields = ["title", "summary", "body", "authorships__author__name"]
    date_hierarchy = "published_at"
    inlines = [ArticleAuthorInline, SourceInline, RelatedLinkInline]
    autocomplete_fields = ["lead_image", "social_image"]
    actions = ["publish_selected", "schedule_selected", "unpublish_selected"]
    # What a writer writes first: the title, the summary, then the body beside its preview
    # fill the first screen at 1280 px. What they rarely touch is folded away (Django's
    # collapsed fieldsets open by themselves when they hold an error).
    fieldsets = [
        (
            None,
            {
                "fields": [
                    "title",
                    "summary",
                    "body",
                    "lead_image",
                    "tags",
                    # Required, and a writer's to give: not folded away.
                    "event_date",
                ]
            },
        ),
        (
            "Search and social",
            {
                "fields": ["search_title", "meta_description", "social_image"],
                "classes": ["collapse"],
                "description": "How the article appears in a search result and in a share "
                "card: the preview beside the body shows both. Leave these empty to use the "
                "title, the summary and the lead image.",
            },
        ),
        (
            "Address, dates and status",
            {
                # The note is written in the conversation at the top of the form; the
                # status is the workflow bar's to change.
                "fields": [
                    "slug",
                    "status",
                    "published_at",
                    "facts_verified",
                ],
                "classes": ["collapse"],
            },
        ),
    ]
    change_form_template = "admin/news/article/change_form.html"
    change_list_template = "admin/news/article/change_list.html"

    class Media:
        js = [
            "editorial/admin-preview.js",
            "editorial/slug-fill.js",
            "editorial/autosave.js",
            "editorial/inline-order.js",
            "editorial/error-summary.js",
            "editorial/writing-aids.js",
            "editorial/body-images.js",
        ]
        # The Readers panel (readership's, in the change form's template).
        css = {"all": ["editorial/admin-preview.css", "readership/admin.css"]}

    # Who may do what

    def has_publish_permission(self, request):
        return can_publish(request.user)

    def _is_public_or_scheduled(self, obj):
        return obj is not None and obj.status == Article.Status.PUBLISHED

    def has_change_permission(self, request, obj=None):
        # Writers may only touch drafts; published and scheduled articles are read-only.
        if self._is_public_or_scheduled(obj) and not can_publish(request.user):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if self._is_public_or_scheduled(obj) and not can_publish(request.user):
            return False
        return super().has_delete_permission(request, obj)

    def formfield_for_dbfield(self, db_field, request, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        if db_field.name == "slug":
            field.widget.attrs.update(
                {
                    "data-slug-from": "id_title",
                    "data-slug-url": reverse("admin:news_article_slug"),
                    # The story being edited is no duplicate of itself.
                    "data-article": str(request.resolver_match.kwargs.get("object_id", ""))
                    if request.resolver_match
                    else "",
                }
            )
        # What static/editorial/writing-aids.js counts against (the model's own limits).
        if db_field.name == "title":
            field.widget.attrs["data-limit"] = db_field.max_length
            field.widget.attrs["data-shown-in-search"] = SEARCH_TITLE_CHARS
        if db_field.name == "summary":
            # One or two sentences: three rows, not the admin's ten.
            field.widget.attrs["rows"] = 3
            field.widget.attrs["data-limit"] = MAX_SUMMARY_CHARS
            field.widget.attrs["data-shown-in-search"] = SEARCH_DESCRIPTION_CHARS
        if db_field.name in {"search_title", "meta_description"}:
            field.widget.attrs["data-limit"] = db_field.max_length
        if db_field.name == "body":
            field.widget.attrs["data-words-per-minute"] = WORDS_PER_MINUTE
        return field

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)

        current_version = getattr(request, "skillo_current_version", None)
        # Set by the bar's "Create the topics, then …" (its formaction's query).
        confirmed_topics = request.GET.getlist("_new_topics")

        class FormWithUser(form):
            def __init__(self, *args, **inner):
                super().__init__(
                    *args,
                    user=request.user,
                    current_version=current_version,
                    confirmed_topics=confirmed_topics,
                    **inner,
                )

        return FormWithUser

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("tags")

    def get_changelist(self, request, **kwargs):
        return ArticleChangeList

    def get_formset_kwargs(self, request, obj, inline, prefix):
        kwargs = super().get_formset_kwargs(request, obj, inline, prefix)
        # A writer's new article names them as its author, to keep or change. Only on the
        # blank form: a submitted form's rows are what the editor sent.
        if isinstance(inline, ArticleAuthorInline) and obj._state.adding and not kwargs.get("data"):
            author = Author.objects.filter(user=request.user).first()
            if author is not None:
                kwargs["initial"] = [{"author": author.pk, "position": 0}]
        return kwargs

    def revision_view(self, request, object_id, version_id, extra_context=None):
        request.skillo_current_version = (
            Article.objects.filter(pk=object_id).values_list("version", flat=True).first()
        )
        return super().revision_view(request, object_id, version_id, extra_context)

    def get_fieldsets(self, request, obj=None):
        fieldsets = super().get_fieldsets(request, obj)
        if obj is not None and obj.is_published():
            # Only what readers have seen gets a public note (ArticleForm checks it too).
            fieldsets = [
                *fieldsets,
                ("Correction or update", {"fields": ["change_kind", "change_note"]}),
            ]
        return fieldsets

    def save_model(self, request, obj, form, change):
        old_status = form.initial.get("status") if change else None
        request.skillo_step = workflow.step(old_status, obj)
        obj.updated_by = request.user
        if change and form.cleaned_data.get("loaded_version"):
            # The version checked in clean(); save() moves it on. (Restoring a revision
            # put an old number on the instance.)
            obj.version = form.cleaned_data["loaded_version"]
        super().save_model(request, obj, form, change)
        request.skillo_saved = obj
        if request.skillo_step is None and form.email_stored != obj.email_subscribers:
            # A scheduled story's e-mail chosen again at the same time: no publication
            # for the newsletter to hear of, so it is told.
            email_choice_changed.send(sender=Article, article=obj)
        keeping.forget_autosave(request.user, obj, added=not change)
        workflow.tell(request, obj, request.skillo_step, form.cleaned_data.get("workflow_note"))
        conversation.record(
            request.user, obj, request.skillo_step, form.cleaned_data.get("workflow_note")
        )
        # Who saves has read the conversation they answered.
        conversation.mark_seen(request.user, obj)
        if change and form.cleaned_data.get("change_kind"):
            # Made when this save's revision is stored, tied to it (its diff).
            reversion.add_meta(
                Correction,
                article=obj,
                kind=form.cleaned_data["change_kind"],
                note=form.cleaned_data["change_note"],
            )

    def message_user(self, request, message, level=messages.INFO, *args, **kwargs):
        # A workflow step says what happened and where, instead of Django's "was changed
        # successfully" (editorial.workflow.outcome).
        article = getattr(request, "skillo_saved", None)
        if level == messages.SUCCESS and article is not None:
            said = workflow.outcome(request, article, getattr(request, "skillo_step", None))
            if said:
                message = said
        return super().message_user(request, message, level, *args, **kwargs)

    @staticmethod
    def _stay_after_workflow(request):
        if "_workflow" in request.POST and "_continue" not in request.POST:
            # The bar's buttons keep the editor on the article, with its new state.
            request.POST = request.POST.copy()
            request.POST["_continue"] = "1"

    def response_add(self, request, obj, post_url_continue=None):
        self._stay_after_workflow(request)
        return super().response_add(request, obj, post_url_continue)

    def response_change(self, request, obj):
        self._stay_after_workflow(request)
        return super().response_change(request, obj)

    def construct_change_message(self, request, form, formsets, add=False):
        """The history's words: the workflow step with its note, or what was changed,
        as an editor would say it (never an internal field)."""
        note = (form.cleaned_data.get("workflow_note") or "").strip()
        step = getattr(request, "skillo_step", None)
        if step is not None:
            return workflow.history_words(step, note)
        if add:
            words = "Created"
        else:
            changed = [
                str(form.fields[name].label or name)
                for name in form.changed_data
                if name not in {"loaded_version", "workflow_note", "change_kind", "change_note"}
            ]
            changed += [
                str(formset.model._meta.verbose_name_plural)
                for formset in formsets
                if formset.has_changed()
            ]
            words = "Changed " + ", ".join(changed).lower() if changed else "Saved unchanged"
        if form.cleaned_data.get("change_kind"):
            kind = dict(form.fields["change_kind"].choices)[form.cleaned_data["change_kind"]]
            words += f"; public {kind.lower()}: {form.cleaned_data['change_note']}"
        return f"{words}. Note: {note}" if note else words

    # Columns

    @admin.display(description="status", ordering="status")
    def state(self, article):
        if article.is_scheduled:
            when = timezone.localtime(article.published_at)
            return f"Scheduled for {when:%-d %b %Y, %H:%M %Z}"
        return article.get_status_display()

    @admin.display(description="byline")
    def byline(self, article):
        return ", ".join(author.name for author in article.byline) or NO_BYLINE

    @admin.display(description="published", ordering="published_at")
    def published(self, article):
        # A draft's time is only a default the form filled in: it was never published.
        if article.status != Article.Status.PUBLISHED:
            return "Not published"
        return date_format(timezone.localtime(article.published_at), "DATETIME_FORMAT")

    @admin.display(description="tags")
    def tag_list(self, article):
        return ", ".join(tag.name for tag in article.tags.all())

    @admin.display(description="")
    def version_marker(self, article):
        # Sent back with a bulk action, so that stale selections are refused.
        return format_html(
            '<input type="hidden" name="_version_{}" value="{}">', article.pk, article.version
        )

    # Bulk actions for editors

    def response_action(self, request, queryset, **kwargs):
        action = request.POST.get("action", "")
        if not can_publish(request.user) and (
            action in EDITORIAL_ACTIONS
            or (
                action == "delete_selected"
                and queryset.filter(
                    pk__in=request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME),
                    status=Article.Status.PUBLISHED,
                ).exists()
            )
        ):
            self.message_user(
                request,
                "You do not have permission to publish, schedule, unpublish or delete "
                "published articles. Nothing was changed.",
                messages.ERROR,
            )
            return HttpResponseRedirect(request.get_full_path())
        stale = self._stale_selection(request)
        if stale:
            self.message_user(
                request,
                "Nothing was changed: since you loaded this list, "
                + "; ".join(stale)
                + ". Reload the list and try again.",
                messages.ERROR,
            )
            return HttpResponseRedirect(request.get_full_path())
        return super().response_action(request, queryset, **kwargs)

    def _stale_selection(self, request):
        selected = request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME)
        seen = {
            pk: request.POST.get(f"_version_{pk}")
            for pk in selected
            if request.POST.get(f"_version_{pk}")
        }
        changed = Article.objects.filter(pk__in=seen.keys()).values(
            "pk", "title", "version", "updated_by__username"
        )
        return [
            f"{row['updated_by__username'] or 'someone'} changed “{row['title']}”"
            for row in changed
            if str(row["version"]) != seen[str(row["pk"])]
        ]

    @admin.action(description="Publish selected articles now", permissions=["publish"])
    def publish_selected(self, request, queryset):
        now = timezone.now()

        def publish(article):
            # A backdated article keeps its date; others are published as of now.
            if (
                article.status != Article.Status.PUBLISHED and not article.is_backdated
            ) or article.published_at > now:
                article.published_at = now
            article.status = Article.Status.PUBLISHED

        count = save_each(request, queryset, publish, "Published")
        self.message_user(request, f"Published {count} article(s).", messages.SUCCESS)

    @admin.action(description="Unpublish selected articles", permissions=["publish"])
    def unpublish_selected(self, request, queryset):
        def unpublish(article):
            article.status = Article.Status.DRAFT

        count = save_each(request, queryset, unpublish, "Unpublished")
        self.message_user(request, f"Unpublished {count} article(s).", messages.SUCCESS)

    @admin.action(description="Schedule selected articles…", permissions=["publish"])
    def schedule_selected(self, request, queryset):
        form = ScheduleForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            when = form.cleaned_data["publish_at"]

            def schedule(article):
                article.status = Article.Status.PUBLISHED
                article.published_at = when

            count = save_each(request, queryset, schedule, f"Scheduled for {when:%Y-%m-%d %H:%M}")
            local = timezone.localtime(when)
            self.message_user(
                request, f"Scheduled {count} article(s) for {local:%d %B %Y %H:%M}.",
                messages.SUCCESS,
            )  # fmt: skip
            return None
        return render(
            request,
            "admin/news/article/schedule.html",
            {
                **self.admin_site.each_context(request),
                "title": "Schedule articles",
                "articles": queryset,
                "form": form,
                "opts": self.model._meta,
                "action_checkbox_name": admin.helpers.ACTION_CHECKBOX_NAME,
                "versions": {
                    f"_version_{pk}": request.POST.get(f"_version_{pk}")
                    for pk in request.POST.getlist(admin.helpers.ACTION_CHECKBOX_NAME)
                },
            },
        )

    # Revisions: the compare view cannot diff a TaggableManager by itself (tags are not in
    # the article's serialised fields), so tags are compared from each revision's items.

    # Not what an editor compares: derived text, and the save's own bookkeeping (who and
    # when are the history list's lines).
    compare_exclude = [
        "tags", "body_html", "body_text", "search_extra", "version", "updated_at", "updated_by",
    ]  # fmt: skip

    compare_template = "admin/news/article/compare.html"
    object_history_template = "admin/revisions/object_history.html"
    # Prose is compared word by word (editorial.prose_diff), not character by character.
    prose_fields = ["title", "summary", "body"]

    def compare(self, obj, version1, version2):
        result = super().compare(obj, version1, version2)
        # reversion-compare lists a relation it does not follow as changed even when both
        # versions name the same row, or none ("social image add: None").
        result.diff = [
            entry
            for entry in result.diff
            if not (entry["is_related"] and not entry["follow"])
            or version1.field_dict.get(entry["field"].name)
            != version2.field_dict.get(entry["field"].name)
        ]
        result.has_unfollowed_fields = any(
            entry["is_related"] and not entry["follow"] for entry in result.diff
        )
        for entry in result.diff:
            name = getattr(entry["field"], "name", None)
            if name in self.prose_fields:
                entry["diff"] = prose_diff(
                    version1.field_dict.get(name, ""), version2.field_dict.get(name, "")
                )
        before, after = self._tag_names(version1), self._tag_names(version2)
        if before != after:
            result.diff.append(
                {
                    "field": Article._meta.get_field("tags"),
                    "is_related": False,
                    "follow": True,
                    "diff": html_diff(before, after),
                }
            )
        return result

    @staticmethod
    def _tag_names(version):
        ids = [
            item.field_dict.get("tag_id")
            for item in version.revision.version_set.all()
            if item.content_type.model == "taggedarticle"
        ]
        return ", ".join(sorted(Tag.objects.filter(pk__in=ids).values_list("name", flat=True)))

    # Markdown preview and the "wanted articles" queue

    def get_urls(self):
        return [
            path(
                "autosave/",
                self.admin_site.admin_view(self.autosave_view),
                name="news_article_autosave",
            ),
            path(
                "<int:object_id>/presence/",
                self.admin_site.admin_view(self.presence_view),
                name="news_article_presence",
            ),
            path(
                "preview/",
                self.admin_site.admin_view(self.preview_view),
                name="news_article_preview",
            ),
            path(
                "calendar/",
                self.admin_site.admin_view(self.calendar_view),
                name="news_article_calendar",
            ),
            path(
                "<int:object_id>/reschedule/",
                self.admin_site.admin_view(self.reschedule_view),
                name="news_article_reschedule",
            ),
            path(
                "wanted/",
                self.admin_site.admin_view(self.wanted_view),
                name="news_article_wanted",
            ),
            path(
                "<int:object_id>/send/",
                self.admin_site.admin_view(self.send_view),
                name="news_article_send",
            ),
            path(
                "<int:object_id>/preview-link/",
                self.admin_site.admin_view(self.preview_link_view),
                name="news_article_preview_link",
            ),
            path(
                "<int:object_id>/preview-link/<int:link_id>/revoke/",
                self.admin_site.admin_view(self.revoke_preview_link_view),
                name="news_article_revoke_preview_link",
            ),
            path(
                "slug/",
                self.admin_site.admin_view(self.slug_view),
                name="news_article_slug",
            ),
            *super().get_urls(),
        ]

    def _changeable(self, request, object_id):
        article = Article.objects.filter(pk=object_id).first()
        if article is None or not self.has_change_permission(request, article):
            raise PermissionDenied
        return article

    @staticmethod
    def _in_history(request, article, words):
        article.note_in_history(request.user, words)

    def preview_link_view(self, request, object_id):
        """Make a preview link for someone outside the newsroom; shown once, recorded in
        the article's history."""
        if request.method != "POST":
            return HttpResponse(status=405)
        article = self._changeable(request, object_id)
        try:
            hours = int(request.POST.get("_preview_hours", "24"))
        except ValueError:
            hours = 24
        token, link = previews.make(article, request.user, hours)
        url = absolute(reverse("shared-preview", args=[token]))
        until = f"{timezone.localtime(link.expires_at):%-d %B %Y, %H:%M %Z}"
        self._in_history(request, article, f"Preview link made, valid until {until}")
        self.message_user(
            request,
            format_html(
                "Preview link, valid until {} (copy it now: it is not shown again): "
                '<a class="preview-link" href="{}">{}</a>',
                until,
                url,
                url,
            ),
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:news_article_change", args=[article.pk]))

    def send_view(self, request, object_id):
        """E-mail a story published without it to the newsletter's subscribers, once:
        of requests at the same moment (a double click, two editors) one conditional
        update wins; the others are told it went."""
        if request.method != "POST":
            return HttpResponse(status=405)
        if not can_publish(request.user):
            raise PermissionDenied
        article = self._changeable(request, object_id)
        with transaction.atomic():
            won = (
                Article.objects.published()
                .filter(pk=article.pk, email_subscribers=False)
                .update(email_subscribers=True)
            )
            if won:
                article.email_subscribers = True
                answers = email_choice_changed.send(sender=Article, article=article)
                planned = any(answer for _, answer in answers)
                if planned:
                    words = workflow.SENT_LATER
                else:
                    words = "Asked to send to subscribers: they had it already"
                self._in_history(request, article, words)
                conversation.record(request.user, article, workflow.Step(words, "writer"), "")
        title = f"“{article.title}”"
        if not won:
            said = f"{title} was sent to subscribers already (or is no longer public): once only."
            self.message_user(request, said, messages.WARNING)
        elif planned:
            self.message_user(
                request, f"{title} is being e-mailed to subscribers.", messages.SUCCESS
            )
        else:
            self.message_user(
                request,
                f"{title} went to subscribers when it was first published: a story is "
                "e-mailed once.",
                messages.WARNING,
            )
        return HttpResponseRedirect(reverse("admin:news_article_change", args=[article.pk]))

    def revoke_preview_link_view(self, request, object_id, link_id):
        if request.method != "POST":
            return HttpResponse(status=405)
        article = self._changeable(request, object_id)
        # A conditional update: of requests sent at the same moment (a double click, two
        # editors), one revokes and writes the history line, in one transaction; the
        # others wait for its row, then find it revoked.
        with transaction.atomic():
            revoked = previews.active(article).filter(pk=link_id).update(revoked_at=timezone.now())
            if revoked:
                self._in_history(request, article, "Preview link revoked")
        if revoked:
            self.message_user(request, "The preview link was revoked: it no longer opens.")
        else:
            self.message_user(
                request, "The preview link no longer opens: it was revoked or had expired already."
            )
        return HttpResponseRedirect(reverse("admin:news_article_change", args=[article.pk]))

    def preview_view(self, request):
        """The article as readers will see it, from the form's unsaved data, rendered
        and sanitised like the public page (editorial.preview)."""
        if request.method != "POST":
            return HttpResponse(status=405)
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        return HttpResponse(
            preview_document(request.POST, host=request.get_host()),
            content_type="text/html; charset=utf-8",
            headers={"Cache-Control": "no-store, private"},
        )

    def _article_for(self, request, object_id):
        """The article a keeping request is about (None: a new one), if the user may
        edit it."""
        if not object_id:
            if not self.has_add_permission(request):
                raise PermissionDenied
            return None
        article = Article.objects.filter(pk=object_id).first()
        if article is None or not self.has_change_permission(request, article):
            raise PermissionDenied
        return article

    def autosave_view(self, request):
        """Keep what the editor has typed so far (their page sends it every few seconds
        while they type)."""
        if request.method != "POST":
            return HttpResponse(status=405)
        article = self._article_for(request, request.POST.get("article") or None)
        saved = keeping.autosave(request.user, article, request.POST)
        when = timezone.localtime(saved.saved_at)
        return JsonResponse({"saved_at": when.isoformat(), "shown": f"{when:%H:%M:%S}"})

    def presence_view(self, request, object_id):
        """Note that this editor has the article open; say who else has."""
        if request.method != "POST":
            return HttpResponse(status=405)
        if request.POST.get("leave"):
            # The page is closing (sent as a beacon on pagehide): nobody waits for this.
            # No permission asked: one's own presence always ends, also on an article
            # published while it was open (read-only to a writer since).
            keeping.leave(request.user, object_id)
            return HttpResponse(status=204)
        article = self._article_for(request, object_id)
        return JsonResponse({"others": keeping.describe(keeping.here(request.user, article))})

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        extra_context = extra_context or {}
        if request.method == "GET":
            article = Article.objects.filter(pk=object_id).first() if object_id else None
            saved = keeping.newer_autosave(request.user, article)
            if saved is not None:
                extra_context["autosaved"] = saved
            if article is not None:
                extra_context["others_here"] = keeping.describe(
                    keeping.others_here(request.user, article)
                )
                # Read now: the lines new to this user are marked once, on this page.
                extra_context.update(self._conversation(request, article))
                conversation.mark_seen(request.user, article)
        return super().changeform_view(request, object_id, form_url, extra_context)

    def render_change_form(self, request, context, add=False, change=False, form_url="", obj=None):
        if change and obj is not None and context["adminform"].form.is_bound:
            # A refused save: validating the form wrote its values, the refused action's
            # status among them, onto ``obj``. The bar, the permissions and the panels
            # are about the article as stored; the form keeps what was typed.
            stored = Article.objects.filter(pk=obj.pk).first()
            if stored is not None:
                obj = context["original"] = stored
                # With the note field, which may be what was refused.
                context.update(self._conversation(request, stored))
        return super().render_change_form(request, context, add, change, form_url, obj)

    @staticmethod
    def _conversation(request, article):
        thread = conversation.thread(request.user, article)
        return {"conversation": thread, "conversation_new": sum(new for _, new in thread)}

    def slug_view(self, request):
        """The slug the server would make from ``text`` (the slug field's pre-fill), and
        the story already at that address, if any but ``article`` (the one being edited),
        which the form names as the title is typed."""
        if not self.has_view_or_change_permission(request):
            raise PermissionDenied
        text = request.GET.get("text", "")[:200]
        slug = slug_from_title(text) if text.strip() else ""
        other = taken_slug(slug, request.GET.get("article", ""))
        taken = other and {
            "title": other.title,
            "url": reverse("admin:news_article_change", args=[other.pk]),
        }
        return JsonResponse({"slug": slug, "taken": taken or None})

    def calendar_view(self, request):
        """Scheduled and published stories by day, a month or a week at a time; editors
        move a scheduled story to another day by dragging it, or with its own form."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        kind, day = calendar.chosen(request.GET)
        shown = calendar.period(kind, day)
        return render(
            request,
            "admin/news/article/calendar.html",
            {
                **self.admin_site.each_context(request),
                "title": f"Calendar: {shown.title}",
                "period": shown,
                "can_move": can_publish(request.user),
                "here": request.get_full_path(),
                "opts": self.model._meta,
            },
        )

    def reschedule_view(self, request, object_id):
        """Move a scheduled story to another day at the same time of day (the calendar's
        drag and its keyboard form), as one revision; back to the calendar with what
        happened."""
        if request.method != "POST":
            return HttpResponse(status=405)
        if not can_publish(request.user):
            raise PermissionDenied
        article = self._changeable(request, object_id)
        back = request.POST.get("next", "")
        if not back.startswith(reverse("admin:news_article_calendar")):
            back = reverse("admin:news_article_calendar")
        day = request.POST.get("day")
        try:
            moment = calendar.move(article, day)
            before = timezone.localtime(article.published_at)
            after = timezone.localtime(moment)

            def reschedule(story):
                # Asked again of the locked row: it may have gone public meanwhile.
                story.published_at = calendar.move(story, day)

            save_each(
                request,
                Article.objects.filter(pk=article.pk),
                reschedule,
                f"Rescheduled from {before:%-d %B %Y, %H:%M} to {after:%-d %B %Y, %H:%M %Z}",
            )
        except calendar.CannotMove as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(back)
        self.message_user(
            request,
            f"Moved “{article.title}” to {after:%A %-d %B %Y, %H:%M %Z}.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(back)

    def wanted_view(self, request):
        """Related-link titles that match no article yet, most wanted first."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        return render(
            request,
            "admin/news/article/wanted.html",
            {
                **self.admin_site.each_context(request),
                "title": "Wanted articles",
                "rows": queues.wanted_titles(),
                "opts": self.model._meta,
            },
        )


@admin.register(FactsDue)
class FactsDueAdmin(admin.ModelAdmin):
    list_display = ["edit_link", "verified_month", "published_at", "event_date"]
    list_display_links = None
    ordering = ["facts_verified", "published_at"]
    actions = ["verified_this_month"]
    search_fields = ["title"]

    def get_queryset(self, request):
        return queues.facts_due(FactsDue.objects)

    @admin.display(description="title", ordering="title")
    def edit_link(self, article):
        # To the article's own editor, where the facts are checked and fixed.
        return format_html(
            '<a href="{}">{}</a>',
            reverse("admin:news_article_change", args=[article.pk]),
            article.title,
        )

    @admin.display(description="facts verified", ordering="facts_verified")
    def verified_month(self, article):
        return f"{article.facts_verified:%B %Y}"

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("news.view_article")

    def has_change_permission(self, request, obj=None):
        return False

    def has_publish_permission(self, request):
        return can_publish(request.user)

    @admin.action(description="Facts verified this month", permissions=["publish"])
    def verified_this_month(self, request, queryset):
        month = timezone.localdate().replace(day=1)

        def verify(article):
            article.facts_verified = month

        count = save_each(request, queryset, verify, "Facts verified")
        self.message_user(
            request, f"Marked {count} article(s) as verified in {month:%B %Y}.", messages.SUCCESS
        )


@admin.register(Correction)
class CorrectionAdmin(CompareVersionAdmin):
    """Corrections and updates: made with an article's save. Only admins may edit or
    remove one (editors lack the permissions), and each edit or removal is a revision of
    its own, with who and when (History; removed ones under "Recover deleted")."""

    list_display = ["article", "kind", "published_at", "short_note", "diff_link"]
    list_filter = ["kind", "published_at"]
    list_select_related = ["article", "revision"]
    search_fields = ["note", "article__title"]
    date_hierarchy = "published_at"
    fields = ["article", "kind", "published_at", "note", "diff_link"]
    readonly_fields = ["article", "kind", "published_at", "diff_link"]
    compare_template = "admin/revisions/compare.html"
    object_history_template = "admin/revisions/object_history.html"
    # One at a time, each with its own revision: no bulk deletion.
    actions = None

    def has_add_permission(self, request):
        return False

    @admin.display(description="note")
    def short_note(self, correction):
        return correction.note if len(correction.note) <= 80 else correction.note[:79] + "…"

    @admin.display(description="the change")
    def diff_link(self, correction):
        """The article's revision that came with the note, compared with the one before."""
        if correction.revision is None:
            return "none"
        versions = list(
            Version.objects.get_for_object_reference(Article, correction.article_id)
            .filter(revision_id__lte=correction.revision_id)
            .order_by("-revision_id")
            .values_list("pk", flat=True)[:2]
        )
        if len(versions) < 2:
            return "none"
        url = reverse("admin:news_article_compare", args=[correction.article_id])
        query = urlencode({"version_id1": versions[1], "version_id2": versions[0]})
        return format_html('<a href="{}?{}">Compare with the version before</a>', url, query)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        # The page changed: dateModified and the sitemap's lastmod move.
        Article.objects.filter(pk=obj.article_id).update(updated_at=timezone.now())

    def delete_model(self, request, obj):
        # The note as it was, kept in a revision saying who removed it.
        with reversion.create_revision():
            reversion.set_user(request.user)
            reversion.set_comment(f"Removed this {obj.get_kind_display().lower()}.")
            reversion.add_to_revision(obj)
        super().delete_model(request, obj)
        Article.objects.filter(pk=obj.article_id).update(updated_at=timezone.now())


class AuthorLinkInline(admin.TabularInline):
    model = AuthorLink
    fields = ["position", "label", "url"]
    extra = 1


@admin.register(Author)
class AuthorAdmin(NamedEmptyAutocomplete, admin.ModelAdmin):
    """Authors: their page is /authors/<slug>/; one with articles cannot be deleted."""

    form = AuthorForm
    list_display = ["name", "role", "slug", "user", "article_count"]
    list_select_related = ["user"]
    search_fields = ["name", "role", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [AuthorLinkInline]
    fields = ["name", "slug", "role", "photo", "bio", "user"]
    autocomplete_fields = ["photo"]

    def get_queryset(self, request):
        # Meta.ordering does not apply to a grouped query (the autocomplete needs one).
        return (
            super()
            .get_queryset(request)
            .annotate(articles=Count("authorships"))
            .order_by("name", "pk")
        )

    @admin.display(description="articles", ordering="articles")
    def article_count(self, author):
        return author.articles

    def view_on_site(self, author):
        return author_url(author)

    # Editors keep every profile; anyone keeps their own name, bio and photo.

    def _own(self, request, author):
        return author is not None and author.user_id == request.user.pk

    def _only_own(self, request, author):
        return self._own(request, author) and not super().has_change_permission(request, author)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) or self._own(request, obj)

    def get_readonly_fields(self, request, obj=None):
        if self._only_own(request, obj):
            return ["slug", "role", "user"]
        return super().get_readonly_fields(request, obj)

    def get_prepopulated_fields(self, request, obj=None):
        return {} if self._only_own(request, obj) else super().get_prepopulated_fields(request, obj)


@admin.register(FrontPin)
class FrontPinAdmin(NamedEmptyAutocomplete, admin.ModelAdmin):
    """The home page as the editors choose it: a lead story and pinned features, each
    until a time or until removed. Without any, the home page lists the latest."""

    form = FrontPinForm
    list_display = ["article", "lead", "position", "until", "readers_see"]
    list_editable = ["position", "until"]
    list_select_related = ["article"]
    autocomplete_fields = ["article"]
    fields = ["article", "lead", "replace_lead", "use_body_picture", "position", "until"]

    # Saves of a lead story tried before the editor sees an error: each try that fails
    # does so because another editor's lead was saved first, so several editors saving
    # at the same moment all get their answer within as many tries as there are of them.
    LEAD_SAVE_TRIES = 10

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        for _ in range(self.LEAD_SAVE_TRIES - 1):
            try:
                return super().changeform_view(request, object_id, form_url, extra_context)
            except IntegrityError:
                if request.method != "POST":
                    raise
                # Another editor's lead story was saved at the same moment, first
                # (one_lead_story): this save was rolled back whole. The form, read again,
                # names their lead and asks before replacing it, or replaces it if this
                # editor asked for that.
        return super().changeform_view(request, object_id, form_url, extra_context)

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        article = obj.article
        # Set by the form's clean(), which the list's forms share.
        if getattr(form, "body_picture", None) is not None:
            with reversion.create_revision():
                reversion.set_user(request.user)
                reversion.set_comment(
                    "Lead image: the body's first picture, chosen when pinning it to the home page."
                )
                article.lead_image = form.body_picture
                article.save()
            self.message_user(
                request,
                f"The body's first picture, “{article.lead_image}”, "
                f"is now the lead image of “{article.title}”.",
                messages.SUCCESS,
            )
        elif obj.lead and article.lead_image_id is None:
            self.message_user(request, self.no_lead_image(obj), messages.WARNING)

    def no_lead_image(self, pin):
        """What the editor is told about a lead story without a lead image, and the body's
        picture offered instead."""
        said = f"No lead image: “{pin.article.title}” shows as text on the home page."
        picture = offered_lead_image(pin.article)
        if picture is None:
            return said
        return format_html(
            "{} Its body's first picture, “{}”, can be its lead image: tick “Use the body's "
            'first picture” on <a href="{}">this choice</a>.',
            said,
            picture,
            reverse("admin:news_frontpin_change", args=[pin.pk]),
        )

    @admin.display(description="what readers see now")
    def readers_see(self, pin):
        if pin.until is not None and pin.until <= timezone.now():
            return "Nothing: its time ran out"
        if not pin.article.is_published():
            return "Nothing: the article is not public"
        if pin.lead and pin.article.lead_image_id is None:
            return "The lead story, as text (no lead image)"
        return "The lead story" if pin.lead else f"A feature, at position {pin.position}"

    def get_fields(self, request, obj=None):
        from news.models import FrontPin

        fields = list(super().get_fields(request, obj))
        others = FrontPin.objects.active().filter(lead=True)
        if obj is not None:
            others = others.exclude(pk=obj.pk)
        if not others.exists():
            fields.remove("replace_lead")  # nothing to replace: nothing to ask
        if obj is not None and (
            obj.article.lead_image_id is not None or offered_lead_image(obj.article) is None
        ):
            fields.remove("use_body_picture")  # it has one, or there is none to offer
        return fields

    def has_module_permission(self, request):
        return can_publish(request.user) or super().has_module_permission(request)

    def has_add_permission(self, request):
        return can_publish(request.user)

    def has_change_permission(self, request, obj=None):
        return can_publish(request.user)

    def has_delete_permission(self, request, obj=None):
        return can_publish(request.user)

    def has_view_permission(self, request, obj=None):
        return can_publish(request.user)


# Skillo's tags are news.Tag; taggit's own (generic) tag tables are unused.
admin.site.unregister(TaggitTag)


@admin.register(Tag)
class TagAdmin(admin.ModelAdmin):
    """Topics: renaming one keeps its address (the slug), which editors may change too;
    editors choose the header's topics (their positions) and write each topic's intro."""

    list_display = ["name", "slug", "header_position", "article_count"]
    list_editable = ["header_position"]
    list_filter = [("header_position", admin.EmptyFieldListFilter)]
    search_fields = ["name"]
    ordering = ["name"]
    fields = ["name", "slug", "header_position", "intro"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(articles=Count("tagged_articles"))

    @admin.display(description="articles", ordering="articles")
    def article_count(self, tag):
        return tag.articles


from . import image_admin, sources_admin  # noqa: E402, F401 - more of the admin


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """People invited into the newsroom by e-mail, with their role."""

    form = InvitationForm
    list_display = ["email", "role", "invited_by", "created_at", "state"]
    fields = ["email", "name", "role"]

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except IntegrityError:
            if request.method != "POST":
                raise
            # The same address invited at the same moment (a double click) by a request
            # that saved first (one_waiting_invitation_per_address): this one was rolled
            # back whole, its e-mail with it, and the form, read again, says so.
            return super().changeform_view(request, object_id, form_url, extra_context)

    @admin.display(description="state")
    def state(self, invitation):
        if invitation.accepted_at:
            return f"Joined as {invitation.user} on {invitation.accepted_at:%-d %B %Y}"
        if invitation.expires_at <= timezone.now():
            return "Expired"
        return f"Waiting, until {timezone.localtime(invitation.expires_at):%-d %B %Y}"

    def has_module_permission(self, request):
        return request.user.has_perm("auth.add_user")

    def has_view_permission(self, request, obj=None):
        return request.user.has_perm("auth.add_user")

    def has_add_permission(self, request):
        return request.user.has_perm("auth.add_user")

    def has_change_permission(self, request, obj=None):
        return False  # an invitation is sent as it is; a new one replaces it

    def has_delete_permission(self, request, obj=None):
        return request.user.has_perm("auth.add_user")

    def save_model(self, request, obj, form, change):
        invitations.invite(obj, request.user)

    def response_add(self, request, obj, post_url_continue=None):
        self.message_user(
            request,
            f"Invitation sent to {obj.email} as {obj.get_role_display().lower()}: the link "
            f"in it works for {invitations.DAYS} days.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(reverse("admin:editorial_invitation_changelist"))
