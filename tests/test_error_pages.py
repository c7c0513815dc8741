"""The 400 and 403 pages: the site's design, nothing revealed, no database needed.

Tests without the ``db`` fixture prove the last point: pytest-django refuses any query
there, which would turn the page into a 500.
"""

import pytest
from django.conf import settings
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import reverse

from .factories import ArticleFactory

SITE_HEADER = '<header class="site-header">'
ADMIN_HEADER = '<div id="site-name">'


@pytest.fixture(autouse=True)
def production_mode(settings):
    # With DEBUG on, Django shows its technical pages instead of the custom handlers.
    settings.DEBUG = False


def assert_reveals_nothing(page):
    for secret in (
        "Traceback",
        "DisallowedHost",
        "ALLOWED_HOSTS",
        "CSRF_",
        "csrf_failure",
        settings.SECRET_KEY,
        str(settings.BASE_DIR),
        "evil.example",
    ):
        assert secret not in page, secret


def test_bad_host_gets_a_400_page_in_the_site_design_that_reveals_nothing(client):
    response = client.get("/", HTTP_HOST="evil.example")
    page = response.content.decode()
    assert response.status_code == 400
    assert "<h1>Bad request</h1>" in page
    assert SITE_HEADER in page and "/static/css/skillo.css" in page
    assert_reveals_nothing(page)


def test_csrf_failure_gets_a_403_page_in_the_site_design():
    response = Client(enforce_csrf_checks=True).post("/search/", {"q": "x"})
    page = response.content.decode()
    assert response.status_code == 403
    assert "<h1>This form has expired</h1>" in page
    assert "nothing was saved" in page
    assert SITE_HEADER in page
    assert_reveals_nothing(page)


@pytest.mark.django_db
def test_csrf_failure_in_the_admin_is_an_admin_page_that_says_what_to_do():
    response = Client(enforce_csrf_checks=True).post(
        reverse("admin:login"), {"username": "editor", "password": "pw"}
    )
    page = response.content.decode()
    assert response.status_code == 403
    assert ADMIN_HEADER in page and SITE_HEADER not in page
    assert "nothing was saved" in page and "reload the page" in page
    assert_reveals_nothing(page)


@pytest.fixture
def writer(client, django_user_model):
    user = django_user_model.objects.create_user("writer", password="pw", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    client.force_login(user)
    return client


@pytest.mark.django_db
def test_permission_denied_in_the_admin_stays_in_the_admin(writer):
    published = ArticleFactory()
    response = writer.get(reverse("admin:news_article_delete", args=[published.pk]))
    page = response.content.decode()
    assert response.status_code == 403
    assert ADMIN_HEADER in page and SITE_HEADER not in page
    assert "<h1>Permission denied</h1>" in page
    assert "does not have permission" in page
    assert published.title not in page


@pytest.mark.django_db
def test_writer_opening_a_published_article_gets_it_read_only(writer):
    # Not an error page: the admin's answer to a writer is a read-only form.
    published = ArticleFactory(title="Live story")
    response = writer.get(reverse("admin:news_article_change", args=[published.pk]))
    page = response.content.decode()
    assert response.status_code == 200
    assert "Live story" in page
    assert 'name="title"' not in page
