"""The article form and the forms of the publishing actions."""

from django import forms
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from images.models import KEY_LENGTH, Image
from news.models import Article, Correction, Tag
from news.rendering import placements
from news.rules import lead_image_problems, within_years
from news.slugs import lock_article_slugs, slug_from_title
from people.models import Author

from . import invitations
from .checks import NEW_TOPIC, NEW_TOPIC_MAKES, new_topics, quoted
from .models import Invitation
from .roles import can_publish

WRITERS_CANNOT_PUBLISH = (
    "You cannot publish or schedule articles: choose “Ready for review” and an editor will."
)


class ArticleForm(forms.ModelForm):
    facts_verified = forms.DateField(
        label="Facts verified",
        input_formats=["%Y-%m", "%Y-%m-%d"],
        error_messages={"invalid": "Enter the month as YYYY-MM, for example 2024-07."},
        widget=forms.DateInput(attrs={"type": "month"}, format="%Y-%m"),
        help_text="The month in which an editor last checked the facts (YYYY-MM).",
        initial=timezone.localdate,
    )
    # The version the editor started from; a save based on an older one is refused.
    loaded_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    workflow_note = forms.CharField(
        label="Note",
        required=False,
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=(
            "For the writer or the editors: sent with the e-mail when you submit the "
            "article, send it back or publish it, and kept in its history."
        ),
    )
    # A public note tied to this save's revision (news.Correction); published articles only.
    change_kind = forms.ChoiceField(
        label="Public note",
        required=False,
        choices=[("", "None: a silent fix (typos, wording)"), *Correction.Kind.choices],
        help_text="A correction is shown at the top of the article and on /corrections/; "
        "an update at its end.",
    )
    change_note = forms.CharField(
        label="Note for readers",
        required=False,
        widget=forms.Textarea(attrs={"rows": 2}),
        validators=Correction._meta.get_field("note").validators,
        help_text="What was wrong and what it now says, or what is new. Cannot be removed "
        "or edited later except by an admin.",
    )

    class Meta:
        model = Article
        fields = [
            "title", "slug", "summary", "lead_image", "body", "tags",
            "search_title", "meta_description", "social_image",
            "status", "event_date", "published_at", "facts_verified",
        ]  # fmt: skip
        error_messages = {
            "title": {
                "max_length": "A title can be at most %(limit_value)d characters long; "
                "this one has %(show_value)d.",
            },
            "search_title": {
                "max_length": "A search title can be at most %(limit_value)d characters long "
                "(search results cut what is longer); this one has %(show_value)d.",
            },
            "meta_description": {
                "max_length": "A meta description can be at most %(limit_value)d characters "
                "long (search results cut what is longer); this one has %(show_value)d.",
            },
            "event_date": {"invalid": "Enter the date as YYYY-MM-DD, for example 2024-07-24."},
            "published_at": {
                "invalid_date": "Enter the date as YYYY-MM-DD, for example 2024-07-24.",
                "invalid_time": "Enter the time as HH:MM, for example 09:30.",
            },
        }

    def __init__(self, *args, user=None, current_version=None, confirmed_topics=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        # New topics the editor confirmed creating ("Create the topics, then publish");
        # those found unconfirmed when the save would make them public.
        self.confirmed_topics = set(confirmed_topics)
        self.topics_to_confirm = []
        # E-mail the story to subscribers (Article.email_subscribers)? The bar's choice;
        # read before the form changes the instance, as stored.
        self.email_choice = None
        self.email_stored = self.instance.email_subscribers
        # Read before the form changes the instance: notes are for articles readers saw.
        self.was_public = bool(self.instance.pk) and self.instance.is_published()
        self.was_published = bool(self.instance.pk) and (
            self.instance.status == Article.Status.PUBLISHED
        )
        # Restoring a revision loads its old field values, version included, into the
        # instance and (inside the view's transaction) the row; the admin passes the
        # version the article had before that.
        self.current_version = current_version
        if self.instance.pk and not self.is_bound:
            self.initial["loaded_version"] = current_version or self.instance.version
        if "published_at" in self.fields:
            # Whether the time was typed on purpose (_publish_now_unless_timed) is judged
            # against the stored time, not against the hidden copy Django sends with a
            # field whose default is callable: a refused save renders that copy from what
            # was typed, so the save sent again found the time "unchanged" and published
            # the story now instead of at the time typed.
            self.fields["published_at"].show_hidden_initial = False
            # The zone the admin's date and time fields are read in, in the label itself.
            self.fields[
                "published_at"
            ].label = f"Published ({timezone.get_current_timezone_name()})"
        if "tags" in self.fields and not self.is_bound:
            # (A bound form's are marked by clean(), from the tags it was sent.)
            self._mark_new_topics(new_topics(self._stored_tags()))
        if user is not None and not can_publish(user) and "status" in self.fields:
            # Writers never see a choice they may not make.
            self.fields["status"].choices = [
                choice
                for choice in self.fields["status"].choices
                if choice[0] != Article.Status.PUBLISHED
            ]
            self.fields["status"].help_text = (
                "Save drafts while you write; choose “Ready for review” to hand it to the "
                "editors, who publish it."
            )
            self.fields["status"].error_messages["invalid_choice"] = WRITERS_CANNOT_PUBLISH

    def _stored_tags(self):
        return [getattr(tag, "name", tag) for tag in self.initial.get("tags") or []]

    def _mark_new_topics(self, new):
        """Under the tags: those that are no public topic yet, which an editor creates by
        publishing (editorial.checks.new_topics)."""
        if new:
            field = self.fields["tags"]
            field.help_text = format_html(
                '{} <strong class="new-topics">{}: {}.</strong>',
                field.help_text,
                quoted(new),
                NEW_TOPIC,
            )

    def _check_new_topics(self, cleaned):
        """A save that makes the article public (or scheduled) with new topics makes them
        public topics. Those the editor typed in this very save are their own act; those
        the article had (a writer's) are confirmed first. Refused, the form keeps what
        was typed and the bar offers the same action again, confirmed."""
        if "tags" not in cleaned:
            return
        new = new_topics(cleaned["tags"])
        self._mark_new_topics(new)
        if cleaned.get("status") != Article.Status.PUBLISHED:
            return
        asked = [name for name in new if name in self._stored_tags()]
        if not set(asked) <= self.confirmed_topics:
            self.topics_to_confirm = asked
            self.add_error(
                "tags",
                f"{quoted(asked)}: {NEW_TOPIC}. Publishing makes each a public topic "
                f"({NEW_TOPIC_MAKES}). Confirm with “Create the topics” in the bar above, or "
                "remove the tag; nothing you typed is lost.",
            )

    def clean(self):
        cleaned = super().clean()
        self._apply_action(cleaned)
        # The article's own fields are checked by the model (full_clean(), after this);
        # its tags are not a column of its row, so the model checks them here.
        if "tags" in cleaned:
            try:
                self.instance.validate_parts(tags=cleaned["tags"])
            except ValidationError as error:
                self.add_error(None, error)  # (drops cleaned["tags"])
        if "tags" in cleaned:
            # A topic typed by its slug is that topic, as in an import.
            cleaned["tags"] = Tag.objects.spellings(cleaned["tags"])
        slug = cleaned.get("slug")
        if slug and slug != self.instance.slug:
            # Held until the admin's transaction commits, so that the uniqueness check
            # below sees a slug another editor is saving at this moment (a form error,
            # not an IntegrityError).
            lock_article_slugs()
            other = taken_slug(slug, self.instance.pk)
            if other is not None:
                # In words, with the story: not Django's "Article with this Slug already
                # exists." (the model's own check is then skipped for the field).
                self.add_error("slug", format_html(
                    "A story at this address already exists: <a href=\"{}\">{}</a>. Change "
                    "the title or the address, or edit that story instead.",
                    reverse("admin:news_article_change", args=[other.pk]), other.title,
                ))  # fmt: skip
        self._check_note(cleaned)
        self._check_new_topics(cleaned)
        self._publish_now_unless_timed(cleaned)
        if self.instance.pk:
            self._check_not_stale(cleaned.get("loaded_version"))
        if (
            self.user is not None
            and not can_publish(self.user)
            and cleaned.get("status") == Article.Status.PUBLISHED
        ):
            self.add_error("status", WRITERS_CANNOT_PUBLISH)
        if (
            self.instance.pk
            and self.initial.get("status") == Article.Status.REVIEW
            and cleaned.get("status") == Article.Status.DRAFT
            and not cleaned.get("workflow_note", "").strip()
        ):
            self.add_error(
                "workflow_note", "Say what to change: the writer gets this note by e-mail."
            )
        return cleaned

    def _apply_action(self, cleaned):
        """The workflow bar's button (``_workflow``, editorial.workflow.ACTIONS): the
        status, time and note it stands for, over what the Status field says."""
        action = self.data.get("_workflow", "")
        if action == "submit":
            cleaned["status"] = Article.Status.REVIEW
        elif action in ("publish", "publish_send"):
            cleaned["status"] = Article.Status.PUBLISHED
            self.email_choice = action == "publish_send"
            when = cleaned.get("published_at")
            if when is not None and when > timezone.now():
                # A scheduled article published now.
                cleaned["published_at"] = timezone.now().replace(microsecond=0)
        elif action == "schedule":
            schedule = ScheduleForm({"publish_at": self.data.get("_schedule_at", "")})
            if not schedule.is_valid():
                words = " ".join(schedule.errors["publish_at"])
                self.add_error("published_at", f"To schedule it, choose when: {words}")
                return
            cleaned["status"] = Article.Status.PUBLISHED
            cleaned["published_at"] = schedule.cleaned_data["publish_at"]
            self.email_choice = bool(self.data.get("_schedule_send"))
            # A time chosen on purpose: not replaced by now (_publish_now_unless_timed).
            self.changed_data.append("published_at")
        elif action == "send_back":
            cleaned["status"] = Article.Status.DRAFT
            note = self.data.get("_send_back_note", "").strip()[:2000]
            cleaned["workflow_note"] = note or cleaned.get("workflow_note", "")
        elif action == "unpublish":
            cleaned["status"] = Article.Status.DRAFT

    def save(self, commit=True):
        # Not a field of the form: the bar's button says it (None: as it was).
        if self.email_choice is not None:
            self.instance.email_subscribers = self.email_choice
        return super().save(commit)

    def _publish_now_unless_timed(self, cleaned):
        """A first publication is now, unless the editor set the time on purpose.

        The field holds the time the draft was started (the form's default) or whatever
        a writer left in it: published days later, the story went out days in the past,
        below newer ones and in the feeds. A time the editor typed (backdating to the
        event, scheduling) is kept."""
        if (
            not self.was_published
            and cleaned.get("status") == Article.Status.PUBLISHED
            and "published_at" in self.fields
            and "published_at" not in self.changed_data
        ):
            cleaned["published_at"] = timezone.now().replace(microsecond=0)

    def _check_note(self, cleaned):
        kind = cleaned.get("change_kind")
        cleaned["change_note"] = note = (cleaned.get("change_note") or "").strip()
        if not kind and not note:
            return
        if not self.was_public:
            self.add_error(
                None,
                "Corrections and updates are for published articles: readers have not seen "
                "this one yet, so change it without a note.",
            )
        elif not kind:
            self.add_error("change_kind", "Choose correction or update for this note.")
        elif not note:
            self.add_error("change_note", "Write the note readers will see.")

    def _check_not_stale(self, loaded_version):
        # Locks the row until this save's transaction ends (the admin wraps it in one).
        current = (
            Article.objects.select_for_update(of=("self",))
            .filter(pk=self.instance.pk)
            .values("version", "updated_at", "updated_by__username")
            .first()
        )
        if current is None:
            return
        if self.current_version is not None:
            current["version"] = self.current_version
        if loaded_version == current["version"]:
            return
        who = current["updated_by__username"] or "someone else"
        when = timezone.localtime(current["updated_at"]).strftime("%H:%M:%S on %d %B %Y")
        raise ValidationError(
            f"{who} saved this article at {when}, after you opened it. Your changes have "
            "NOT been saved, and they are still in the form below: copy what you need, "
            "then reload the page to see their version and apply your changes to it."
        )


class ArticlePartFormSet(forms.BaseInlineFormSet):
    """The rows of one part of an article (its sources, its related links), which the
    model counts (Article.validate_parts); each row's own rules are checked by the model
    too, through the row form's full_clean()."""

    part = None  # the keyword of Article.validate_parts

    def clean(self):
        super().clean()
        try:
            self.instance.validate_parts(**{self.part: self.kept_rows()})
        except ValidationError as error:
            raise ValidationError(error.error_dict[self.part]) from None

    def kept_rows(self):
        """The rows the article will have once saved: stored ones not deleted, and new
        ones filled in (the form's blank extra rows are not saved)."""
        return [
            form.instance
            for index, form in enumerate(self.forms)
            if (index < self.initial_form_count() or form.has_changed())
            and not form.cleaned_data.get("DELETE")
        ]


class SourceFormSet(ArticlePartFormSet):
    part = "sources"


class RelatedLinkFormSet(ArticlePartFormSet):
    part = "related_links"


class AuthorForm(forms.ModelForm):
    """An author; an empty slug is made from the name, by the articles' rule."""

    class Meta:
        model = Author
        fields = ["name", "slug", "role", "bio", "user"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Not there for a writer, to whom the admin shows the profile read-only.
        if "slug" in self.fields:
            self.fields["slug"].required = False

    def clean(self):
        cleaned = super().clean()
        if "slug" in self.fields and not cleaned.get("slug") and cleaned.get("name"):
            base = slug_from_title(cleaned["name"], fallback="author")
            taken = set(
                Author.objects.filter(slug__startswith=base)
                .exclude(pk=self.instance.pk)
                .values_list("slug", flat=True)
            )
            slug, n = base, 2
            while slug in taken:
                slug, n = f"{base}-{n}", n + 1
            cleaned["slug"] = slug
        return cleaned


class ScheduleForm(forms.Form):
    publish_at = forms.DateTimeField(
        label="Publish at",
        validators=[within_years],
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )

    def clean_publish_at(self):
        value = self.cleaned_data["publish_at"]
        if value <= timezone.now():
            raise ValidationError("Choose a time in the future.")
        return value


def first_body_picture(article):
    """The first library picture ``article``'s body places, or None."""
    for key, _ in placements(article.body_html):
        picture = Image.objects.filter(sha256__startswith=key[:KEY_LENGTH]).first()
        if picture is not None:
            return picture
    return None


def offered_lead_image(article):
    """The body's first picture, if it may be ``article``'s lead image, or None."""
    picture = first_body_picture(article)
    return None if picture is None or lead_image_problems(picture) else picture


class FrontPinForm(forms.ModelForm):
    """A front-page choice. One lead story at a time (the constraint one_lead_story):
    making another the lead asks first, then makes the current lead a feature (it stays
    pinned); a lead readers do not see (its time ran out, its article is not public)
    becomes a feature without asking."""

    replace_lead = forms.BooleanField(
        label="Replace the current lead story",
        required=False,
        help_text="The current lead stays on the home page as a pinned feature.",
    )
    use_body_picture = forms.BooleanField(
        label="Use the body's first picture as the lead image",
        required=False,
        help_text="For an article without a lead image: the home page shows such a lead as "
        "text. The article's history records the change.",
    )

    class Meta:
        from news.models import FrontPin

        model = FrontPin
        fields = ["article", "lead", "position", "until"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # On a choice's own page: the picture offered, by its words.
        article = self.instance.article if self.instance.article_id else None
        offered = (
            offered_lead_image(article)
            if "use_body_picture" in self.fields and article and not article.lead_image_id
            else None
        )
        if offered is not None:
            label = f"Use the body's first picture, “{offered}”, as the lead image"
            self.fields["use_body_picture"].label = label

    def other_leads(self):
        from news.models import FrontPin

        return FrontPin.objects.active().filter(lead=True).exclude(pk=self.instance.pk)

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("lead") and not cleaned.get("replace_lead"):
            current = self.other_leads().select_related("article").first()
            if current is not None:
                # Above the form: the checkbox is shown only if a lead was there when
                # the page was laid out, which another editor's save may have just made.
                self.add_error(
                    None,
                    f"“{current.article.title}” is the lead story now: tick “Replace the "
                    "current lead story” to make this one the lead instead.",
                )
        self.body_picture = None
        article = cleaned.get("article")
        if cleaned.get("use_body_picture") and article and article.lead_image_id is None:
            picture = first_body_picture(article)
            if picture is None:
                self.add_error("use_body_picture", f"“{article.title}” has no picture in its body.")
            elif problems := lead_image_problems(picture):
                self.add_error("use_body_picture", problems)
            else:
                self.body_picture = picture
        return cleaned

    def validate_constraints(self):
        # one_lead_story is this form's own: clean() asks before the lead readers see is
        # replaced, save() makes the other lead a feature. Two editors saving a lead at
        # the same moment both pass clean(); the constraint stops the second at its
        # INSERT, and the admin shows it the form again (FrontPinAdmin.changeform_view).
        pass

    def save(self, commit=True):
        from news.models import FrontPin

        pin = super().save(commit=False)
        if pin.lead:
            # One lead at a time: the one it replaces stays pinned, as a feature. The
            # lead readers see only if the editor said so: one chosen by another editor
            # since this form was checked stays, and this save fails (one_lead_story).
            others = FrontPin.objects.filter(lead=True).exclude(pk=pin.pk)
            if not self.cleaned_data.get("replace_lead"):
                others = others.exclude(pk__in=self.other_leads().values("pk"))
            others.update(lead=False)
        if commit:
            pin.save()
        return pin


class InvitationForm(forms.ModelForm):
    """An invitation to the newsroom: one waiting per address (the constraint
    one_waiting_invitation_per_address), so the form sent twice (a double click) sends
    one e-mail; an expired one to the address is replaced."""

    class Meta:
        model = Invitation
        fields = ["email", "name", "role"]

    def clean_email(self):
        email = self.cleaned_data["email"]
        waiting = invitations.waiting_for(email)
        if waiting is not None:
            raise ValidationError(
                f"An invitation to {waiting.email} was sent on "
                f"{timezone.localtime(waiting.created_at):%-d %B %Y at %H:%M} and works until "
                f"{timezone.localtime(waiting.expires_at):%-d %B %Y}: delete it first to send "
                "a new one."
            )
        return email

    def validate_constraints(self):
        # one_waiting_invitation_per_address is clean_email()'s to say and invite()'s to
        # keep: an expired invitation to the address is replaced, not refused.
        pass


def taken_slug(slug, article_pk=None):
    """The story at ``slug``, if there is one other than ``article_pk``'s."""
    if not slug:
        return None
    found = Article.objects.filter(slug=slug).only("pk", "title")
    if str(article_pk or "").isdigit():
        found = found.exclude(pk=int(article_pk))
    return found.first()
