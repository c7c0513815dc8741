"""Every address the site gives out is on its public address (SITE_URL), whatever host
a request named: a page asked on another name the server allows (an internal health
check's, a second domain) is kept by the page cache and Varnish and read by crawlers and
feed readers, and must not hand them that name."""

import pytest

from tests.factories import ArticleFactory, AuthorFactory, CorrectionFactory

pytestmark = pytest.mark.django_db

PUBLIC = "https://news.example"
OTHER = "internal.example"


@pytest.fixture
def site(settings):
    settings.ALLOWED_HOSTS = ["testserver", OTHER]
    settings.SKILLO_SITE_URL = PUBLIC
    settings.SKILLO_SECURITY_CONTACTS = ["mailto:security@news.example"]
    author = AuthorFactory(name="Ada Writer", slug="ada")
    article = ArticleFactory(title="Linux 6.1 ships", tags=["Linux"], authors=[author])
    CorrectionFactory(article=article)
    return article


PAGES = [
    "/",
    "/articles/linux-6-1-ships/",
    "/tags/linux/",
    "/authors/ada/",
    "/feed/",
    "/feed/atom/",
    "/feed.json",
    "/tags/linux/feed/",
    "/authors/ada/feed/atom/",
    "/corrections/feed/",
    "/sitemap.xml",
    "/sitemaps/articles.xml",
    "/sitemap-news.xml",
    "/robots.txt",
    "/.well-known/security.txt",
    "/api/v1/articles/linux-6-1-ships/",
]


@pytest.mark.parametrize("path", PAGES)
def test_a_page_asked_on_another_host_gives_only_the_site_address(client, site, path):
    response = client.get(path, HTTP_HOST=OTHER, follow=False)
    assert response.status_code == 200, path
    text = response.content.decode()
    assert PUBLIC + "/" in text
    assert OTHER not in text
