from django.contrib import admin
from django.contrib.sitemaps.views import sitemap
from django.urls import include, path

from news.sitemaps import SITEMAPS

urlpatterns = [
    path("admin/", admin.site.urls),
    path("sitemap.xml", sitemap, {"sitemaps": SITEMAPS}, name="sitemap"),
    path("", include("news.urls")),
]

handler404 = "news.views.page_not_found"
