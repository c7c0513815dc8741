"""Wagtail's project-template URLs (as bakerydemo's), a sitemap, and the benchmark's
minimal view before Wagtail's catch-all page serving."""

import functools
import os
from pathlib import Path

from django.contrib import admin
from django.http import HttpResponse
from django.urls import include, path
from wagtail import urls as wagtail_urls
from wagtail.admin import urls as wagtailadmin_urls
from wagtail.contrib.sitemaps.views import sitemap
from wagtail.documents import urls as wagtaildocs_urls


@functools.cache
def page_bytes():
    # Written by the measuring process (the post page as served) before the first request.
    return Path(os.environ["BENCH_MINIMAL_PAGE"]).read_bytes()


def minimal(request):
    """The blog post page's bytes from memory: all of the middleware, no view work (the
    same yardstick as Skillo's bench/urls.py)."""
    return HttpResponse(page_bytes(), content_type="text/html; charset=utf-8")


MINIMAL_PATH = "/bench/minimal/"
urlpatterns = [
    path(MINIMAL_PATH[1:], minimal, name="bench-minimal"),
    path("django-admin/", admin.site.urls),
    path("admin/", include(wagtailadmin_urls)),
    path("documents/", include(wagtaildocs_urls)),
    path("sitemap.xml", sitemap),
    path("", include(wagtail_urls)),
]
