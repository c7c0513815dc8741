from django.urls import path

from . import feeds, views

app_name = "live"
urlpatterns = [
    path("<int:pk>/", views.entries, name="entries"),
    path("<int:pk>/updates/", views.updates, name="updates"),
    path("<int:pk>/feed/", feeds.LiveEntriesFeed(), name="feed"),
    path("<int:pk>/feed.json", feeds.json_feed, name="json-feed"),
]
