from django import template
from django.urls import reverse

register = template.Library()


@register.filter
def tag_url(tag):
    """The one place tag URLs are built: taggit's Tag has no get_absolute_url()."""
    return reverse("news:tag", kwargs={"slug": tag.slug})
