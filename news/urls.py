from django.urls import path

from . import views

app_name = "news"

urlpatterns = [
    path("", views.ArticleListView.as_view(), name="index"),
    path("articles/<slug:slug>/", views.ArticleDetailView.as_view(), name="article"),
    path("tags/", views.TagListView.as_view(), name="tags"),
    path("tags/<slug:slug>/", views.TagDetailView.as_view(), name="tag"),
]
