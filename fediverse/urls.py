from django.urls import path

from . import views

app_name = "fediverse"

urlpatterns = [
    path(".well-known/webfinger", views.webfinger, name="webfinger"),
    path(".well-known/nodeinfo", views.nodeinfo_links, name="nodeinfo-links"),
    path(".well-known/host-meta", views.host_meta, name="host-meta"),
    path("nodeinfo/2.1", views.nodeinfo, name="nodeinfo"),
    path("ap/inbox", views.inbox, name="shared-inbox"),
    path("ap/site", views.actor, name="site"),
    path("ap/site/inbox", views.inbox, name="site-inbox"),
    path("ap/site/outbox", views.outbox, name="site-outbox"),
    path("ap/site/followers", views.followers, name="site-followers"),
    path("ap/authors/<int:pk>", views.actor, name="author"),
    path("ap/authors/<int:pk>/inbox", views.inbox, name="author-inbox"),
    path("ap/authors/<int:pk>/outbox", views.outbox, name="author-outbox"),
    path("ap/authors/<int:pk>/followers", views.followers, name="author-followers"),
    path("ap/topics/<int:pk>", views.actor, name="topic"),
    path("ap/topics/<int:pk>/inbox", views.inbox, name="topic-inbox"),
    path("ap/topics/<int:pk>/outbox", views.outbox, name="topic-outbox"),
    path("ap/topics/<int:pk>/followers", views.followers, name="topic-followers"),
    path("ap/articles/<int:pk>", views.article, name="article"),
]
