"""An article page's own parts, kept rendered (news.kept): the same page as rendered
afresh, in fewer queries, and never behind a change to what it shows."""

import json

import pytest
from django.contrib.auth.models import Permission
from django.db import connection
from django.test.utils import CaptureQueriesContext

from news import cards, kept
from news.detail import load_article
from news.models import ArticleCard, Correction, Tag
from people.models import Author
from sources.models import SourceURL
from tests.factories import (
    ArticleFactory,
    AuthorFactory,
    AuthorLinkFactory,
    CorrectionFactory,
    ImageFactory,
    SourceFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

# The article with its kept parts, its related links, the articles around it.
KEPT_QUERIES = 3


@pytest.fixture
def article():
    author = AuthorFactory(name="Ada Lovelace")
    AuthorLinkFactory(author=author, url="https://mastodon.example/@ada")
    article = ArticleFactory(title="PyTorch 2.4 ships", tags=["pytorch"], authors=[author])
    SourceFactory(article=article, title="Release notes", url="https://example.org/notes")
    return article


def page(client, article, **headers):
    response = client.get(article.get_absolute_url(), **headers)
    assert response.status_code == 200
    return response.content.decode()


def queries(client, article):
    with CaptureQueriesContext(connection) as captured:
        page(client, article)
    return len(captured)


def json_ld(html):
    start = html.index('<script type="application/ld+json">') + len(
        '<script type="application/ld+json">'
    )
    return json.loads(html[start : html.index("</script>", start)])


def test_the_kept_page_is_the_page_rendered_afresh_in_three_queries(client, article):
    first = page(client, article)  # renders and keeps its parts
    assert queries(client, article) == KEPT_QUERIES
    assert page(client, article) == first


def test_rendering_a_page_reads_five_more_queries_and_keeps_it_in_one(client, article):
    page(client, article)
    cards.forget([article.pk])
    assert queries(client, article) == KEPT_QUERIES + 5 + 1
    assert ArticleCard.objects.get(article=article).page is not None


def test_the_kept_head_names_the_host_each_reader_asked_on(client, article):
    page(client, article, HTTP_HOST="testserver")
    html = page(client, article, HTTP_HOST="localhost")
    assert f'content="http://localhost{article.get_absolute_url()}"' in html
    assert json_ld(html)["url"] == f"http://localhost{article.get_absolute_url()}"
    assert "testserver" not in html


def test_a_source_edit_shows_at_once(client, article):
    page(client, article)
    source = article.sources.get()
    source.title = "Changelog"
    source.save()
    assert ">Changelog</a>" in page(client, article)


def test_a_new_correction_shows_at_once(client, article):
    page(client, article)
    CorrectionFactory(article=article, note="The date was wrong.", kind=Correction.Kind.CORRECTION)
    assert "The date was wrong." in page(client, article)


def test_an_authors_new_name_shows_at_once(client, article):
    page(client, article)
    author = Author.objects.get(name="Ada Lovelace")
    author.name = "Ada King"
    author.save()
    assert ">Ada King</a>" in page(client, article)


def test_an_authors_new_link_shows_at_once(client, article):
    page(client, article)
    AuthorLinkFactory(author=Author.objects.get(name="Ada Lovelace"), url="https://example.org/ada")
    assert "https://example.org/ada" in json_ld(page(client, article))["author"][0]["sameAs"]


def test_a_renamed_topic_shows_at_once(client, article):
    page(client, article)
    tag = Tag.objects.get(name="pytorch")
    tag.name = "PyTorch"
    tag.save()
    assert 'rel="tag">PyTorch</a>' in page(client, article)


def test_an_archived_copy_shows_next_to_its_source_at_once(client, article):
    page(client, article)
    SourceURL.objects.create(url="https://example.org/notes")
    url = SourceURL.objects.get(url="https://example.org/notes")
    url.archive_url = "https://web.archive.org/web/2024/https://example.org/notes"
    url.save()
    assert 'href="https://web.archive.org/web/2024/https://example.org/notes"' in page(
        client, article
    )


def test_a_lead_images_new_words_show_at_once(client, article, media_root):
    image = ImageFactory(alt_text="The old prompt")
    article.lead_image = image
    article.save()
    page(client, article)
    image.alt_text = "The new prompt"
    image.save()
    assert 'alt="The new prompt"' in page(client, article)


def test_a_page_read_before_a_change_is_not_kept(client, article):
    page(client, article)
    cards.forget([article.pk])
    read = load_article(article.slug)  # a reader reads the article and its serial...
    cards.forget([article.pk])  # ...a change commits meanwhile...
    kept.keep(read, {"head": "", "main": "stale", "end": ""})  # ...the render is not kept
    assert ArticleCard.objects.get(article=article).page is None


def test_pages_kept_by_other_code_are_rendered_again(client, article, monkeypatch):
    page(client, article)
    monkeypatch.setattr(kept, "version", lambda: "another")
    assert queries(client, article) == KEPT_QUERIES + 5 + 1
    assert ArticleCard.objects.get(article=article).page_version == "another"


def test_editors_previews_neither_read_nor_keep_pages(client, article):
    editor = UserFactory(is_staff=True)
    editor.user_permissions.add(Permission.objects.get(codename="view_article"))
    client.force_login(editor)
    page(client, article)
    assert ArticleCard.objects.get(article=article).page is None


def test_the_kept_page_does_not_hold_the_text_twice(client, article):
    """The text is in the article's row, read with it: kept pages add only what surrounds
    it (a few kB an article), and the text's pictures are placed at each request."""
    html = page(client, article)
    kept_page = ArticleCard.objects.get(article=article).page
    assert "It shipped." in html and "It shipped." not in json.dumps(kept_page)
