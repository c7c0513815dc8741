from django.conf import settings
from django.contrib import admin
from django.contrib.sitemaps.views import index, sitemap
from django.urls import include, path

from background import views as health
from editorial.views import accept_invitation, shared_preview
from images.views import media
from news.dependencies import FEEDS
from news.sitemaps import SITEMAPS
from pagecache.dependencies import cached_page

from .metrics import metrics

urlpatterns = [
    path("admin/", admin.site.urls),
    # An index of sitemap pages of at most 1,000 addresses each, however big the archive.
    path(
        "sitemap.xml",
        cached_page(FEEDS)(index),
        {"sitemaps": SITEMAPS, "sitemap_url_name": "sitemap-section"},
        name="sitemap",
    ),
    path(
        "sitemaps/<section>.xml",
        cached_page(FEEDS)(sitemap),
        {"sitemaps": SITEMAPS},
        name="sitemap-section",
    ),
    path("search/", include("search.urls")),
    # A live story's pages of entries, its updates for open pages and its feeds.
    path("live/", include("live.urls")),
    # A watched project's public page: the releases Skillo covered (releases.public).
    path("releases/", include("releases.urls")),
    # A draft shown to an outside reviewer through a preview link (editorial.previews).
    path("preview/<str:token>/", shared_preview, name="shared-preview"),
    # An invited person chooses their name and password (editorial.invitations).
    path("join/<str:token>/", accept_invitation, name="invitation"),
    # For monitors (the database and the task queue), supervisors (the process answers)
    # and load balancers (the database answers) (background.views).
    path("health/", health.health, name="health"),
    path("health/ready/", health.ready, name="health-ready"),
    # Prometheus, from METRICS_ALLOWED_ADDRESSES only (skillo.metrics).
    path("metrics/", metrics, name="metrics"),
    # The content API under /api/v1/, and the JSON Feeds (before news: /tags/<slug>/...).
    path("", include("api.urls")),
    path("", include("newsletters.urls")),
    # Members: sign-in by e-mail link, the portal, saved stories (/account/...).
    path("", include("members.urls")),
    path("", include("readership.urls")),
    # WebFinger, NodeInfo, actors, inboxes and outboxes (/.well-known/..., /ap/...).
    path("", include("fediverse.urls")),
    path("", include("news.urls")),
]

if settings.ANYMAIL.get("WEBHOOK_SECRET"):
    # A mail provider's bounce and complaint reports (newsletters.suppression).
    urlpatterns.insert(1, path("anymail/", include("anymail.urls")))

if settings.MEDIA_URL.startswith("/"):
    # Media on this machine (the default); with object storage MEDIA_URL is its address.
    urlpatterns.insert(1, path(f"{settings.MEDIA_URL.lstrip('/')}<path:name>", media))

handler400 = "skillo.errors.bad_request"
handler403 = "skillo.errors.permission_denied"
handler404 = "news.views.page_not_found"
# A database outage is a 503 with Retry-After; any other error the static 500 page.
handler500 = "skillo.outage.server_error"
