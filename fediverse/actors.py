"""Skillo's actors: who they are (names, ids, addresses) and their documents.

Names: the site is ``@news@HOST`` (settings.SKILLO_FEDIVERSE_SITE_NAME), an author
``@<author slug>@HOST``, a topic ``@<tag slug>@HOST``. A topic whose slug is the site's
name or an author's is ``@<slug>-topic@HOST`` instead, so that each name means one
actor whatever is added later in the other kind."""

from functools import cache
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.templatetags.static import static
from django.urls import reverse

from images.renditions import page_renditions
from news.authors import author_pk
from news.models import Article, Tag
from news.paths import absolute, author_path, tag_path
from people.models import Author

from .keys import new_key_pair
from .models import LocalActor

AS_CONTEXT = "https://www.w3.org/ns/activitystreams"
SECURITY_CONTEXT = "https://w3id.org/security/v1"
# Mastodon's extensions, as Mastodon itself declares them.
EXTENSIONS = {
    "toot": "http://joinmastodon.org/ns#",
    "discoverable": "toot:discoverable",
    "indexable": "toot:indexable",
    "attributionDomains": {"@id": "toot:attributionDomains", "@type": "@id"},
    "Hashtag": "as:Hashtag",
    "sensitive": "as:sensitive",
}
CONTEXT = [AS_CONTEXT, SECURITY_CONTEXT, EXTENSIONS]
PUBLIC = "https://www.w3.org/ns/activitystreams#Public"
TOPIC_SUFFIX = "-topic"


@cache
def _host(site_url):
    return urlsplit(site_url).netloc


def host():
    """The host of ``acct:`` names: the site's (with its port, if it names one)."""
    return _host(settings.SKILLO_SITE_URL)


def _with_keys(**fields):
    """The actor with ``fields``, made with a new key pair if there is none yet."""
    found = LocalActor.objects.filter(**fields).first()
    if found is not None:
        return found
    public, private = new_key_pair()
    try:
        with transaction.atomic():
            return LocalActor.objects.create(
                **fields, public_key_pem=public, private_key_pem=private
            )
    except IntegrityError:
        # Made by another request meanwhile: theirs stands.
        return LocalActor.objects.get(**fields)


def site_actor():
    return _with_keys(kind=LocalActor.Kind.SITE)


def author_actor(author):
    return _with_keys(kind=LocalActor.Kind.AUTHOR, author=author)


def topic_actor(tag):
    return _with_keys(kind=LocalActor.Kind.TOPIC, tag=tag)


def topic_username(tag):
    slug = tag.slug
    if slug == settings.SKILLO_FEDIVERSE_SITE_NAME or author_pk(slug) is not None:
        return slug + TOPIC_SUFFIX
    return slug


def handle_of(thing=None):
    """The handle of the site (no argument), an Author or a Tag, without making its
    actor (pages show handles; keys are made when a server first asks)."""
    if thing is None:
        name = settings.SKILLO_FEDIVERSE_SITE_NAME
    elif isinstance(thing, Tag):
        name = topic_username(thing)
    else:  # an author, or an author as their page shows them (news.authors)
        name = thing.slug
    return f"@{name}@{host()}"


def username(actor):
    if actor.kind == LocalActor.Kind.SITE:
        return settings.SKILLO_FEDIVERSE_SITE_NAME
    if actor.kind == LocalActor.Kind.AUTHOR:
        return actor.author.slug
    return topic_username(actor.tag)


def handle(actor):
    return f"@{username(actor)}@{host()}"


def find(name):
    """The actor called ``name`` (made if needed), or None."""
    if name == settings.SKILLO_FEDIVERSE_SITE_NAME:
        return site_actor()
    author = Author.objects.filter(slug=name).first()
    if author is not None:
        return author_actor(author)
    tag = public_topic(Tag.objects.filter(slug=name).first())
    if tag is not None and topic_username(tag) == name:
        return topic_actor(tag)
    if name.endswith(TOPIC_SUFFIX):
        tag = public_topic(Tag.objects.filter(slug=name.removesuffix(TOPIC_SUFFIX)).first())
        if tag is not None and topic_username(tag) == name:
            return topic_actor(tag)
    return None


def public_topic(tag):
    """``tag`` if readers can see it (it has a public article, as its page asks), else
    None: a topic of drafts alone is nobody's to follow yet."""
    if tag is None or not Article.objects.published().filter(tags=tag).exists():
        return None
    return tag


def actor_path(actor):
    if actor.kind == LocalActor.Kind.SITE:
        return reverse("fediverse:site")
    if actor.kind == LocalActor.Kind.AUTHOR:
        return reverse("fediverse:author", args=[actor.author_id])
    return reverse("fediverse:topic", args=[actor.tag_id])


def actor_id(actor):
    return absolute(actor_path(actor))


def key_id(actor):
    return actor_id(actor) + "#main-key"


def profile_url(actor):
    """The actor's page for people: the home page, the author's, the topic's."""
    if actor.kind == LocalActor.Kind.SITE:
        return absolute("/")
    if actor.kind == LocalActor.Kind.AUTHOR:
        return absolute(author_path(actor.author.slug))
    return absolute(tag_path(actor.tag.slug))


def icon(actor):
    if actor.kind == LocalActor.Kind.AUTHOR and actor.author.photo_id:
        photo = actor.author.photo
        if photo.renditions_ready:
            jpeg = page_renditions(photo, "jpg")[0]
            return {"type": "Image", "mediaType": "image/jpeg", "url": absolute(jpeg.url)}
    return {
        "type": "Image",
        "mediaType": "image/png",
        "url": absolute(static("icons/skillo-512.png")),
    }


def describe(actor):
    """(name, summary as plain text, type) of an actor."""
    if actor.kind == LocalActor.Kind.SITE:
        return (
            settings.SKILLO_FEDIVERSE_SITE_TITLE,
            "Tech news with its sources: every story from the newsroom.",
            "Service",
        )
    if actor.kind == LocalActor.Kind.AUTHOR:
        author = actor.author
        summary = author.bio or (f"{author.role} at Skillo" if author.role else "Writes for Skillo")
        return author.name, summary, "Person"
    tag = actor.tag
    return (
        f"{tag.name} on Skillo",
        tag.intro or f"Skillo's stories on {tag.name}.",
        "Service",
    )


def document(actor):
    """The actor's ActivityStreams document (application/activity+json)."""
    from django.utils.html import escape

    ident = actor_id(actor)
    name, summary, kind = describe(actor)
    paragraphs = "".join(f"<p>{escape(part)}</p>" for part in summary.split("\n\n") if part)
    doc = {
        "@context": CONTEXT,
        "id": ident,
        "type": kind,
        "preferredUsername": username(actor),
        "name": name,
        "summary": paragraphs,
        "url": profile_url(actor),
        "icon": icon(actor),
        "inbox": ident + "/inbox",
        "outbox": ident + "/outbox",
        "followers": ident + "/followers",
        "endpoints": {"sharedInbox": absolute(reverse("fediverse:shared-inbox"))},
        "manuallyApprovesFollowers": False,
        "discoverable": True,
        "indexable": True,
        "published": actor.created_at.replace(microsecond=0).isoformat(),
        "publicKey": {"id": key_id(actor), "owner": ident, "publicKeyPem": actor.public_key_pem},
    }
    if actor.kind == LocalActor.Kind.AUTHOR:
        # Mastodon credits the author on link cards of this site's pages (fediverse:creator).
        doc["attributionDomains"] = [urlsplit(settings.SKILLO_SITE_URL).hostname]
        doc["attachment"] = [
            {
                "type": "PropertyValue",
                "name": link.label,
                "value": f'<a href="{escape(link.url)}" rel="me nofollow noopener" '
                f'target="_blank">{escape(link.url)}</a>',
            }
            for link in actor.author.links.all()
        ]
    return doc


def actor_from_match(match):
    """Skillo's actor at a resolved fediverse address (made if needed), or None."""
    if match.namespace != "fediverse":
        return None
    pk = match.kwargs.get("pk")
    if match.url_name in {"site", "site-inbox", "site-outbox", "site-followers"}:
        return site_actor()
    if match.url_name.startswith("author"):
        author = Author.objects.filter(pk=pk).first()
        return author_actor(author) if author else None
    if match.url_name.startswith("topic"):
        tag = public_topic(Tag.objects.filter(pk=pk).first())
        return topic_actor(tag) if tag else None
    return None
