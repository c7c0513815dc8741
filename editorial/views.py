"""The newsroom's one public address: a draft shown through a preview link
(editorial.previews), to someone outside the newsroom."""

from django.http import Http404
from django.shortcuts import render

from news import fragments
from news.models import Article

from . import previews


def shared_preview(request, token):
    link, problem = previews.find(token)
    if problem == "unknown":
        raise Http404("No such preview.")
    if problem is not None:
        response = render(
            request, "editorial/preview_gone.html", {"link": link, "why": problem}, status=410
        )
    else:
        article = Article.objects.select_related("lead_image").get(pk=link.article_id)
        parts = fragments.render_own_parts(request, article)
        around, _ = fragments.render_surroundings(article, parts.topic_tags)
        response = render(
            request,
            "news/article_detail.html",
            {"article": article, "parts": parts, "around": around, "shared_preview": link},
        )
    # Kept by no one, indexed by no one, and the address (its token) sent to no one.
    response["Cache-Control"] = "no-store, private"
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Referrer-Policy"] = "no-referrer"
    return response
