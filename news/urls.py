from django.urls import path

from . import feeds, views

app_name = "news"

urlpatterns = [
    path("", views.ArticleListView.as_view(), name="index"),
    path("articles/<slug:slug>/", views.ArticleDetailView.as_view(), name="article"),
    path("articles/<int:pk>/card-<str:key>.png", views.share_card, name="card"),
    path("tags/", views.TagListView.as_view(), name="tags"),
    path("tags/<slug:slug>/", views.TagDetailView.as_view(), name="tag"),
    path(
        "tags/<slug:slug>/timeline/",
        views.TagDetailView.as_view(timeline=True, paginate_by=100),
        name="tag-timeline",
    ),
    path("tags/<slug:slug>/feed/", feeds.TagFeed(), name="tag-feed"),
    path("tags/<slug:slug>/feed/atom/", feeds.TagAtomFeed(), name="tag-feed-atom"),
    path("tags/<slug:slug>/feed/about/", views.TagFeedPageView.as_view(), name="tag-feed-page"),
    path("authors/", views.AuthorListView.as_view(), name="authors"),
    path("authors/<slug:slug>/", views.AuthorDetailView.as_view(), name="author"),
    path("authors/<slug:slug>/feed/", feeds.AuthorFeed(), name="author-feed"),
    path("authors/<slug:slug>/feed/atom/", feeds.AuthorAtomFeed(), name="author-feed-atom"),
    path(
        "authors/<slug:slug>/feed/about/",
        views.AuthorFeedPageView.as_view(),
        name="author-feed-page",
    ),
    path("archive/", views.ArchiveIndexView.as_view(), name="archive"),
    path("archive/<int:year>/", views.ArchiveView.as_view(), name="archive-year"),
    path("archive/<int:year>/<int:month>/", views.ArchiveView.as_view(), name="archive-month"),
    path("about/editorial/", views.AboutEditorialView.as_view(), name="about-editorial"),
    path("corrections/", views.CorrectionListView.as_view(), name="corrections"),
    path("corrections/feed/", feeds.CorrectionsFeed(), name="corrections-feed"),
    path(
        "corrections/feed/about/",
        views.CorrectionsFeedPageView.as_view(),
        name="corrections-feed-page",
    ),
    path("feed/", feeds.LatestArticlesFeed(), name="feed"),
    path("feed/atom/", feeds.LatestArticlesAtomFeed(), name="feed-atom"),
    # Each feed as a web page, beside its own address (which serves the feed alone).
    path("feed/about/", views.SiteFeedPageView.as_view(), name="feed-page"),
    path("follow/", views.FollowView.as_view(), name="follow"),
    path("sitemap-news.xml", views.news_sitemap, name="sitemap-news"),
    path("robots.txt", views.robots_txt, name="robots"),
    path(".well-known/security.txt", views.security_txt, name="security-txt"),
]
