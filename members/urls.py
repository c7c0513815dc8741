from django.urls import path

from . import views

app_name = "members"

# Every address under /account/: the member's cookie is sent there only.
urlpatterns = [
    path("account/", views.account, name="portal"),
    path("account/sent/", views.sent, name="sent"),
    path("account/link/<str:token>/", views.follow_link, name="link"),
    path("account/sign-out/", views.sign_out, name="sign-out"),
    path("account/sign-out/everywhere/", views.sign_out_everywhere, name="sign-out-everywhere"),
    path("account/newsletter/", views.newsletter, name="newsletter"),
    path("account/newsletter/subscribe/", views.subscribe, name="subscribe"),
    path("account/newsletter/leave/", views.leave, name="leave"),
    path("account/download/", views.download, name="download"),
    path("account/erase/", views.erase, name="erase"),
    path("account/stories/<int:pk>/", views.story_state, name="story"),
    path("account/stories/<int:pk>/save/", views.save, name="save"),
    path("account/stories/<int:pk>/remove/", views.remove, name="remove"),
    path("account/name/", views.name, name="name"),
    path("account/stories/<int:pk>/comments/", views.comment, name="comment"),
    path("account/stories/<int:pk>/write/", views.write_comment, name="write"),
    path("account/comments/<int:pk>/edit/", views.edit_comment, name="edit-comment"),
    path("account/comments/<int:pk>/delete/", views.delete_comment, name="delete-comment"),
    # Public: the same for every reader, and cached (no cookie of the member's here).
    path("comments/<int:pk>/", views.conversation, name="conversation"),
    path("comments/<int:pk>/report/", views.report_comment, name="report"),
]
