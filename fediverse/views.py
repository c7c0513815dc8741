"""The fediverse's addresses: actors, objects, collections, inboxes, and the discovery
documents (WebFinger, NodeInfo, host-meta)."""

import json
import re
from importlib.metadata import PackageNotFoundError, version

from django.conf import settings
from django.core.paginator import InvalidPage, Paginator
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from news.dependencies import AUTHOR_ARTICLES, LATEST, TAG
from news.models import Article, RetiredSlug, Tag, written_by
from pagecache.dependencies import cached_page, depends_on
from people.models import Author

from . import actors
from .accept import wants_activity
from .actors import (
    CONTEXT,
    absolute,
    actor_from_match,
    actor_id,
    author_actor,
    host,
    site_actor,
    topic_actor,
)
from .inbox import Deferred, Problem, authenticate, handle, keep, local_actor_at
from .models import ArticleState, LocalActor
from .objects import article_object, object_id, public_article, tombstone

try:
    SOFTWARE_VERSION = version("skillo")
except PackageNotFoundError:
    SOFTWARE_VERSION = "0"
ACTIVITY_JSON = "application/activity+json; charset=utf-8"
OUTBOX_PAGE = 20
# A name is a slug (or the site's name); anything else is not one of Skillo's actors.
ACCT = re.compile(r"^acct:@?(?P<name>[-\w.]{1,150})@(?P<host>[-\w.:\[\]]{1,255})$", re.ASCII)


def as_response(document, status=200):
    response = JsonResponse(document, status=status, json_dumps_params={"ensure_ascii": False})
    response["Content-Type"] = ACTIVITY_JSON
    response["Access-Control-Allow-Origin"] = "*"
    return response


def problem(status, message, retry_after=None):
    response = JsonResponse({"error": message}, status=status)
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


def local_actor(request):
    actor = actor_from_match(request.resolver_match)
    if actor is None:
        raise Http404("No such actor.")
    return actor


def wants_html(request):
    accept = request.META.get("HTTP_ACCEPT", "")
    return "text/html" in accept and not wants_activity(request)


@require_GET
def actor(request, pk=None):
    found = local_actor(request)
    if wants_html(request):
        # A person following the actor's link lands on its page.
        response = HttpResponseRedirect(actors.profile_url(found))
    else:
        response = as_response(actors.document(found))
    response["Vary"] = "Accept"
    return response


def article_document(pk):
    article = public_article(pk)
    if article is not None:
        return as_response(article_object(article))
    state = ArticleState.objects.filter(article_id=pk).first()
    if state is not None and state.deleted_at is not None:
        return as_response(tombstone(pk, state.deleted_at), status=410)
    return problem(404, "No such article.")


@require_GET
def article(request, pk):
    return article_document(pk)


def object_for_page(request, kind, slug):
    """The ActivityStreams document of a page (fediverse.negotiation)."""
    if kind is None:
        return as_response(actors.document(site_actor()))
    if kind == "articles":
        # Any article's: article_document() serves only the public, 410 once deleted.
        pk = Article.objects.filter(slug=slug).values_list("pk", flat=True).first()
        if pk is None:
            pk = RetiredSlug.objects.filter(slug=slug).values_list("article_id", flat=True).first()
        if pk is None:
            return problem(404, "No such article.")
        return article_document(pk)
    if kind == "authors":
        author = Author.objects.filter(slug=slug).first()
        if author is None:
            return problem(404, "No such author.")
        return as_response(actors.document(author_actor(author)))
    tag = actors.public_topic(Tag.objects.filter(slug=slug).first())
    if tag is None:
        return problem(404, "No such topic.")
    return as_response(actors.document(topic_actor(tag)))


@require_GET
def followers(request, pk=None):
    found = local_actor(request)
    ident = actor_id(found)
    return as_response(
        {
            "@context": CONTEXT,
            "id": f"{ident}/followers",
            "type": "OrderedCollection",
            # Members are not listed: who follows whom is their business.
            "totalItems": found.followers.count(),
        }
    )


def outbox_articles(request, found):
    articles = Article.objects.published().order_by("-published_at", "-pk")
    if found.kind == LocalActor.Kind.SITE:
        depends_on(request, LATEST())
        return articles
    if found.kind == LocalActor.Kind.AUTHOR:
        depends_on(request, AUTHOR_ARTICLES(found.author_id))
        return articles.filter(written_by(found.author_id, 0)).distinct()
    depends_on(request, TAG(found.tag_id))
    return articles.filter(tags=found.tag_id)


@require_GET
@cached_page(LATEST)
def outbox(request, pk=None):
    """The actor's public activities, newest first: a Create of each of its articles."""
    found = local_actor(request)
    ident = actor_id(found)
    base = f"{ident}/outbox"
    paginator = Paginator(outbox_articles(request, found).values("pk", "published_at"), OUTBOX_PAGE)
    number = request.GET.get("page")
    if number is None:
        return as_response(
            {
                "@context": CONTEXT,
                "id": base,
                "type": "OrderedCollection",
                "totalItems": paginator.count,
                "first": f"{base}?page=1",
                "last": f"{base}?page={paginator.num_pages}",
            }
        )
    try:
        page = paginator.page(number)
    except (InvalidPage, ValueError, TypeError):
        raise Http404("No such page.") from None
    items = [
        {
            "id": f"{object_id(row['pk'])}#create-{found.pk}",
            "type": "Create",
            "actor": ident,
            "published": row["published_at"].replace(microsecond=0).isoformat(),
            "to": [actors.PUBLIC],
            "object": object_id(row["pk"]),
        }
        for row in page.object_list
    ]
    document = {
        "@context": CONTEXT,
        "id": f"{base}?page={page.number}",
        "type": "OrderedCollectionPage",
        "partOf": base,
        "orderedItems": items,
    }
    if page.has_next():
        document["next"] = f"{base}?page={page.next_page_number()}"
    if page.has_previous():
        document["prev"] = f"{base}?page={page.previous_page_number()}"
    return as_response(document)


outbox.page_parameters = ("page",)


@csrf_exempt
@require_POST
def inbox(request, pk=None):
    if request.resolver_match.url_name != "shared-inbox":
        local_actor(request)
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > settings.SKILLO_FEDIVERSE_MAX_ACTIVITY:
        # Refused before the body is read.
        limit = settings.SKILLO_FEDIVERSE_MAX_ACTIVITY
        return problem(413, f"Activities are accepted up to {limit} bytes.")
    try:
        remote, activity = authenticate(request, request.body)
        done = handle(activity, remote)
    except Deferred as deferred:
        try:
            return keep(request, request.body, deferred)
        except Problem as refused:
            return problem(refused.status, str(refused), refused.retry_after)
    except Problem as refused:
        return problem(refused.status, str(refused), refused.retry_after)
    return JsonResponse({"accepted": done}, status=202)


@require_GET
def webfinger(request):
    # Every answer, errors too: a browser client must be able to read why (RFC 7033, 5).
    response = webfinger_answer(request)
    response["Access-Control-Allow-Origin"] = "*"
    return response


def webfinger_answer(request):
    resource = request.GET.get("resource", "").strip()
    if not resource:
        return problem(400, "Ask for a resource: ?resource=acct:NAME@HOST")
    found = None
    if match := ACCT.match(resource):
        if match["host"].lower() != host().lower():
            return problem(404, f"{match['host']} is not this server ({host()}).")
        found = actors.find(match["name"])
    elif resource.startswith(("http://", "https://")):
        found = local_actor_at(resource)
    else:
        return problem(400, "The resource must be acct:NAME@HOST or an actor's URL.")
    if found is None:
        return problem(404, f"No actor {resource} on this server.")
    ident = actor_id(found)
    response = JsonResponse(
        {
            "subject": f"acct:{actors.username(found)}@{host()}",
            "aliases": [ident, actors.profile_url(found)],
            "links": [
                {"rel": "self", "type": "application/activity+json", "href": ident},
                {
                    "rel": "http://webfinger.net/rel/profile-page",
                    "type": "text/html",
                    "href": actors.profile_url(found),
                },
                {
                    "rel": "http://webfinger.net/rel/avatar",
                    "type": actors.icon(found)["mediaType"],
                    "href": actors.icon(found)["url"],
                },
            ],
        }
    )
    response["Content-Type"] = "application/jrd+json; charset=utf-8"
    return response


@require_GET
def host_meta(request):
    template = absolute(reverse("fediverse:webfinger")) + "?resource={uri}"
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n'
        f'  <Link rel="lrdd" template="{template}"/>\n'
        "</XRD>\n"
    )
    return HttpResponse(body, content_type="application/xrd+xml; charset=utf-8")


@require_GET
def nodeinfo_links(request):
    return JsonResponse(
        {
            "links": [
                {
                    "rel": "http://nodeinfo.diaspora.software/ns/schema/2.1",
                    "href": absolute(reverse("fediverse:nodeinfo")),
                }
            ]
        }
    )


@require_GET
def nodeinfo(request):
    response = HttpResponse(
        json.dumps(
            {
                "version": "2.1",
                "software": {
                    "name": "skillo",
                    "version": SOFTWARE_VERSION,
                    "homepage": absolute("/"),
                },
                "protocols": ["activitypub"],
                "services": {"inbound": [], "outbound": ["atom1.0", "rss2.0"]},
                "openRegistrations": False,
                "usage": {
                    "users": {"total": Author.objects.count() + 1},
                    "localPosts": Article.objects.published().count(),
                },
                "metadata": {"nodeName": settings.SKILLO_FEDIVERSE_SITE_TITLE},
            }
        ),
        content_type='application/json; profile="http://nodeinfo.diaspora.software/ns/schema/2.1#"',
    )
    response["Access-Control-Allow-Origin"] = "*"
    return response
