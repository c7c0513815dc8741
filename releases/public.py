"""The watched projects' public pages: each project's releases Skillo covered, with
their dates and the stories' links, and the index of those projects (/releases/). Only
projects an editor opened (public_page), and only published stories
(Article.objects.published())."""

from django.db.models import Count, Max, Q
from django.shortcuts import get_object_or_404, render

from news.dependencies import FEEDS, NAV
from news.models import Article
from pagecache.dependencies import cached_page, depends_on

from .dependencies import PROJECT, PROJECTS
from .models import Tip, WatchedProject


@cached_page(NAV, FEEDS, PROJECTS)
def index(request):
    covered = Q(tips__article__in=Article.objects.published())
    projects = (
        WatchedProject.objects.filter(public_page=True)
        .annotate(
            covered=Count("tips", filter=covered), latest=Max("tips__released_at", filter=covered)
        )
        .order_by("name")
    )
    return render(request, "releases/index.html", {"projects": projects})


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
