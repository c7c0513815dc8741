from django.urls import path, re_path

from . import jsonfeed, views

app_name = "api"

urlpatterns = [
    path("api/v1/articles/", views.ArticleList.as_view(), name="articles"),
    path("api/v1/articles/<slug:slug>/", views.ArticleDetail.as_view(), name="article"),
    path("api/v1/tags/", views.TagList.as_view(), name="tags"),
    path("api/v1/tags/<slug:slug>/", views.TagDetail.as_view(), name="tag"),
    path("api/v1/authors/", views.AuthorList.as_view(), name="authors"),
    path("api/v1/authors/<slug:slug>/", views.AuthorDetail.as_view(), name="author"),
    path("api/v1/schema/", views.Schema.as_view(), name="schema"),
    path("api/v1/docs/", views.Docs.as_view(url_name="api:schema"), name="docs"),
    # Last of /api/v1/: an address none of the above takes is the API's JSON 404. Only
    # with the final slash, so that CommonMiddleware still adds a missing one; [\s\S] for
    # a slug with a newline in it.
    re_path(r"^api/v1/[\s\S]+/\Z", views.NotFoundView.as_view()),
    path("feed.json", jsonfeed.LatestArticlesJsonFeed(), name="feed"),
    path("tags/<slug:slug>/feed.json", jsonfeed.TagJsonFeed(), name="tag-feed"),
    path("authors/<slug:slug>/feed.json", jsonfeed.AuthorJsonFeed(), name="author-feed"),
]
