"""Site-wide parts: header topics, the editorial page, the 404 page, page weight."""

import gzip
import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


def header(page):
    return page[page.index('<header class="site-header">') : page.index("</header>")]


def test_header_shows_the_biggest_topics_and_search(client):
    for _ in range(3):
        ArticleFactory(tags=["python"])
    ArticleFactory(tags=["go"])
    ArticleFactory(tags=["secret"], draft=True)
    nav = header(client.get("/").content.decode())
    assert nav.index('href="/tags/python/"') < nav.index('href="/tags/go/"')
    assert "secret" not in nav
    assert 'role="search"' in nav


def test_header_topics_follow_new_articles(client):
    ArticleFactory(tags=["python"])
    assert "/tags/rust/" not in header(client.get("/").content.decode())
    ArticleFactory(tags=["rust"])
    assert "/tags/rust/" in header(client.get("/").content.decode())


def test_editorial_page_explains_dates_and_verification(client):
    page = client.get("/about/editorial/").content.decode()
    assert "<h1>About Skillo editorial</h1>" in page
    assert "Published date reflects the original event date" in page
    assert "facts were verified in" in page
    assert 'href="/about/editorial/"' in client.get("/").content.decode()


def test_article_footer_links_to_the_editorial_page(client):
    article = ArticleFactory()
    page = client.get(article.get_absolute_url()).content.decode()
    note = re.search(r'<p class="editorial-note">(.*?)</p>', page, re.S).group(1)
    assert 'href="/about/editorial/"' in note


def test_404_page_offers_search_and_latest_articles(client):
    latest = ArticleFactory(title="Fresh story")
    ArticleFactory(title="Hidden draft", draft=True)
    response = client.get("/no/such/page/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "<h1>Page not found</h1>" in page
    assert '<label for="notfound-search">Search Skillo</label>' in page
    assert f'<a href="{latest.get_absolute_url()}">Fresh story</a>' in page
    assert "Hidden draft" not in page
    assert '<link rel="stylesheet"' in page


def test_500_page_is_plain_and_in_the_site_design(client):
    from django.template.loader import render_to_string

    page = render_to_string("500.html")
    assert "<h1>Something went wrong</h1>" in page
    assert "/static/css/skillo.css" in page


@pytest.mark.parametrize("url", ["/", "article"])
def test_page_with_stylesheet_is_under_30_kb_compressed(client, url):
    for i in range(20):
        ArticleFactory(tags=["python", f"topic{i}"], summary="A summary of it. " * 6)
    article = ArticleFactory(body="## Section\n\n" + "A long paragraph of news. " * 400)
    html = client.get(article.get_absolute_url() if url == "article" else url).content
    css = Path(finders.find("css/skillo.css")).read_bytes()
    total = len(gzip.compress(html, 9)) + len(gzip.compress(css, 9))
    assert total < 30 * 1024


@pytest.mark.parametrize("url", ["/", "/tags/", "/search/?q=x", "/no-such-page/", "/admin/login/"])
def test_security_headers_on_every_response(client, url):
    response = client.get(url)
    csp = response["Content-Security-Policy"]
    assert "default-src 'self'" in csp and "object-src 'none'" in csp
    script_src = next(d for d in csp.split(";") if d.strip().startswith("script-src"))
    assert "unsafe-inline" not in script_src
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"
