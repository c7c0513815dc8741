from django.conf import settings
from django.core.paginator import InvalidPage
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.module_loading import import_string
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from live.dependencies import LIVE
from live.models import LiveCoverage
from news.dependencies import ARTICLE, NAV
from news.paginator import LookaheadPaginator
from pagecache.dependencies import cached_page, depends_on

from . import digests, signups
from .dependencies import ARCHIVE
from .forms import PreferencesForm, SignUpForm
from .links import Confirmation, subscriber_from, unsubscribe_path
from .models import Issue, Subscriber

TOO_MANY = (
    "There have been many sign-ups from your network in the last hour; nothing was "
    "saved. Please try again in an hour."
)
EXPIRED_FORM = (
    "The form had expired (it was open a long time, or your browser refused its cookie); "
    "nothing was saved. Please send it again."
)


def initial_choices(request):
    """?topic=rust&author=ada from a topic's or author's page: those ticked."""
    topics, authors = request.GET.getlist("topic"), request.GET.getlist("author")
    if not (topics or authors):
        return {}
    return {"what": "chosen", "topics": topics, "authors": authors}


@never_cache
@require_http_methods(["GET", "POST"])
def sign_up(request):
    if request.method == "GET":
        return render_sign_up(request, SignUpForm(initial=initial_choices(request)))
    form = SignUpForm(request.POST)
    if not form.is_valid():
        return render_sign_up(request, form, status=400)
    if form.cleaned_data["website"]:
        return redirect("newsletters:sent")  # a bot: told what people are told
    # The reader's address as the login lockout sees it (behind TRUSTED_PROXY_COUNT).
    client = import_string(settings.AXES_CLIENT_IP_CALLABLE)(request) or ""
    if signups.client_over_limit(client):
        form.add_error(None, TOO_MANY)
        return render_sign_up(request, form, status=429)
    signups.sign_up(form.cleaned_data, client)
    return redirect("newsletters:sent")


def render_sign_up(request, form, status=200):
    return render(request, "newsletters/sign_up.html", {"form": form}, status=status)


def csrf_failure(request):
    """The sign-up form again, with what was typed and why nothing was saved."""
    form = SignUpForm(request.POST)
    form.is_valid()
    form.add_error(None, EXPIRED_FORM)
    return render_sign_up(request, form, status=403)


@never_cache
def sent(request):
    return render(request, "newsletters/sent.html")


@never_cache
@require_http_methods(["GET", "POST"])
def confirm(request, token):
    """GET shows a button (mail scanners follow links: a GET alone subscribes no one);
    its POST confirms."""
    link = Confirmation(token)
    subscriber = link.subscriber
    if subscriber is None:
        return render(request, "newsletters/link_invalid.html", status=404)
    if request.method == "POST" and not link.expired and link.current:
        # Whether this request confirmed or one sent at the same moment did (a double
        # click), the subscriber is told where they stand now.
        signups.confirm(subscriber, link.nonce)
    if subscriber.state in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
        return render(request, "newsletters/confirmed.html", {"subscriber": subscriber})
    if link.expired or not link.current or subscriber.state != Subscriber.State.PENDING:
        return render(
            request,
            "newsletters/link_expired.html",
            {
                "token": token,
                "pending": subscriber.state == Subscriber.State.PENDING,
                "hours": settings.NEWSLETTER_CONFIRM_HOURS,
            },
            status=410,
        )
    return render(request, "newsletters/confirm.html", {"subscriber": subscriber})


@never_cache
@require_http_methods(["POST"])
def new_link(request, token):
    link = Confirmation(token)
    if link.subscriber is None:
        raise Http404("No such sign-up.")
    signups.send_new_link(link.subscriber)
    return redirect("newsletters:sent")


@never_cache
@require_http_methods(["GET", "POST"])
def preferences(request, token):
    subscriber = subscriber_from(token)
    if subscriber is None:
        return render(request, "newsletters/link_invalid.html", status=404)
    if subscriber.state not in (Subscriber.State.ACTIVE, Subscriber.State.PAUSED):
        return render(request, "newsletters/left.html", {"subscriber": subscriber})
    form = PreferencesForm(request.POST or None, instance=subscriber)
    saved = False
    if request.method == "POST" and form.is_valid():
        subscriber = form.save()
        saved = True
        form = PreferencesForm(instance=subscriber)
    context = {
        "form": form,
        "subscriber": subscriber,
        "saved": saved,
        "unsubscribe_path": unsubscribe_path(subscriber),
    }
    status = 400 if request.method == "POST" and not saved else 200
    return render(request, "newsletters/preferences.html", context, status=status)


@csrf_exempt  # RFC 8058: a mail client POSTs here with no cookie; the signed link is the key
@never_cache
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    """RFC 8058's one-click: a POST (its body List-Unsubscribe=One-Click, or this page's
    button) unsubscribes at once; a GET only shows the button."""
    subscriber = subscriber_from(token)
    if subscriber is None:
        return render(request, "newsletters/link_invalid.html", status=404)
    if request.method == "POST":
        subscriber.leave()
        return render(request, "newsletters/left.html", {"subscriber": subscriber})
    if not subscriber.receives_mail and subscriber.state != Subscriber.State.PAUSED:
        return render(request, "newsletters/left.html", {"subscriber": subscriber})
    return render(
        request,
        "newsletters/unsubscribe.html",
        {"subscriber": subscriber, "action": reverse("newsletters:unsubscribe", args=[token])},
    )


@cached_page(NAV, ARCHIVE)
def archive(request):
    """Every issue sent, newest first: what subscribers got, for anyone to read."""
    issues = Issue.objects.sent().select_related("article")
    paginator = LookaheadPaginator(issues, settings.SKILLO_PAGE_SIZE)
    try:
        # No page past the last one (get_page() would count the issues to show the last).
        page = paginator.page(request.GET.get("page") or 1)
    except InvalidPage:
        raise Http404("No such page.") from None
    depends_on(request, *ARTICLE.each(i.article_id for i in page if i.article_id))
    return render(
        request,
        "newsletters/archive.html",
        {"page_obj": page, "issues": page.object_list, "is_paginated": page.has_other_pages()},
    )


@cached_page(NAV, ARCHIVE)
def archive_issue(request, pk):
    issue = get_object_or_404(Issue.objects.sent().select_related("article"), pk=pk)
    found = digests.stories(issue) if issue.is_digest else []
    depends_on(
        request,
        *ARTICLE.each([issue.article_id] if issue.article_id else []),
        *ARTICLE.each(article.pk for article in found),
    )
    context = {"issue": issue, "stories": found}
    if issue.kind == Issue.Kind.LIVE_ENDED:
        # What the mail said: "What we know" as the editors keep it.
        depends_on(request, *LIVE.each([issue.article_id]))
        coverage = LiveCoverage.objects.filter(pk=issue.article_id).only("summary_html").first()
        context["what_we_know"] = coverage.summary_html if coverage else ""
    return render(request, "newsletters/issue.html", context)
