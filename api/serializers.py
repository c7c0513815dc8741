"""The API's JSON, built only from what news's querysets have already loaded: no
serializer here makes a query of its own (tests/api/test_queries.py pins it)."""

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from images.renditions import PAGE_FORMATS, SOCIAL_SIZES, page_renditions, social_rendition
from news.paths import absolute as site_absolute
from news.paths import origin
from news.templatetags.news import author_url, tag_url, with_images


def absolute(serializer, path):
    """``path`` on the site's public address, as the pages and the webhooks give it."""
    return site_absolute(path)


# What MonthField writes: JSON Schema's format "date" is a whole date (YYYY-MM-DD).
MONTH_PATTERN = "^[0-9]{4}-(0[1-9]|1[0-2])$"


@extend_schema_field({"type": "string", "pattern": MONTH_PATTERN, "examples": ["2025-03"]})
class MonthField(serializers.DateField):
    """A date shown as its month, ``YYYY-MM``."""

    def __init__(self, **kwargs):
        super().__init__(format="%Y-%m", **kwargs)


class RenditionSerializer(serializers.Serializer):
    url = serializers.SerializerMethodField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    mime_type = serializers.CharField()

    def get_url(self, rendition) -> str:
        return absolute(self, rendition.url)


class CropSerializer(RenditionSerializer):
    shape = serializers.ChoiceField(choices=list(SOCIAL_SIZES))


class ImageSerializer(serializers.Serializer):
    """A library image: its words and the files readers download (images.renditions)."""

    alt = serializers.CharField(help_text="Empty for a decorative image.")
    caption = serializers.CharField()
    credit = serializers.CharField()
    licence = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    renditions = serializers.SerializerMethodField(
        help_text="For pages: each width in AVIF and JPEG, narrowest first; empty for a "
        "moment after an upload, while they are made."
    )
    crops = serializers.SerializerMethodField(
        help_text="For sharing: 1200 px crops around the focal point (card is 1200 x 630); "
        "empty while they are made (after an upload or a new focal point)."
    )

    @extend_schema_field(RenditionSerializer(many=True))
    def get_renditions(self, image):
        if not image.renditions_ready:
            return []  # being made (images.tasks)
        found = [r for format in PAGE_FORMATS for r in page_renditions(image, format)]
        return RenditionSerializer(found, many=True, context=self.context).data

    @extend_schema_field(CropSerializer(many=True))
    def get_crops(self, image):
        if not image.crops_ready:
            return []
        return [
            {
                "shape": name,
                **RenditionSerializer(social_rendition(image, name), context=self.context).data,
            }
            for name in SOCIAL_SIZES
        ]


class TagSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    def get_url(self, tag) -> str:
        return absolute(self, tag_url(tag))

    def get_api_url(self, tag) -> str:
        return absolute(self, reverse("api:tag", kwargs={"slug": tag.slug}))


class TopicSerializer(TagSerializer):
    article_count = serializers.IntegerField(help_text="Published articles.")
    articles_url = serializers.SerializerMethodField()
    feed_url = serializers.SerializerMethodField(help_text="Its JSON Feed.")

    def get_articles_url(self, tag) -> str:
        return absolute(self, reverse("api:articles")) + f"?tag={tag.slug}"

    def get_feed_url(self, tag) -> str:
        return absolute(self, reverse("api:tag-feed", kwargs={"slug": tag.slug}))


class BylineSerializer(serializers.Serializer):
    name = serializers.CharField()
    slug = serializers.CharField()
    role = serializers.CharField()
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()

    def get_url(self, author) -> str:
        return absolute(self, author_url(author))

    def get_api_url(self, author) -> str:
        return absolute(self, reverse("api:author", kwargs={"slug": author.slug}))


class AuthorLinkSerializer(serializers.Serializer):
    label = serializers.CharField()
    url = serializers.URLField()


class AuthorSerializer(BylineSerializer):
    bio = serializers.CharField()
    links = AuthorLinkSerializer(many=True, source="links.all")
    photo = ImageSerializer(allow_null=True)
    updated_at = serializers.DateTimeField()


class SourceSerializer(serializers.Serializer):
    title = serializers.CharField()
    publisher = serializers.CharField()
    url = serializers.CharField(allow_blank=True, help_text="Empty when the source has none.")


class RelatedLinkSerializer(serializers.Serializer):
    title = serializers.CharField(source="display_title")
    url = serializers.SerializerMethodField(
        help_text="Null for an article not written yet (a link by title only)."
    )

    def get_url(self, link) -> str | None:
        return absolute(self, link.public_url) if link.public_url else None


class ReferenceSerializer(serializers.Serializer):
    title = serializers.CharField()
    slug = serializers.CharField()
    url = serializers.SerializerMethodField()

    def get_url(self, article) -> str:
        return absolute(self, article.get_absolute_url())


class CorrectionSerializer(serializers.Serializer):
    kind = serializers.CharField(help_text="correction or update")
    note = serializers.CharField()
    published_at = serializers.DateTimeField()


class ArticleSerializer(serializers.Serializer):
    """An article as lists show it."""

    id = serializers.IntegerField()
    title = serializers.CharField()
    slug = serializers.CharField()
    url = serializers.SerializerMethodField()
    api_url = serializers.SerializerMethodField()
    summary = serializers.CharField(source="teaser", help_text="Or the first paragraph.")
    event_date = serializers.DateField(help_text="When the news happened.")
    published_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    facts_verified = MonthField(help_text="The month an editor last checked the facts (YYYY-MM).")
    public = serializers.BooleanField(
        source="is_published",
        help_text="False only for drafts and scheduled articles (tokens with read:drafts).",
    )
    tags = TagSerializer(many=True, source="topics")
    authors = BylineSerializer(many=True, source="byline")
    lead_image = ImageSerializer(allow_null=True)

    def get_url(self, article) -> str:
        return absolute(self, article.get_absolute_url())

    def get_api_url(self, article) -> str:
        return absolute(self, reverse("api:article", kwargs={"slug": article.slug}))


class ArticleDetailSerializer(ArticleSerializer):
    """An article with its text, sources and links."""

    body_html = serializers.SerializerMethodField(
        help_text="Sanitised HTML; library images as <figure> with absolute URLs."
    )
    body_markdown = serializers.CharField(source="body", help_text="As the editor wrote it.")
    sources = SourceSerializer(many=True, source="sources.all")
    related_links = serializers.SerializerMethodField()
    referenced_by = ReferenceSerializer(
        many=True, help_text="Published articles whose related links lead here."
    )
    corrections = CorrectionSerializer(
        many=True,
        source="corrections.all",
        help_text="Corrections and updates, as the article page shows them, oldest first.",
    )

    @extend_schema_field(OpenApiTypes.STR)
    def get_body_html(self, article):
        # As the feeds place images: one plain JPEG with an absolute URL.
        return str(with_images(article.body_html, origin()))

    @extend_schema_field(RelatedLinkSerializer(many=True))
    def get_related_links(self, article):
        # Links to articles readers may not see are left out, as on the page.
        links = [link for link in article.related_links.all() if link.is_public]
        return RelatedLinkSerializer(links, many=True, context=self.context).data
