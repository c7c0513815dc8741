"""Size limits and malformed input in the article form: a form error that names the
limit, nothing half saved, never a 500.

Forms are posted as a browser posts them (URL-encoded: the article form has no file
field), so that Django's own request limits apply as they do in production.
"""

from urllib.parse import urlencode

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from reversion.models import Revision, Version

from news.models import Article, RelatedLink, Source, Tag, TaggedArticle
from news.rules import MAX_BODY_CHARS, MAX_RELATED_LINKS, MAX_SOURCES, MAX_TAGS

from .factories import ArticleFactory, SourceFactory
from .test_admin import ADD_URL, form_data

pytestmark = pytest.mark.django_db

ROCKET = "\U0001f680"  # four bytes in UTF-8, twelve once URL-encoded


@pytest.fixture
def editor(django_user_model, settings):
    settings.DEBUG = False  # the custom 400 page, not Django's technical one
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def post(client, data, url=ADD_URL):
    # The hidden fields a real add form also sends.
    data = {
        "csrfmiddlewaretoken": "x" * 64,
        "_save": "Save",
        "initial-published_at_0": "2024-02-06",
        "initial-published_at_1": "10:00:00",
        "initial-facts_verified": "2026-09",
        **data,
    }
    body = urlencode(data, doseq=True)
    return client.post(url, body, content_type="application/x-www-form-urlencoded")


def sources(n, **row):
    return [
        {
            "id": "",
            "article": "",
            "position": str(i),
            "title": f"Release notes {i}",
            "publisher": "Go team",
            "url": f"https://go.dev/doc/{i}",
            **row,
        }
        for i in range(n)
    ]


def links(n, **row):
    return [
        {"id": "", "article": "", "position": str(i), "target": "", "title": f"Story {i}", **row}
        for i in range(n)
    ]


def stored():
    """What the database holds: every count that a half-done save would change."""
    models = [Article, Source, RelatedLink, Tag, TaggedArticle, Revision, Version]
    return {model.__name__: model.objects.count() for model in models}


def errors_of(response):
    assert response.status_code == 200, response.status_code
    return response.content.decode()


OVER_THE_LIMIT = {
    "title": (
        {"title": "T" * 10_000},
        "A title can be at most 200 characters long; this one has 10000.",
    ),
    "summary": (
        {"summary": "S" * 501},
        "The summary can be at most 500 characters long; this one has 501.",
    ),
    "body": (
        {"body": "B" * (MAX_BODY_CHARS + 1)},
        "The body can be at most 100,000 characters long; this one has 100,001.",
    ),
    "a thousand tags": (
        {"tags": ", ".join(f"topic{i}" for i in range(1000))},
        "An article can have at most 30 tags; this one has 1000.",
    ),
    "a long tag": (
        {"tags": "go, " + "t" * 101},
        "A tag can be at most 100 characters long",
    ),
    "sources": (
        {"sources": sources(MAX_SOURCES + 1)},
        "An article can have at most 50 sources.",
    ),
    "related links": (
        {"links": links(MAX_RELATED_LINKS + 1)},
        "An article can have at most 50 related links.",
    ),
    "source title": (
        {"sources": sources(1, title="S" * 10_000)},
        "Ensure this value has at most 300 characters (it has 10000).",
    ),
    "source publisher": (
        {"sources": sources(1, publisher="P" * 201)},
        "Ensure this value has at most 200 characters (it has 201).",
    ),
    "source URL": (
        {"sources": sources(1, url="https://example.org/" + "a" * 481)},
        "Ensure this value has at most 500 characters (it has 501).",
    ),
    "related link title": (
        {"links": links(1, title="R" * 201)},
        "Ensure this value has at most 200 characters (it has 201).",
    ),
}


@pytest.mark.parametrize(("fields", "message"), OVER_THE_LIMIT.values(), ids=OVER_THE_LIMIT)
def test_over_the_limit_is_a_form_error_naming_it_and_nothing_is_saved(editor, fields, message):
    before = stored()
    page = errors_of(post(editor, form_data(**fields)))
    assert message in page
    assert stored() == before


def test_an_over_the_limit_edit_leaves_the_stored_article_as_it_was(editor):
    article = ArticleFactory(title="Go 1.22 released", slug="go-1-22-released")
    SourceFactory(article=article, title="Release notes")
    before = stored()
    url = reverse("admin:news_article_change", args=[article.pk])
    data = form_data(
        title="Go 1.22 released, edited",
        loaded_version=str(article.version),
        sources=sources(MAX_SOURCES + 1),
    )
    data["sources-INITIAL_FORMS"] = "0"
    page = errors_of(post(editor, data, url=url))
    assert "An article can have at most 50 sources." in page
    assert stored() == before
    article.refresh_from_db()
    assert (article.title, article.version) == ("Go 1.22 released", 1)
    assert [s.title for s in article.sources.all()] == ["Release notes"]


def test_an_article_at_every_limit_in_four_byte_characters_saves(editor):
    # The largest form an editor can send still fits Django's request limits
    # (DATA_UPLOAD_MAX_MEMORY_SIZE, DATA_UPLOAD_MAX_NUMBER_FIELDS), so the limits above
    # are always a form error and never the "form too large" page.
    data = form_data(
        title=ROCKET * 200,
        slug="",
        summary=ROCKET * 500,
        body=ROCKET * MAX_BODY_CHARS,
        tags=", ".join(f"{i:02d}" + ROCKET * 98 for i in range(MAX_TAGS)),
        sources=sources(
            MAX_SOURCES,
            title=ROCKET * 300,
            publisher=ROCKET * 200,
            url="https://example.org/" + "a" * 480,
        ),
        links=links(MAX_RELATED_LINKS, title="\U0001f525" * 200),
    )
    body = urlencode(data)
    assert len(body) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    response = post(editor, data)
    assert response.status_code == 302, response.status_code
    article = Article.objects.get()
    assert len(article.body) == MAX_BODY_CHARS
    assert (article.sources.count(), article.related_links.count()) == (50, 50)
    assert article.tags.count() == 30


@pytest.mark.parametrize(
    "fields",
    [{"sources": sources(1000)}, {"body": "B" * (3 * 1024 * 1024)}],
    ids=["a thousand sources", "a 3 MB body"],
)
def test_a_form_beyond_django_request_limits_gets_a_clear_page(editor, fields):
    before = stored()
    response = post(editor, form_data(**fields))
    page = response.content.decode()
    assert response.status_code == 400
    assert "<h1>The form was too large to accept</h1>" in page
    assert "nothing was saved" in page
    assert "50 sources" in page and "100,000 characters" in page
    assert stored() == before


MALFORMED_DATES = {
    "impossible event date": (
        {"event_date": "2024-13-45"},
        "Enter the date as YYYY-MM-DD, for example 2024-07-24.",
    ),
    "event date in words": (
        {"event_date": "yesterday"},
        "Enter the date as YYYY-MM-DD, for example 2024-07-24.",
    ),
    "event date with a mistyped year": (
        {"event_date": "0224-07-24"},
        "Enter a date between the years 1800 and 2200; this one is in 224.",
    ),
    "impossible facts-verified month": (
        {"facts_verified": "2024-13"},
        "Enter the month as YYYY-MM, for example 2024-07.",
    ),
    "facts-verified month in words": (
        {"facts_verified": "last month"},
        "Enter the month as YYYY-MM, for example 2024-07.",
    ),
    "impossible published date": (
        {"published_at_0": "2024-02-30"},
        "Enter the date as YYYY-MM-DD, for example 2024-07-24.",
    ),
    "impossible published time": (
        {"published_at_1": "25:61"},
        "Enter the time as HH:MM, for example 09:30.",
    ),
    # Past the last moment Python can hold once converted to UTC: a 500 without the check.
    "published at the end of time": (
        {"published_at_0": "9999-12-31", "published_at_1": "23:59:59"},
        "Enter a date between the years 1800 and 2200; this one is in 9999.",
    ),
}


@pytest.mark.parametrize(("fields", "message"), MALFORMED_DATES.values(), ids=MALFORMED_DATES)
def test_malformed_dates_are_form_errors_that_say_the_format(editor, settings, fields, message):
    settings.TIME_ZONE = "America/New_York"
    before = stored()
    page = errors_of(post(editor, form_data(**fields)))
    assert message in page
    assert stored() == before


@pytest.mark.parametrize(
    ("title", "slug"),
    [
        (ROCKET + "\U0001f525", "rocket-fire"),
        ("你好 世界", "nihao-shijie"),
        ("مرحبا بالعالم", "mrhb-bllm"),
        ("Привет, мир", "privet-mir"),
    ],
)
def test_titles_in_any_script_get_a_readable_ascii_slug(editor, title, slug):
    # The admin's slug prefill drops what it cannot transliterate, leaving it empty.
    response = post(editor, form_data(title=title, slug=""))
    assert response.status_code == 302, response.status_code
    article = Article.objects.get()
    assert article.slug == slug
    assert editor.get(article.get_absolute_url()).status_code == 200


def test_preview_of_a_body_over_the_limit_says_so_instead_of_rendering(editor):
    response = editor.post(
        reverse("admin:news_article_preview"), {"body": "# Heading\n\n" + "B" * MAX_BODY_CHARS}
    )
    page = response.content.decode()
    assert response.status_code == 200
    assert "No preview: the body is longer than 100,000 characters." in page
    assert "<h1" not in page
