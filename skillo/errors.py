"""The 400 and 403 pages (handler400, handler403 and CSRF_FAILURE_VIEW).

They reveal nothing: no exception text (it can hold the Host header or a setting's name),
no path, no traceback. The public pages are in the site's design but without the
header's topics, the only part of it that reads the database or the cache, so a flood
of bad requests costs no more than a static page. A refusal inside the admin is shown
in the admin's own design.
"""

from django.contrib import admin
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.shortcuts import render

from members import views as members_views
from news import rules
from news.fragments import render_site_parts
from newsletters import views as newsletters_views

TOO_LARGE = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)
LIMITS = {
    "body": f"{rules.MAX_BODY_CHARS:,}",
    "sources": rules.MAX_SOURCES,
    "related_links": rules.MAX_RELATED_LINKS,
    "tags": rules.MAX_TAGS,
}


def no_topics(request):
    """The site's parts without the header's topics or absolute addresses (the Host
    header may be what is refused), rendered without the cache."""
    return {"site_parts": render_site_parts(request, (), addresses=False)}


def bad_request(request, exception):
    context = {"too_large": isinstance(exception, TOO_LARGE), "limits": LIMITS}
    return render(request, "400.html", {**no_topics(request), **context}, status=400)


def permission_denied(request, exception):
    return forbidden(request, csrf=False)


def csrf_failure(request, reason=""):
    match = request.resolver_match
    if match is not None and match.view_name == "newsletters:sign-up":
        # Shown on the form itself, with what the reader typed.
        return newsletters_views.csrf_failure(request)
    if match is not None and match.app_name == "members":
        # The member's page again (or the sign-in form, with the address typed).
        answer = members_views.csrf_failure(request)
        if answer is not None:
            return answer
    return forbidden(request, csrf=True)


def forbidden(request, csrf):
    match = request.resolver_match
    if match is not None and match.app_name == admin.site.name:
        context = {
            **admin.site.each_context(request),
            "title": "Form expired" if csrf else "Permission denied",
            "csrf": csrf,
        }
        return render(request, "admin/403.html", context, status=403)
    return render(request, "403.html", {**no_topics(request), "csrf": csrf}, status=403)
