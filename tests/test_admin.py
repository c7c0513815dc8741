import re

import pytest
import reversion
from django.urls import reverse
from reversion.models import Version

from news.models import Article, RelatedLink, Source
from people.models import Author

from .factories import ArticleFactory, SourceFactory

pytestmark = pytest.mark.django_db

ADD_URL = reverse("admin:news_article_add")


@pytest.fixture
def editor_client(client, django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client.force_login(user)
    return client


def form_data(sources=(), links=(), authors=(), **fields):
    data = {
        "title": "Go 1.22 released",
        "slug": "go-1-22-released",
        "summary": "Loop variables are per iteration.",
        "body": "## What happened\n\nGo 1.22 shipped.",
        "tags": "go, release",
        "status": "published",
        "event_date": "2024-02-06",
        "published_at_0": "2024-02-06",
        "published_at_1": "10:00:00",
        "facts_verified": "2026-09",
    }
    data.update(fields)
    for prefix, rows in (("sources", sources), ("related_links", links), ("authorships", authors)):
        data.update(
            {
                f"{prefix}-TOTAL_FORMS": str(len(rows)),
                f"{prefix}-INITIAL_FORMS": "0",
                f"{prefix}-MIN_NUM_FORMS": "0",
                f"{prefix}-MAX_NUM_FORMS": "1000",
            }
        )
        for i, row in enumerate(rows):
            data.update({f"{prefix}-{i}-{key}": value for key, value in row.items()})
    return data


def test_article_list_shows_columns_and_filters(editor_client):
    ArticleFactory(title="Listed story", tags=["python"])
    page = editor_client.get(reverse("admin:news_article_changelist")).content.decode()
    assert "Listed story" in page
    for column in ("column-state", "column-event_date", "column-published", "column-tag_list"):
        assert column in page
    assert "By topic" in page and "By status" in page
    assert "python" in page


def test_the_list_says_scheduled_with_the_time_and_zone(editor_client):
    from datetime import timedelta

    from django.utils import timezone

    when = timezone.now().replace(microsecond=0) + timedelta(days=2)
    ArticleFactory(title="Later story", published_at=when)
    ArticleFactory(title="Waiting story", status="review")
    page = editor_client.get(reverse("admin:news_article_changelist")).content.decode()
    local = timezone.localtime(when)
    assert f"Scheduled for {local:%-d %b %Y, %H:%M %Z}" in page
    assert "Ready for review" in page


def rows(page):
    """The titles of the list's rows, in order."""
    return re.findall(r'<th class="field-title"><a [^>]*>([^<]+)</a>', page)


def test_the_list_shows_each_byline_and_filters_by_author(editor_client):
    ArticleFactory(title="By two", authors=["Ada Lovelace", "Grace Hopper"])
    ArticleFactory(title="By Grace", authors=["Grace Hopper"])
    ArticleFactory(title="By nobody")
    page = editor_client.get(reverse("admin:news_article_changelist")).content.decode()
    assert '<td class="field-byline">Ada Lovelace, Grace Hopper</td>' in page
    assert '<td class="field-byline">Skillo editorial</td>' in page
    assert "By author" in page
    grace = Author.objects.get(name="Grace Hopper")
    url = reverse("admin:news_article_changelist")
    by_grace = editor_client.get(url, {"author": grace.pk}).content.decode()
    assert sorted(rows(by_grace)) == ["By Grace", "By two"]
    unsigned = editor_client.get(url, {"author": "none"}).content.decode()
    assert rows(unsigned) == ["By nobody"]


def test_searching_an_authors_name_finds_their_articles(editor_client):
    ArticleFactory(title="Hers", authors=["Grace Hopper"])
    ArticleFactory(title="Someone else's", authors=["Ada Lovelace"])
    page = editor_client.get(
        reverse("admin:news_article_changelist"), {"q": "Hopper"}
    ).content.decode()
    assert rows(page) == ["Hers"]


def test_a_drafts_row_says_it_is_not_published_rather_than_a_time(editor_client):
    ArticleFactory(title="Unfinished", draft=True)
    page = editor_client.get(reverse("admin:news_article_changelist")).content.decode()
    assert '<td class="field-published">Not published</td>' in page


def test_article_list_search(editor_client):
    ArticleFactory(title="Needle in the body", body="haystack words")
    ArticleFactory(title="Other")
    page = editor_client.get(
        reverse("admin:news_article_changelist"), {"q": "haystack"}
    ).content.decode()
    assert "Needle in the body" in page and ">Other<" not in page


def test_add_article_with_sources_links_and_tags(editor_client):
    target = ArticleFactory(title="Go 1.21 released")
    response = editor_client.post(
        ADD_URL,
        form_data(
            sources=[{"position": "0", "title": "Release notes", "publisher": "Go team",
                      "url": "https://go.dev/doc/go1.22"}],
            links=[{"position": "0", "target": str(target.pk), "title": ""},
                   {"position": "1", "target": "", "title": "Go 1.23 released"}],
        ),
    )  # fmt: skip
    assert response.status_code == 302, response.context["errors"]
    article = Article.objects.get(slug="go-1-22-released")
    assert article.facts_verified.isoformat() == "2026-09-01"
    assert [s.url for s in article.sources.all()] == ["https://go.dev/doc/go1.22"]
    assert [link.display_title for link in article.related_links.all()] == [
        "Go 1.21 released",
        "Go 1.23 released",
    ]
    assert sorted(t.name for t in article.tags.all()) == ["go", "release"]
    assert '<h2 id="what-happened">' in article.body_html


def test_change_form_has_slug_prefill_autocomplete_and_view_on_site(editor_client):
    from django.contrib.contenttypes.models import ContentType

    article = ArticleFactory()
    page = editor_client.get(reverse("admin:news_article_change", args=[article.pk]))
    html = page.content.decode()
    assert 'data-slug-from="id_title"' in html and "editorial/slug-fill" in html
    assert "admin-autocomplete" in html
    view_on_site = reverse(
        "admin:view_on_site", args=[ContentType.objects.get_for_model(article).pk, article.pk]
    )
    assert view_on_site in html
    assert editor_client.get(view_on_site)["Location"].endswith(article.get_absolute_url())


def test_autocomplete_finds_target_articles(editor_client):
    ArticleFactory(title="PyTorch 2.1 ships")
    response = editor_client.get(
        reverse("admin:autocomplete"),
        {"term": "pytorch", "app_label": "news", "model_name": "relatedlink",
         "field_name": "target"},
    )  # fmt: skip
    assert [r["text"] for r in response.json()["results"]] == ["PyTorch 2.1 ships"]


def change(editor_client, article, **kwargs):
    return editor_client.post(
        reverse("admin:news_article_change", args=[article.pk]),
        form_data(title=article.title, slug=article.slug, **kwargs),
    )


def assert_refused(response, message):
    assert response.status_code == 200
    assert message in response.content.decode()


def test_related_link_to_itself_is_refused(editor_client):
    article = ArticleFactory(title="Self")
    response = change(editor_client, article, links=[{"target": str(article.pk), "title": ""}])
    assert_refused(response, "An article cannot relate to itself.")
    assert not RelatedLink.objects.exists()


def test_related_title_naming_itself_is_refused(editor_client):
    response = editor_client.post(ADD_URL, form_data(links=[{"title": "GO 1.22 Released"}]))
    assert_refused(response, "An article cannot relate to itself.")
    assert not Article.objects.exists()


@pytest.mark.parametrize("url", ["javascript:alert(1)", "ftp://example.org/x"])
def test_source_url_must_be_http_or_https(editor_client, url):
    response = editor_client.post(
        ADD_URL, form_data(sources=[{"title": "T", "publisher": "P", "url": url}])
    )
    assert_refused(response, "Enter a valid URL.")
    assert not Article.objects.exists()


def test_facts_verified_in_the_future_is_refused(editor_client):
    response = editor_client.post(ADD_URL, form_data(facts_verified="2099-01"))
    assert_refused(response, "The facts cannot have been verified in a future month.")
    assert not Article.objects.exists()


def test_editing_keeps_sources_in_their_order(editor_client):
    article = ArticleFactory()
    SourceFactory(article=article, position=1, title="Second")
    SourceFactory(article=article, position=0, title="First")
    page = editor_client.get(reverse("admin:news_article_change", args=[article.pk]))
    html = page.content.decode()
    assert html.index('value="First"') < html.index('value="Second"')


def test_add_form_starts_with_this_month_as_facts_verified(editor_client):
    from django.utils import timezone

    html = editor_client.get(ADD_URL).content.decode()
    assert f'name="facts_verified" value="{timezone.localdate():%Y-%m}"' in html


def source_rows(article, sources, delete=()):
    return [
        {"id": str(source.pk), "article": str(article.pk), "position": str(source.position),
         "title": source.title, "publisher": source.publisher, "url": source.url,
         **({"DELETE": "on"} if source in delete else {})}
        for source in sources
    ]  # fmt: skip


@pytest.mark.parametrize("delete_one", [True, False])
def test_an_article_at_the_source_limit_can_swap_one_but_not_add_one(editor_client, delete_one):
    article = ArticleFactory(title="Go 1.22 released", slug="go-1-22-released")
    stored = SourceFactory.create_batch(50, article=article)
    new = {"id": "", "article": str(article.pk), "position": "50", "title": "New notes",
           "publisher": "Go team", "url": ""}  # fmt: skip
    data = form_data(
        title=article.title,
        slug=article.slug,
        loaded_version=str(article.version),
        sources=[*source_rows(article, stored, delete=stored[:1] if delete_one else ()), new],
    )
    data["sources-INITIAL_FORMS"] = "50"
    response = editor_client.post(reverse("admin:news_article_change", args=[article.pk]), data)
    titles = set(article.sources.values_list("title", flat=True))
    if delete_one:
        assert response.status_code == 302, response.context["errors"]
        assert len(titles) == 50 and "New notes" in titles and stored[0].title not in titles
    else:
        assert_refused(response, "An article can have at most 50 sources. This one has 51")
        assert titles == {source.title for source in stored}


def test_the_admin_and_the_error_page_read_the_limits_from_the_model_layer():
    from editorial import admin as editorial_admin
    from news import rules
    from skillo import errors

    inlines = {inline.model: inline for inline in editorial_admin.ArticleAdmin.inlines}
    assert inlines[Source].max_num == rules.MAX_SOURCES
    assert inlines[RelatedLink].max_num == rules.MAX_RELATED_LINKS
    assert errors.LIMITS == {
        "body": "100,000", "sources": 50, "related_links": 50, "tags": 30,
    }  # fmt: skip


def test_the_slug_prefill_is_the_servers_slug(editor_client):
    url = reverse("admin:news_article_slug")
    assert editor_client.get(url, {"text": "Go 1.23"}).json() == {"slug": "go-1-23", "taken": None}
    answer = editor_client.get(url, {"text": "Привет, мир"}).json()
    assert answer == {"slug": "privet-mir", "taken": None}
    html = editor_client.get(ADD_URL).content.decode()
    assert f'data-slug-url="{url}"' in html
    assert "/articles/SLUG/" in html


def test_the_publish_time_says_its_zone(editor_client, settings):
    html = editor_client.get(ADD_URL).content.decode()
    assert f"Published ({settings.TIME_ZONE})" in html


def comparison_of_two_summaries(admin_client):
    """The revision comparison page of an article whose summary alone changed."""
    article = ArticleFactory(title="Compared")
    for summary in ("First.", "Second."):
        with reversion.create_revision():
            article.summary = summary
            article.save()
    older, newer = Version.objects.get_for_object(article).order_by("pk")[:2]
    return admin_client.get(
        f"/admin/news/article/{article.pk}/history/compare/",
        {"version_id1": older.pk, "version_id2": newer.pk},
    ).content.decode()


def test_the_revision_comparison_has_the_admins_one_breadcrumb_trail(admin_client):
    page = comparison_of_two_summaries(admin_client)
    (trail,) = re.findall(r'<nav aria-label="Breadcrumbs">(.*?)</nav>', page, re.S)
    items = [
        re.sub(r"<[^>]+>", "", item).strip() for item in re.findall(r"<li.*?</li>", trail, re.S)
    ]
    assert items == ["Home", "Newsroom", "Articles", "Compared", "History", "Compare"]
    assert '<ol class="breadcrumbs">' in trail


def test_the_lead_image_picker_offers_only_pictures_wide_enough(editor_client, media_root):
    from .factories import ImageFactory

    ImageFactory(width=1600, height=900, alt_text="Wide chart")
    ImageFactory(width=800, height=450, alt_text="Narrow chart")
    search = {"term": "chart", "app_label": "news", "model_name": "article"}
    lead = editor_client.get(reverse("admin:autocomplete"), {**search, "field_name": "lead_image"})
    assert [r["text"] for r in lead.json()["results"]] == ["Wide chart"]


def test_the_slug_check_names_the_story_already_at_a_titles_address(editor_client):
    story = ArticleFactory(title="PyTorch 2.4 released")
    url = reverse("admin:news_article_slug")
    answer = editor_client.get(url, {"text": "PyTorch 2.4 Released"}).json()
    assert answer == {
        "slug": story.slug,
        "taken": {
            "title": "PyTorch 2.4 released",
            "url": reverse("admin:news_article_change", args=[story.pk]),
        },
    }
    # The story being edited is no duplicate of itself.
    mine = editor_client.get(url, {"text": story.title, "article": story.pk}).json()
    assert mine["taken"] is None


def test_a_taken_address_is_refused_in_words_with_the_story(editor_client):
    story = ArticleFactory(title="Go 1.22 released", slug="go-1-22-released")
    response = editor_client.post(ADD_URL, form_data())
    errors = response.context["adminform"].form.errors["slug"]
    change = reverse("admin:news_article_change", args=[story.pk])
    assert errors == [
        f'A story at this address already exists: <a href="{change}">Go 1.22 released</a>. '
        "Change the title or the address, or edit that story instead."
    ]
    assert Article.objects.count() == 1


def test_the_revision_comparison_shows_only_what_changed_and_its_links_once(admin_client):
    page = comparison_of_two_summaries(admin_client)
    headings = re.findall(r"<h2>([^<]*)</h2>", page.split("content-main")[1])
    assert [heading.strip() for heading in headings] == ["summary", "Edit comment:"]
    assert "add:" not in page and "not under reversion control" not in page
    assert page.count("Go back to history list") == 1
