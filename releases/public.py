"""A watched project's public page: the releases Skillo covered, with their dates and
the stories' links. Only for projects an editor opened (public_page), and only
published stories (Article.objects.published())."""

from django.shortcuts import get_object_or_404, render

from news.dependencies import FEEDS, NAV
from news.models import Article
from pagecache.dependencies import cached_page, depends_on

from .dependencies import PROJECT
from .models import Tip, WatchedProject


@cached_page(NAV, FEEDS)
def project(request, slug):
    project = get_object_or_404(WatchedProject, slug=slug, public_page=True)
    depends_on(request, PROJECT(project.pk))
    covered = (
        Tip.objects.filter(project=project, article__in=Article.objects.published())
        .select_related("article")
        .order_by("-released_at", "-pk")
    )
    return render(request, "releases/project.html", {"project": project, "covered": covered})
