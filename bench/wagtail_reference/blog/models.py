"""The blog of bakerydemo: posts with authors (Person snippets through an orderable
inline), tags through modelcluster, a StreamField body; an index page listing them,
with a sub-URL per tag."""

from base.blocks import BaseStreamBlock
from django.contrib import messages
from django.db import models
from django.shortcuts import redirect, render
from modelcluster.contrib.taggit import ClusterTaggableManager
from modelcluster.fields import ParentalKey
from taggit.models import Tag, TaggedItemBase
from wagtail.admin.panels import FieldPanel, MultipleChooserPanel
from wagtail.contrib.routable_page.models import RoutablePageMixin, path, re_path
from wagtail.fields import StreamField
from wagtail.models import Orderable, Page
from wagtail.search import index


class BlogPersonRelationship(Orderable, models.Model):
    """A post's author, in order."""

    page = ParentalKey(
        "BlogPage", related_name="blog_person_relationship", on_delete=models.CASCADE
    )
    person = models.ForeignKey(
        "base.Person", related_name="person_blog_relationship", on_delete=models.CASCADE
    )
    panels = [FieldPanel("person")]

    def __str__(self):
        return f"{self.person} on {self.page}"


class BlogPageTag(TaggedItemBase):
    content_object = ParentalKey("BlogPage", related_name="tagged_items", on_delete=models.CASCADE)


class BlogPage(Page):
    introduction = models.TextField(help_text="Text to describe the page", blank=True)
    image = models.ForeignKey(
        "wagtailimages.Image",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Landscape mode only; horizontal width between 1000px and 3000px.",
    )
    body = StreamField(BaseStreamBlock(), verbose_name="Page body", blank=True)
    subtitle = models.CharField(blank=True, max_length=255)
    tags = ClusterTaggableManager(through=BlogPageTag, blank=True)
    date_published = models.DateField("Date article published", blank=True, null=True)

    content_panels = [
        *Page.content_panels,
        FieldPanel("subtitle"),
        FieldPanel("introduction"),
        FieldPanel("image"),
        FieldPanel("body"),
        FieldPanel("date_published"),
        MultipleChooserPanel(
            "blog_person_relationship",
            chooser_field_name="person",
            heading="Authors",
            label="Author",
            panels=None,
            min_num=1,
        ),
        FieldPanel("tags"),
    ]
    search_fields = [*Page.search_fields, index.SearchField("body")]

    parent_page_types = ["BlogIndexPage"]
    subpage_types = []

    def authors(self):
        """The post's live authors, in order (the template asks twice, as bakerydemo's)."""
        return [
            relationship.person
            for relationship in self.blog_person_relationship.filter(
                person__live=True
            ).select_related("person")
        ]

    @property
    def get_tags(self):
        """The post's tags, each with the URL of the index filtered by it."""
        tags = self.tags.all()
        base_url = self.get_parent().url
        for tag in tags:
            tag.url = f"{base_url}tags/{tag.slug}/"
        return tags


class BlogIndexPage(RoutablePageMixin, Page):
    introduction = models.TextField(help_text="Text to describe the page", blank=True)
    image = models.ForeignKey(
        "wagtailimages.Image",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="Landscape mode only; horizontal width between 1000px and 3000px.",
    )

    content_panels = [*Page.content_panels, FieldPanel("introduction"), FieldPanel("image")]
    subpage_types = ["BlogPage"]

    def children(self):
        return self.get_children().specific().live()

    def get_context(self, request):
        context = super().get_context(request)
        context["posts"] = BlogPage.objects.descendant_of(self).live().order_by("-date_published")
        return context

    @path("tags/", name="tag_archive")
    @re_path(r"^tags/([\w-]+)/$", name="tag_archive")
    def tag_archive(self, request, tag=None):
        """The posts with a tag, or back to the index with a message if there is none."""
        try:
            tag = Tag.objects.get(slug=tag)
        except Tag.DoesNotExist:
            if tag:
                messages.add_message(
                    request, messages.INFO, f'There are no blog posts tagged with "{tag}"'
                )
            return redirect(self.url)
        posts = self.get_posts(tag=tag)
        context = {"self": self, "page": self, "tag": tag, "posts": posts}
        return render(request, "blog/blog_index_page.html", context)

    def serve_preview(self, request, mode_name):
        return self.serve(request)

    def get_posts(self, tag=None):
        posts = BlogPage.objects.live().descendant_of(self)
        if tag:
            posts = posts.filter(tags=tag)
        return posts

    def get_child_tags(self):
        tags = []
        for post in self.get_posts():
            tags += post.get_tags
        return sorted(set(tags))
