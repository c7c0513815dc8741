from django.urls import path

from . import public

app_name = "releases"
urlpatterns = [
    path("", public.index, name="index"),
    path("<slug:slug>/", public.project, name="project"),
]
