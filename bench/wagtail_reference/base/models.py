"""What bakerydemo's ``base`` app gives a blog post page: the Person snippet (its
authors), the footer text snippet and generic settings that every page's footer reads,
and the standard page that the other top menu entries are."""

from django.db import models
from modelcluster.models import ClusterableModel
from wagtail.admin.panels import FieldPanel
from wagtail.contrib.settings.models import BaseGenericSetting, register_setting
from wagtail.fields import RichTextField, StreamField
from wagtail.models import DraftStateMixin, Page, RevisionMixin
from wagtail.search import index
from wagtail.snippets.models import register_snippet

from base.blocks import BaseStreamBlock


class Person(DraftStateMixin, RevisionMixin, index.Indexed, ClusterableModel):
    """An author: a snippet with a draft state, as bakerydemo's (whose blog post page
    lists only the live ones)."""

    first_name = models.CharField(max_length=254)
    last_name = models.CharField(max_length=254)
    job_title = models.CharField(max_length=254)
    image = models.ForeignKey(
        "wagtailimages.Image",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    panels = [
        FieldPanel("first_name"),
        FieldPanel("last_name"),
        FieldPanel("job_title"),
        FieldPanel("image"),
    ]
    search_fields = [
        index.SearchField("first_name"),
        index.SearchField("last_name"),
        index.FilterField("job_title"),
    ]

    class Meta:
        verbose_name = "person"
        verbose_name_plural = "people"

    def __str__(self):
        return f"{self.first_name} {self.last_name}"


class FooterText(DraftStateMixin, RevisionMixin, models.Model):
    """The footer's text, a snippet read by every page."""

    body = RichTextField()

    panels = [FieldPanel("body")]

    class Meta:
        verbose_name_plural = "footer text"

    def __str__(self):
        return "Footer text"


@register_setting(icon="cog")
class GenericSettings(BaseGenericSetting):
    """The site's links that the footer shows (read through the settings context
    processor, as bakerydemo's footer does)."""

    github_url = models.URLField(verbose_name="GitHub URL", blank=True)
    mastodon_url = models.URLField(verbose_name="Mastodon URL", blank=True)
    organisation_url = models.URLField(verbose_name="Organisation URL", blank=True)


class StandardPage(Page):
    """A plain page: the site's other top menu entries (About, Contact, ...)."""

    introduction = models.TextField(blank=True)
    body = StreamField(BaseStreamBlock(), blank=True)

    content_panels = [*Page.content_panels, FieldPanel("introduction"), FieldPanel("body")]


register_snippet(Person)
register_snippet(FooterText)
