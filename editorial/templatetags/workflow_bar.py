from django import template
from django.conf import settings
from django.urls import reverse
from django.utils import timezone
from django.utils.http import urlencode

from editorial import conversation, workflow
from editorial.checks import NEW_TOPIC, NEW_TOPIC_MAKES, quoted
from editorial.image_admin import ACCEPT
from images.models import Licence
from images.uploads import ACCEPTED_NAMES

register = template.Library()


@register.inclusion_tag("admin/news/article/workflow_bar.html", takes_context=True)
def workflow_bar(context, article):
    """The article form's bar: its state, and the actions the user may take (none on a
    form they may only read)."""
    request = context["request"]
    can_change = context.get("add") or context.get("has_change_permission")
    actions = workflow.actions_for(request.user, article) if can_change else []
    soon = timezone.localtime() + timezone.timedelta(hours=1)
    email_default = settings.SKILLO_EMAIL_STORIES_ON_PUBLISH
    posted = request.POST if request.method == "POST" else {}
    scheduled = article is not None and article.pk is not None and article.is_scheduled
    return {
        "state": workflow.state_of(article),
        "actions": actions,
        "labels": workflow.ACTIONS,
        "save_label": workflow.save_label(article),
        # A refused schedule keeps the time and the choice the editor gave.
        "schedule_default": posted.get("_schedule_at")
        or soon.replace(minute=0).strftime("%Y-%m-%dT%H:%M"),
        "schedule_send": bool(posted.get("_schedule_send"))
        if "_schedule_at" in posted
        else (article.email_subscribers if scheduled else email_default),
        "email_default": email_default,
        "send_url": reverse("admin:news_article_send", args=[article.pk])
        if "send" in actions
        else "",
        "zone": timezone.get_current_timezone_name(),
        **confirmation(context, posted),
    }


def confirmation(context, posted):
    """After a save refused for new topics (ArticleForm._check_new_topics): the same
    action again, with the topics confirmed in its address's query."""
    adminform = context.get("adminform")
    new = getattr(adminform.form, "topics_to_confirm", None) if adminform else None
    if not new:
        return {}
    action = posted.get("_workflow") or "save"
    label = workflow.ACTIONS.get(action, "save").rstrip("…").lower()
    if action == "save":
        label = "save"
    return {
        "topics_to_confirm": quoted(new),
        "new_topic": NEW_TOPIC,
        "new_topic_makes": NEW_TOPIC_MAKES,
        "repeat_action": action,
        "confirm_query": urlencode([("_new_topics", name) for name in new]),
        "confirm_label": f"Create the topics, then {label}",
    }


def field_id(bound):
    """The id of the element that takes the cursor: a date and time's first box."""
    if hasattr(bound.field.widget, "widgets"):
        return f"{bound.auto_id}_0"
    return bound.id_for_label


@register.inclusion_tag("admin/news/article/error_summary.html")
def error_summary(adminform, inline_admin_formsets):
    """Every error of the form and its inlines, each linking to its field."""
    form = adminform.form
    rows = []
    for name, errors in form.errors.items():
        if name == "__all__":
            rows += [("", "", error) for error in errors]
            continue
        field = form[name] if name in form.fields else None
        label = field.label if field is not None else name
        href = f"#{field_id(field)}" if field is not None else ""
        rows += [(href, label, error) for error in errors]
    for inline in inline_admin_formsets:
        formset = inline.formset
        title = formset.model._meta.verbose_name_plural.capitalize()
        rows += [(f"#{formset.prefix}-group", title, error) for error in formset.non_form_errors()]
        for index, errors in enumerate(formset.errors):
            row = formset.forms[index]
            for name, messages in errors.items():
                href = (
                    f"#{field_id(row[name])}" if name in row.fields else f"#{formset.prefix}-group"
                )
                label = f"{title}, row {index + 1}" + (
                    f", {row.fields[name].label}" if name in row.fields else ""
                )
                rows += [(href, label, message) for message in messages]
    return {"rows": rows}


@register.simple_tag
def note_headline(note):
    return conversation.headline(note)


@register.inclusion_tag("admin/news/article/preview_links.html")
def preview_links(article):
    """Links to the unpublished article for outside reviewers: the live ones, and a
    button to make one (inside the article's form: its buttons post elsewhere)."""
    from editorial import previews

    return {
        "article": article,
        "links": list(previews.active(article)),
        "choices": previews.CHOICES,
    }


@register.inclusion_tag("admin/news/article/body_image_dialog.html", takes_context=True)
def body_image_dialog(context):
    """The body's image dialog (static/editorial/body-images.js): a library search, and
    the words a dropped, pasted or chosen picture needs before it is uploaded."""
    user = context["request"].user
    return {
        "can_pick": user.has_perm("images.view_image"),
        "can_upload": user.has_perm("images.add_image"),
        "licences": Licence.choices,
        "accept": ACCEPT,
        "accepted_names": ACCEPTED_NAMES,
    }
