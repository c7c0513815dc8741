from django.urls import path

from . import public

app_name = "releases"
urlpatterns = [
    path("<slug:slug>/", public.project, name="project"),
]
