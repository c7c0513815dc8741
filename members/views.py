"""/account/: the sign-in form for a reader who is not signed in, the portal for a
member. Every page here is personal: never cached (never_cache says private), and
only here does the member's cookie go (sessions.COOKIE_PATH)."""

import json
from functools import wraps

from django.conf import settings
from django.core.exceptions import ValidationError
from django.http import HttpResponse, JsonResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from fediverse.replies import REPLIES
from news.dependencies import ARTICLE
from news.models import Article
from newsletters.forms import PreferencesForm
from pagecache.dependencies import cached_page, depends_on

from . import comments, portal, sessions, signin
from .forms import EraseForm, NameForm, SignInForm, local_path
from .links import find_link, usable
from .models import Comment, SavedStory

TOO_MANY = (
    "There have been many requests for sign-in links from your network in the last "
    "hour. Please try again in an hour."
)
SAVED = {
    "newsletter": "Saved: your newsletter choices are changed.",
    "name": "Saved: your comments show this name.",
    "subscribed": "You are subscribed: the next story or digest comes to you.",
    "left": "You have left the newsletter: nothing more is sent.",
    "not-subscribed": "This address cannot be subscribed: mail to it bounced or was "
    "marked as spam.",
}


def member_required(view):
    """A member's view; a reader who is not signed in (or no longer: signed out
    elsewhere) is sent to the sign-in form."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        member = sessions.current_member(request)
        if member is None:
            return redirect("members:portal")
        return view(request, member, *args, **kwargs)

    return wrapper


RETURN_COOKIE = "member_return"


@never_cache
@require_http_methods(["GET", "POST"])
def account(request):
    member = sessions.current_member(request)
    if member is not None:
        if request.method == "POST":
            return redirect("members:portal")
        return render_portal(request, member)
    if request.method == "GET":
        came_from = local_path(request.GET.get("next"))
        return render_sign_in(request, SignInForm(initial={"next": came_from}))
    form = SignInForm(request.POST)
    if not form.is_valid():
        return render_sign_in(request, form, status=400)
    if form.cleaned_data["website"]:
        return redirect("members:sent")  # a bot: told what people are told
    client = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    if not signin.ask(form.cleaned_data["email"], client):
        form.add_error(None, TOO_MANY)
        return render_sign_in(request, form, status=429)
    response = redirect("members:sent")
    if form.cleaned_data["next"]:
        # Kept by this browser while the link is valid: the link opened here brings the
        # reader back to the story (opened elsewhere, to the account page).
        response.set_cookie(
            RETURN_COOKIE, form.cleaned_data["next"], max_age=settings.MEMBER_LINK_MINUTES * 60,
            path=sessions.COOKIE_PATH, secure=settings.SESSION_COOKIE_SECURE, httponly=True,
            samesite="Lax",
        )  # fmt: skip
    return response


EXPIRED = (
    "That form had expired (the page was open a long while, or this browser refused the "
    "site's cookie): nothing was done. Please try again now."
)


def csrf_failure(request):
    """The refusal of a members' form that failed its CSRF check (skillo.errors): the
    page it was on again, saying that nothing was done, with what was typed."""
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"error": EXPIRED}, status=403)
    name = request.resolver_match.url_name
    if name == "link":
        link = find_link(request.resolver_match.kwargs["token"])
        if link is not None and usable(link):
            context = {"email": link.email, "expired": EXPIRED}
            return render(request, "members/link.html", context, status=403)
    member = sessions.current_member(request)
    if member is not None and name == "write":
        pk = request.resolver_match.kwargs["pk"]
        article = Article.objects.published().filter(pk=pk).first()
        if article is not None:
            body = request.POST.get("body", "")
            return render_write(request, article, body, EXPIRED, status=403)
    if member is not None:
        return render_portal(request, member, status=403, message=EXPIRED)
    if name == "portal":
        form = SignInForm(request.POST)
        form.is_valid()
        form.add_error(None, EXPIRED)
        return render_sign_in(request, form, status=403)
    return None


def render_sign_in(request, form, status=200):
    return render(request, "members/sign_in.html", {"form": form}, status=status)


def render_portal(
    request,
    member,
    newsletter_form=None,
    erase_form=None,
    name_form=None,
    status=200,
    message=None,
):
    subscriber = portal.subscriber_of(member)
    receiving = subscriber is not None and subscriber.state in portal.RECEIVING
    if newsletter_form is None and receiving:
        newsletter_form = PreferencesForm(instance=subscriber)
    context = {
        "member": member,
        "subscriber": subscriber,
        "form": newsletter_form,
        "may_subscribe": not receiving and portal.may_subscribe(member, subscriber),
        "saved_stories": portal.saved_stories(member),
        "own_comments": portal.own_comments(member),
        "erase_form": erase_form or EraseForm(),
        "name_form": name_form or NameForm(initial={"name": member.name}),
        "status_message": message or SAVED.get(request.GET.get("saved", "")),
    }
    return render(request, "members/portal.html", context, status=status)


def back(saved):
    return redirect(f"{reverse('members:portal')}?saved={saved}")


@never_cache
def sent(request):
    return render(request, "members/sent.html", {"minutes": settings.MEMBER_LINK_MINUTES})


@never_cache
@require_http_methods(["GET", "POST"])
def follow_link(request, token):
    """GET shows a button (mail scanners follow links: a GET alone signs no one in);
    its POST signs this browser in."""
    link = find_link(token)
    if link is None:
        return render(request, "members/link_invalid.html", status=404)
    if not usable(link):
        return render_expired(request)
    if request.method == "GET":
        return render(request, "members/link.html", {"email": link.email})
    member = signin.use(link)
    if member is None:
        return render_expired(request)
    came_from = local_path(request.COOKIES.get(RETURN_COOKIE))
    # The fragment tells the story's script this browser signed in (its page is cached
    # for everyone and knows nothing of the reader; the fragment reaches no server).
    response = redirect(f"{came_from}#signed-in" if came_from else "members:portal")
    response.delete_cookie(RETURN_COOKIE, path=sessions.COOKIE_PATH)
    sessions.sign_in(request, response, member)
    return response


def render_expired(request):
    context = {"minutes": settings.MEMBER_LINK_MINUTES, "form": SignInForm()}
    return render(request, "members/link_expired.html", context, status=410)


@never_cache
@require_POST
def sign_out(request):
    response = render(request, "members/signed_out.html")
    sessions.sign_out(request, response)
    return response


@never_cache
@require_POST
def sign_out_everywhere(request):
    response = render(request, "members/signed_out.html", {"everywhere": True})
    sessions.sign_out_everywhere(request, response)
    return response


@never_cache
@require_POST
@member_required
def newsletter(request, member):
    """The newsletter's own preferences form and rules (newsletters.forms), on the
    member's own Subscriber row."""
    subscriber = portal.subscriber_of(member)
    if subscriber is None or subscriber.state not in portal.RECEIVING:
        return redirect("members:portal")
    form = PreferencesForm(request.POST, instance=subscriber)
    if not form.is_valid():
        return render_portal(request, member, newsletter_form=form, status=400)
    form.save()
    return back("newsletter")


@never_cache
@require_POST
@member_required
def subscribe(request, member):
    return back("subscribed" if portal.subscribe(member) else "not-subscribed")


@never_cache
@require_POST
@member_required
def leave(request, member):
    subscriber = portal.subscriber_of(member)
    if subscriber is not None:
        subscriber.leave()
    return back("left")


@never_cache
@member_required
def download(request, member):
    response = HttpResponse(
        json.dumps(portal.export(member), indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
    )
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="skillo-member-{stamp}.json"'
    return response


@never_cache
@require_POST
@member_required
def erase(request, member):
    form = EraseForm(request.POST)
    if not form.is_valid():
        return render_portal(request, member, erase_form=form, status=400)
    portal.erase(member)
    response = render(request, "members/erased.html")
    sessions.forget_cookie(response)
    return response


def waiting_note(member, now):
    start = comments.comments_from(member, now)
    if start is None:
        return None
    minutes = settings.COMMENT_MIN_MEMBER_MINUTES
    return (
        f"New members can comment {minutes} minutes after they first sign in: you can from "
        f"{timezone.localtime(start):%H:%M}."
    )


@never_cache
def story_state(request, pk):
    """The personal part of a story's page, asked by members/static/js/members.js:
    whether the reader is signed in and has saved it, and what the save button posts."""
    article = get_object_or_404(Article.objects.published().only("pk", "published_at"), pk=pk)
    member = sessions.current_member(request)
    if member is None:
        return JsonResponse(
            {
                "signed_in": False,
                "sign_in": reverse("members:portal"),
                # For the report button, the one form a reader uses unsigned.
                "csrf_token": get_token(request),
            }
        )
    saved = SavedStory.objects.filter(member=member, article=article).exists()
    own = member.comments.filter(article=article).exclude(state=Comment.State.DELETED)
    now = timezone.now()
    return JsonResponse(
        {
            "signed_in": True,
            "saved": saved,
            "save": reverse("members:save", args=[article.pk]),
            "remove": reverse("members:remove", args=[article.pk]),
            "portal": reverse("members:portal"),
            "csrf_token": get_token(request),
            "may_comment": member.blocked_at is None and comments.is_open(article),
            # Said before the comment box, not after the comment was written.
            "comments_from": waiting_note(member, now),
            "comment": reverse("members:comment", args=[article.pk]),
            "own_comments": [
                {
                    "id": c.pk,
                    "state": c.state,
                    "editable": comments.editable(c, now),
                    "edit": reverse("members:edit-comment", args=[c.pk]),
                    "delete": reverse("members:delete-comment", args=[c.pk]),
                }
                for c in own
            ],
        }
    )


def saved_answer(request, saved):
    """JSON for the page's script; the portal again for a form sent without it."""
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"saved": saved})
    return redirect(f"{reverse('members:portal')}#saved")


@never_cache
@require_POST
def save(request, pk):
    member = sessions.current_member(request)
    if member is None:
        return JsonResponse({"error": "Sign in to save stories."}, status=403)
    article = get_object_or_404(Article.objects.published().only("pk"), pk=pk)
    SavedStory.objects.get_or_create(member=member, article=article)
    return saved_answer(request, True)


@never_cache
@require_POST
def remove(request, pk):
    member = sessions.current_member(request)
    if member is None:
        return JsonResponse({"error": "Sign in to save stories."}, status=403)
    SavedStory.objects.filter(member=member, article_id=pk).delete()
    return saved_answer(request, False)


@never_cache
@require_POST
@member_required
def name(request, member):
    form = NameForm(request.POST)
    if not form.is_valid():
        return render_portal(request, member, name_form=form, status=400)
    member.name = form.cleaned_data["name"]
    member.save(update_fields=["name"])
    return back("name")


@cached_page()
def conversation(request, pk):
    """A story's conversation, public and the same for everyone: kept by the page cache
    and Varnish until a comment or a fediverse reply on it changes."""
    article = get_object_or_404(Article.objects.published().only("pk", "published_at"), pk=pk)
    depends_on(request, comments.COMMENTS(pk), REPLIES(pk), *ARTICLE.each([pk]))
    response = HttpResponse(comments.conversation(article))
    # A fragment the story page's script puts in place, not a page: search engines index
    # the story, which shows it, and validators are not to read it as a document.
    response["X-Robots-Tag"] = "noindex"
    return response


def refused(error):
    return JsonResponse({"error": " ".join(error.messages)}, status=400)


def own_comment(member, pk):
    return get_object_or_404(
        Comment.objects.exclude(state=Comment.State.DELETED), pk=pk, member=member
    )


@never_cache
@require_POST
def comment(request, pk):
    member = sessions.current_member(request)
    if member is None:
        return JsonResponse({"error": "Sign in to comment."}, status=403)
    article = get_object_or_404(Article.objects.published().only("pk", "published_at"), pk=pk)
    if request.POST.get("website"):
        return JsonResponse({"state": Comment.State.PENDING})  # a bot: told what people are
    parent = request.POST.get("parent") or None
    client = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    try:
        made = comments.post(
            member,
            article,
            request.POST.get("body", ""),
            client,
            # Anything but a comment's number is no thread (-1 matches none): ASCII digits
            # only ("²" is a digit to isdigit(), not to int()), within the database's ids.
            parent_id=(
                (int(parent) if parent.isascii() and parent.isdigit() and len(parent) < 19 else -1)
                if parent
                else None
            ),
        )
    except ValidationError as error:
        return refused(error)
    return JsonResponse({"state": made.state, "id": made.pk})


@never_cache
@require_http_methods(["GET", "POST"])
def write_comment(request, pk):
    """The comment form as a page of its own, for readers without the script (the story's
    page links to it in a <noscript>): a member writes, anyone else is asked to sign in
    first. A comment shown at once goes back to the story, at the comment."""
    article = get_object_or_404(
        Article.objects.published().only("pk", "title", "slug", "published_at"), pk=pk
    )
    member = sessions.current_member(request)
    if member is None:
        context = {"form": SignInForm(), "story": article}
        return render(request, "members/sign_in.html", context)
    if request.method == "GET":
        return render_write(request, article)
    body = request.POST.get("body", "")
    if request.POST.get("website"):
        return redirect(article.get_absolute_url())  # a bot: told what people are
    client = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    try:
        made = comments.post(member, article, body, client)
    except ValidationError as error:
        return render_write(request, article, body, " ".join(error.messages), status=400)
    if made.state == Comment.State.APPROVED:
        return redirect(f"{article.get_absolute_url()}#comment-{made.pk}")
    return render_write(request, article, held=True)


def render_write(request, article, body="", error="", held=False, status=200):
    context = {
        "article": article,
        "body": body,
        "error": error,
        "held": held,
    }
    return render(request, "members/write.html", context, status=status)


@never_cache
@require_POST
@member_required
def edit_comment(request, member, pk):
    try:
        comments.edit(own_comment(member, pk), request.POST.get("body", ""))
    except ValidationError as error:
        return refused(error)
    return JsonResponse({"edited": True})


@never_cache
@require_POST
@member_required
def delete_comment(request, member, pk):
    comments.delete(own_comment(member, pk))
    if request.headers.get("Accept", "").startswith("application/json"):
        return JsonResponse({"deleted": True})
    return redirect(f"{reverse('members:portal')}#comments")


@never_cache
@require_POST
def report_comment(request, pk):
    found = get_object_or_404(Comment.objects.shown(), pk=pk)
    client = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    try:
        comments.report(found, client, request.POST.get("reason", ""))
    except ValidationError as error:
        status = 429 if error.message == comments.TOO_MANY_REPORTS else 400
        return JsonResponse({"error": " ".join(error.messages)}, status=status)
    return JsonResponse({"reported": True})
