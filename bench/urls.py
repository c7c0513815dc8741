"""The site's URLs plus one minimal view, the yardstick for the page benchmark."""

import functools
import os
from pathlib import Path

from django.http import HttpResponse
from django.urls import path

from skillo.urls import handler404
from skillo.urls import urlpatterns as site_urlpatterns

__all__ = ["handler404", "urlpatterns"]


@functools.cache
def page_bytes():
    # Written by bench/pages.py (the article page as served) before the first request.
    return Path(os.environ["BENCH_MINIMAL_PAGE"]).read_bytes()


def minimal(request):
    """The article page's bytes from memory: all of Django's middleware, no view work.

    Not a page the page cache keeps (its view is not marked with pagecache's cached_page), so every
    request also pays the cache lookup that a miss costs.
    """
    return HttpResponse(page_bytes(), content_type="text/html; charset=utf-8")


MINIMAL_PATH = "/bench/minimal/"
urlpatterns = [path(MINIMAL_PATH[1:], minimal, name="bench-minimal"), *site_urlpatterns]
