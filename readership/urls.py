from django.urls import path

from . import views

app_name = "readership"

urlpatterns = [
    path("readership/beacon/", views.beacon, name="beacon"),
    path("about/figures/", views.AboutFiguresView.as_view(), name="about-figures"),
]
