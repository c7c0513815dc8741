"""The people behind the articles: authors and their links elsewhere.

People knows nothing of articles (news links articles to authors, with their order, in
news.ArticleAuthor), so author pages, bylines and feeds are news's: the author's
address is built there, in one place, as topics' are (news.templatetags.news.author_url).
"""

from django.conf import settings
from django.db import models

from .rules import bio_within_limit, http_url_validator, no_control_characters


class Author(models.Model):
    name = models.CharField(max_length=200, validators=[no_control_characters])
    slug = models.SlugField(
        max_length=100,
        unique=True,
        help_text="The author's address: /authors/SLUG/. Made from the name if left empty.",
    )
    role = models.CharField(
        max_length=100,
        blank=True,
        validators=[no_control_characters],
        help_text="Shown with the name, e.g. “Staff writer” or “Contributing editor”.",
    )
    bio = models.TextField(
        blank=True,
        validators=[no_control_characters, bio_within_limit],
        help_text="A few sentences of plain text, shown on the author's page.",
    )
    photo = models.ForeignKey(
        "images.Image",
        null=True,
        blank=True,
        # A picture an author page shows cannot be deleted from the library under it.
        on_delete=models.PROTECT,
        related_name="author_photo_of",
        help_text="A portrait from the image library, shown on the author's page.",
    )
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="author",
        help_text="The account that writes as this author: their new articles name them.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # The author page's lastmod in the sitemap (with their articles' latest change).
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self):
        return self.name


def free_slug(base):
    """``base``, or the first of ``base-2``, ``base-3``... that no author has."""
    taken = set(Author.objects.filter(slug__startswith=base).values_list("slug", flat=True))
    slug, n = base, 2
    while slug in taken:
        slug, n = f"{base}-{n}", n + 1
    return slug


class AuthorLink(models.Model):
    """An author's page elsewhere (their site, Mastodon, GitHub...): ``sameAs`` in JSON-LD."""

    author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="links")
    position = models.PositiveIntegerField(default=0)
    label = models.CharField(
        max_length=100,
        validators=[no_control_characters],
        help_text="What readers see, e.g. “Mastodon” or “GitHub”.",
    )
    url = models.URLField("URL", max_length=500, validators=[http_url_validator])

    class Meta:
        ordering = ["position", "pk"]

    def __str__(self):
        return f"{self.label} <{self.url}>"

    def save(self, *args, **kwargs):
        self.label = self.label.strip()
        super().save(*args, **kwargs)
