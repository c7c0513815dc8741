"""How an article appears in search results and share cards: by its title, summary and
lead image, or by the search title, meta description and social image an editor sets;
the article form's preview shows both, and the rules hold in the admin and in imports."""

from html import unescape

import pytest

from images.renditions import social_rendition
from news.models import Article
from textfiles.importer import ImportFailed, import_articles

from .factories import ArticleFactory, ImageFactory
from .test_admin import form_data
from .test_lead_image import json_ld, meta, page
from .test_limits import post

pytestmark = pytest.mark.django_db

TITLE = "Zig 0.15 ships a new build cache, a faster linker and an official package index"


@pytest.fixture
def editor_client(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("ed", "e@example.org", "pw"))
    return client


def title_of(html):
    return unescape(html.split("<title>", 1)[1].split("</title>", 1)[0])


def test_without_overrides_the_page_uses_the_headline_and_summary(client):
    article = ArticleFactory(title=TITLE, summary="Builds are faster.")
    html = page(client, article)
    assert title_of(html) == f"{TITLE} · Skillo"
    assert meta(html, "name", "description") == "Builds are faster."
    assert meta(html, "property", "og:description") == "Builds are faster."


def test_the_search_title_is_what_search_results_show(client):
    article = ArticleFactory(title=TITLE, search_title="Zig 0.15: build cache & linker")
    html = page(client, article)
    assert title_of(html) == "Zig 0.15: build cache & linker · Skillo"
    # Share cards and the page itself keep the headline.
    assert unescape(meta(html, "property", "og:title")) == TITLE
    assert f"<h1>{TITLE}</h1>" in html


def test_the_meta_description_replaces_the_summary_in_results_and_cards(client):
    article = ArticleFactory(summary="Builds are faster.", meta_description="Zig's cache, tried.")
    html = page(client, article)
    assert unescape(meta(html, "name", "description")) == "Zig's cache, tried."
    assert unescape(meta(html, "property", "og:description")) == "Zig's cache, tried."
    assert json_ld(html)["description"] == "Zig's cache, tried."
    # The summary still leads the article.
    assert "Builds are faster." in html


def test_share_cards_show_the_social_image_instead_of_the_lead(client, media_root):
    lead = ImageFactory(width=1600, height=900, alt_text="The lead")
    card_picture = ImageFactory(width=1400, height=800, seed=3, alt_text="The card's own")
    article = ArticleFactory(lead_image=lead, social_image=card_picture)
    html = page(client, article)
    card = social_rendition(card_picture, "card")
    assert meta(html, "property", "og:image") == f"http://testserver{card.url}"
    assert meta(html, "property", "og:image:alt") == "The card&#x27;s own"
    # The page still shows the lead image.
    assert social_rendition(lead, "card").url not in html
    assert "The lead" in html


def test_a_narrow_social_image_is_refused_with_the_reason(editor_client, media_root):
    narrow = ImageFactory(width=800, height=420)
    response = post(editor_client, form_data(social_image=str(narrow.pk)))
    assert response.status_code == 200
    errors = response.context["adminform"].form.errors["social_image"]
    assert errors == [
        "A social image must be at least 1,200 pixels wide (search engines and link previews "
        "show nothing smaller); this one is 800. Choose a larger picture, or place this one "
        "in the body."
    ]
    assert not Article.objects.exists()


def test_a_search_title_too_long_for_results_is_refused(editor_client):
    response = post(editor_client, form_data(search_title="x" * 61))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["search_title"] == [
        "A search title can be at most 60 characters long (search results cut what is "
        "longer); this one has 61."
    ]
    assert not Article.objects.exists()


def test_the_form_saves_the_overrides(editor_client, media_root):
    picture = ImageFactory(width=1400, height=800)
    response = post(
        editor_client,
        form_data(
            search_title="Go 1.22: loop variables",
            meta_description="Per-iteration loop variables, at last.",
            social_image=str(picture.pk),
        ),
    )
    assert response.status_code == 302
    article = Article.objects.get()
    assert (article.search_title, article.meta_description, article.social_image) == (
        "Go 1.22: loop variables",
        "Per-iteration loop variables, at last.",
        picture,
    )


def preview(client, **fields):
    response = client.post("/admin/news/article/preview/", form_data(**fields))
    assert response.status_code == 200
    html = response.content.decode()
    start = html.index('<section class="appearance"')
    return unescape(html[start : html.index("</section>", start)])


def test_the_preview_shows_the_search_result_as_typed(editor_client):
    section = preview(
        editor_client, search_title="Go 1.22: loop variables", meta_description="At last."
    )
    assert "testserver/articles/go-1-22-released/" in section
    assert "Go 1.22: loop variables · Skillo" in section
    assert "At last." in section


def test_the_preview_falls_back_to_the_title_summary_and_drawn_card(editor_client):
    section = preview(editor_client)
    assert "Go 1.22 released · Skillo" in section
    assert "Loop variables are per iteration." in section
    assert 'class="appearance__drawn"' in section


def test_the_preview_card_shows_the_social_image(editor_client, media_root):
    picture = ImageFactory(width=1400, height=800, alt_text="A gopher at a desk")
    section = preview(editor_client, social_image=str(picture.pk))
    assert f'src="{social_rendition(picture, "card").url}"' in section
    assert 'alt="A gopher at a desk"' in section


def test_an_import_naming_a_missing_social_image_says_where(tmp_path):
    file = tmp_path / "zig.txt"
    file.write_text(
        "Zig ships\n\nFormat: Markdown\nSocial image: 0123456789abcdef\n\nZig shipped.\n\n"
        "Published date reflects the original event date (2024-07-24). This article is "
        "original Skillo editorial written from the sources above; facts were verified in "
        "September 2026.\n",
        encoding="utf-8",
    )
    with pytest.raises(ImportFailed) as raised:
        import_articles([file])
    assert raised.value.problems == [
        f"{file}:4: social image: no picture 0123456789abcdef in the image library; upload it "
        "first (a site backup's images/ folder holds it, and import_site restores it)."
    ]
    assert not Article.objects.exists()
