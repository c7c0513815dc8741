"""Articles as ActivityStreams objects, and the activities that carry them.

An article is an ``Article`` (FEP-b2b8, long-form text): its name, summary, sanitised
HTML (the feeds' full text, with any correction notes at the top), its page, authors,
dates, topics as hashtags, the lead image and the sources as attachments, and a
``preview`` Note for the servers that show notes only. Its id hangs on the primary
key (``/ap/articles/<pk>``), so a renamed article stays the same object."""

import hashlib
import json
import re

from django.conf import settings
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import escape

from images.renditions import social_rendition
from news.models import Article, Correction
from news.paths import article_path, tag_path

from .actors import CONTEXT, PUBLIC, absolute, actor_id, author_actor, site_actor

NOT_A_WORD = re.compile(r"[^\w]+")


def object_id(article_pk):
    return absolute(reverse("fediverse:article", args=[article_pk]))


def hashtag(tag):
    words = [word for word in NOT_A_WORD.split(tag.name) if word]
    name = "".join(word[:1].upper() + word[1:] for word in words) or tag.slug.replace("-", "")
    return {"type": "Hashtag", "href": absolute(tag_path(tag.slug)), "name": f"#{name}"}


def public_article(pk):
    """The public article with what its object shows, or None."""
    return (
        Article.objects.published()
        .for_detail()
        .prefetch_related("corrections", "authorships__author__links")
        .filter(pk=pk)
        .first()
    )


def attributed_to(article):
    authors = article.byline
    if not authors:
        return [actor_id(site_actor())]
    return [actor_id(author_actor(author)) for author in authors]


def article_object(article):
    """The object of a public ``article`` (loaded by public_article())."""
    ident = object_id(article.pk)
    url = absolute(article_path(article.slug))
    corrections = [
        note for note in article.corrections.all() if note.kind == Correction.Kind.CORRECTION
    ]
    content = render_to_string(
        "fediverse/article_content.html",
        {"article": article, "corrections": corrections, "base": absolute("")},
    ).strip()
    attachments = []
    if article.lead_image_id and article.lead_image.crops_ready:
        card = social_rendition(article.lead_image, "card")
        attachments.append(
            {
                "type": "Image",
                "mediaType": "image/jpeg",
                "url": absolute(card.url),
                "name": article.lead_image.alt,
                "width": card.width,
                "height": card.height,
            }
        )
    attachments += [
        {
            "type": "Link",
            "href": source.url,
            "name": f"{source.title} ({source.publisher})",
            "mediaType": "text/html",
        }
        for source in article.sources.all()
        if source.url
    ]
    teaser = article.teaser
    preview = (
        f"<p><strong>{escape(article.title)}</strong></p>"
        + (f"<p>{escape(teaser)}</p>" if teaser else "")
        + f'<p><a href="{escape(url)}">{escape(url)}</a></p>'
    )
    authors = attributed_to(article)
    return {
        "@context": CONTEXT,
        "id": ident,
        "type": "Article",
        "name": article.title,
        "summary": escape(teaser),
        "content": content,
        "mediaType": "text/html",
        "url": url,
        "attributedTo": authors,
        "published": article.published_at.replace(microsecond=0).isoformat(),
        "updated": article.updated_at.replace(microsecond=0).isoformat(),
        "to": [PUBLIC],
        "cc": [f"{author}/followers" for author in authors],
        "tag": [hashtag(tag) for tag in article.topics],
        "attachment": attachments,
        "preview": {
            "type": "Note",
            "attributedTo": authors[0],
            "content": preview,
            "mediaType": "text/html",
        },
        "sensitive": False,
        "language": settings.LANGUAGE_CODE.split("-")[0],
    }


def digest(document):
    """What readers on the fediverse are shown of ``document``, as a hash: an edit
    that changes nothing of it (only ``updated``) sends no Update."""
    shown = {key: value for key, value in document.items() if key != "updated"}
    return hashlib.sha256(json.dumps(shown, sort_keys=True).encode()).hexdigest()


def tombstone(article_pk, deleted_at):
    return {
        "@context": CONTEXT,
        "id": object_id(article_pk),
        "type": "Tombstone",
        "formerType": "Article",
        "deleted": deleted_at.replace(microsecond=0).isoformat(),
    }
