"""The article as readers will see it, from the change form's unsaved data: title,
summary, byline, lead image, body, sources and footer, in the site's own stylesheet.
The form's script shows it beside the body (an <iframe srcdoc>, so the site's styles
and the admin's do not meet)."""

from datetime import datetime

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from taggit.utils import parse_tags

from images.models import Image
from images.renditions import social_rendition
from news.models import Article, Source, Tag
from news.paths import article_path
from news.rendering import contents, render_markdown, with_heading_anchors
from news.rules import MAX_BODY_CHARS
from news.slugs import slug_from_title
from news.templatetags.news import with_images
from people.models import Author

from .checks import checklist


def _date(value, formats):
    for format in formats:
        try:
            return datetime.strptime(value.strip(), format).date()
        except (ValueError, AttributeError):
            continue
    return None


def _rows(data, prefix, fields):
    """The inline rows of the form (not deleted, not blank), in their positions."""
    try:
        total = int(data.get(f"{prefix}-TOTAL_FORMS", 0))
    except ValueError:
        return []
    rows = []
    for index in range(min(total, 200)):
        if data.get(f"{prefix}-{index}-DELETE"):
            continue
        row = {field: data.get(f"{prefix}-{index}-{field}", "").strip() for field in fields}
        if any(row.values()):
            try:
                position = int(data.get(f"{prefix}-{index}-position") or 0)
            except ValueError:
                position = 0
            rows.append((position, index, row))
    return [row for _, _, row in sorted(rows)]


def _image(data, name):
    value = data.get(name, "")
    return Image.objects.filter(pk=value).first() if value.isdigit() else None


def appearance(data, rendered, lead_image, host):
    """How the article would appear in a search result and in a share card, by the rules
    of the public page's head (Article.page_title, description, share_picture)."""
    slug = data.get("slug", "").strip() or slug_from_title(data.get("title", "")) or "…"
    article = Article(
        title=data.get("title", "").strip(),
        summary=data.get("summary", "").strip(),
        body_html=rendered,
        search_title=data.get("search_title", "").strip(),
        meta_description=data.get("meta_description", "").strip(),
        lead_image=lead_image,
        social_image=_image(data, "social_image"),
    )
    picture = article.share_picture
    if picture is not None and picture.crops_ready:
        card = social_rendition(picture, "card")
        picture_url = card.url
    elif picture is not None:
        picture_url = reverse("admin:images_image_original", args=[picture.pk])
    else:
        picture_url = ""
    return {
        "host": host,
        "path": article_path(slug),
        "page_title": article.page_title,
        "title": article.title,
        "description": article.description,
        "picture": picture,
        "picture_url": picture_url,
    }


def preview_document(data, host=""):
    """The whole preview page (HTML) for the posted form ``data``; ``host`` is the site's,
    as search results and share cards show it."""
    body = data.get("body", "")
    sections, rendered = [], ""
    if len(body) > MAX_BODY_CHARS:
        # Rendering a body the form would refuse only spends the server's time.
        body_html = format_html(
            "<p>No preview: the body is longer than {} characters.</p>", f"{MAX_BODY_CHARS:,}"
        )
    else:
        rendered = render_markdown(body)
        sections = contents(rendered)
        body_html = mark_safe(with_heading_anchors(with_images(rendered)))
    author_ids = [row["author"] for row in _rows(data, "authorships", ["author"])]
    found = Author.objects.in_bulk([pk for pk in author_ids if pk.isdigit()])
    authors = [found[int(pk)] for pk in author_ids if pk.isdigit() and int(pk) in found]
    lead_image = _image(data, "lead_image")
    sources = [
        Source(title=row["title"], publisher=row["publisher"], url=row["url"])
        for row in _rows(data, "sources", ["title", "publisher", "url"])
    ]
    event = _date(data.get("event_date", ""), ["%Y-%m-%d"])
    published = _date(data.get("published_at_0", ""), ["%Y-%m-%d"])
    verified = _date(data.get("facts_verified", ""), ["%Y-%m", "%Y-%m-%d"])
    targets = [row["target"] for row in _rows(data, "related_links", ["target", "title"])]
    checks = checklist(
        summary=data.get("summary", "").strip(),
        body_html=rendered if len(body) <= MAX_BODY_CHARS else "",
        lead_image=lead_image,
        sources=sources,
        related_targets=[int(pk) for pk in targets if pk.isdigit()],
        facts_verified=verified,
        tags=Tag.objects.spellings(parse_tags(data.get("tags", ""))),
    )
    footer = None
    if event and published and verified:
        moment = timezone.make_aware(datetime.combine(published, datetime.min.time()))
        footer = Article(event_date=event, published_at=moment, facts_verified=verified)
    return render_to_string(
        "admin/news/article/preview_document.html",
        {
            "title": data.get("title", "").strip(),
            "summary": data.get("summary", "").strip(),
            "authors": authors,
            "lead_image": lead_image,
            "body_html": body_html,
            "contents": sections,
            "checks": checks,
            "appearance": appearance(
                data, rendered if len(body) <= MAX_BODY_CHARS else "", lead_image, host
            ),
            "warnings": sum(not check.ok for check in checks),
            "sources": sources,
            "footer": footer,
        },
    )
