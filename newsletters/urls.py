from django.urls import path

from . import views

app_name = "newsletters"

urlpatterns = [
    path("newsletter/", views.sign_up, name="sign-up"),
    path("newsletter/sent/", views.sent, name="sent"),
    path("newsletter/confirm/<str:token>/", views.confirm, name="confirm"),
    path("newsletter/confirm/<str:token>/new-link/", views.new_link, name="new-link"),
    path("newsletter/preferences/<str:token>/", views.preferences, name="preferences"),
    path("newsletter/unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
    path("newsletter/archive/", views.archive, name="archive"),
    path("newsletter/archive/<int:pk>/", views.archive_issue, name="issue"),
]
