"""Lead images as readers, link previews, search engines and feed readers get them, and
the cards drawn for articles without one."""

import io
import json
import re
from xml.etree import ElementTree

import pytest
from django.test import Client
from PIL import Image as PILImage

from images import cards
from images.renditions import page_renditions, social_rendition

from .factories import ArticleFactory, ImageFactory
from .test_admin import form_data

pytestmark = pytest.mark.django_db


@pytest.fixture
def photo(media_root):
    return ImageFactory(
        width=1600,
        height=900,
        alt_text="The release's new terminal prompt",
        caption="The prompt after the upgrade.",
        credit="Photo: Jane Doe",
        licence="cc-by-4.0",
    )


@pytest.fixture
def story(photo):
    return ArticleFactory(title="Shell 5 ships", tags=["shells"], lead_image=photo)


def page(client, article):
    response = client.get(article.get_absolute_url())
    assert response.status_code == 200
    return response.content.decode()


def json_ld(html):
    [block] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return json.loads(block)


def meta(html, attribute, name):
    found = re.search(rf'<meta {attribute}="{re.escape(name)}" content="([^"]*)">', html)
    return found and found[1]


def test_the_lead_image_is_a_picture_with_avif_and_jpeg_for_every_width(client, story, photo):
    html = page(client, story)
    avif = ", ".join(f"{r.url} {r.width}w" for r in page_renditions(photo, "avif"))
    jpeg = ", ".join(f"{r.url} {r.width}w" for r in page_renditions(photo, "jpg"))
    assert f'<source type="image/avif" srcset="{avif}"' in html
    img = re.search(r"<img [^>]*>", html)[0]
    assert f'srcset="{jpeg}"' in img
    # Its shape known before it loads, fetched first, and described.
    assert 'width="1600" height="900"' in img
    assert 'fetchpriority="high"' in img and "loading=" not in img
    assert 'alt="The release&#x27;s new terminal prompt"' in img


def test_caption_credit_and_open_licence_are_shown(client, story):
    html = page(client, story)
    assert "<figcaption>The prompt after the upgrade. " in html
    assert '<span class="credit">Photo: Jane Doe (CC BY 4.0)</span>' in html


def test_every_address_in_the_picture_serves_its_file_for_a_year(client, story, photo):
    for rendition in page_renditions(photo, "avif") + page_renditions(photo, "jpg"):
        response = client.get(rendition.url)
        assert response.status_code == 200, rendition.url
        assert response["Content-Type"] == rendition.mime_type
        assert (
            "immutable" in response["Cache-Control"]
            and "max-age=31536000" in response["Cache-Control"]
        )
        with PILImage.open(_bytes(response)) as opened:
            assert opened.size == (rendition.width, rendition.height)


def _bytes(response):
    # Reading it all closes it, as a WSGI server would (the test client's wrapper);
    # closing it again here would close the test's database connection too.
    return io.BytesIO(b"".join(response.streaming_content))


def test_the_originals_are_not_published(client, photo):
    # They may hold a photographer's GPS position; pages link to renditions only.
    assert client.get(f"/media/{photo.file.name}").status_code == 404
    assert client.get("/media/renditions/../originals/x.jpg").status_code == 404


def test_link_previews_get_the_focal_crop_at_1200_by_630(client, story, photo):
    html = page(client, story)
    card = social_rendition(photo, "card")
    assert meta(html, "property", "og:image") == f"http://testserver{card.url}"
    assert meta(html, "property", "og:image:width") == "1200"
    assert meta(html, "property", "og:image:height") == "630"
    assert meta(html, "name", "twitter:card") == "summary_large_image"
    assert meta(html, "name", "twitter:image") == f"http://testserver{card.url}"


def test_structured_data_has_the_three_shapes_google_asks_for(client, story, photo, media_root):
    images = json_ld(page(client, story))["image"]
    assert images == [
        f"http://testserver{social_rendition(photo, shape).url}" for shape in ("16x9", "4x3", "1x1")
    ]
    for shape, size in {"16x9": (1200, 675), "4x3": (1200, 900), "1x1": (1200, 1200)}.items():
        with PILImage.open(media_root / social_rendition(photo, shape).name) as opened:
            assert opened.size == size


def test_an_article_without_a_lead_image_shares_a_card_with_its_title(client, media_root):
    article = ArticleFactory(title="Zig 0.14 released", tags=["zig", "compilers"])
    html = page(client, article)
    assert "<picture>" not in html
    url = meta(html, "property", "og:image")
    assert url.startswith(f"http://testserver/articles/{article.pk}/card-")
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    with PILImage.open(_bytes(response)) as opened:
        assert opened.size == (1200, 630)
    # The same card is the structured data's image.
    assert json_ld(html)["image"] == [url]


def test_the_card_is_drawn_once(client, media_root, monkeypatch):
    article = ArticleFactory(title="Zig 0.14 released", tags=["zig"])
    url = meta(page(client, article), "property", "og:image")
    _bytes(client.get(url))
    drawn = []
    monkeypatch.setattr(cards, "draw", lambda *args: drawn.append(args) or b"")
    response = client.get(url)
    assert response.status_code == 200
    assert _bytes(response).getvalue().startswith(b"\x89PNG")
    assert drawn == []


def test_a_retitled_article_moves_its_card_and_a_draft_has_none(client, media_root):
    article = ArticleFactory(title="Zig 0.14 released", tags=["zig"])
    old = meta(page(client, article), "property", "og:image")
    article.title = "Zig 0.14 released with incremental builds"
    article.save()
    new = meta(page(client, article), "property", "og:image")
    assert new != old
    response = client.get(old)
    assert response.status_code == 301 and response["Location"] == new.removeprefix(
        "http://testserver"
    )
    draft = ArticleFactory(title="Secret launch", draft=True)
    assert client.get(f"/articles/{draft.pk}/card-0.png").status_code == 404


def test_feeds_carry_the_lead_image(client, story, photo, media_root):
    card = social_rendition(photo, "card")
    expected = {
        "url": f"http://testserver{card.url}",
        "length": str((media_root / card.name).stat().st_size),
        "type": "image/jpeg",
    }
    rss = ElementTree.fromstring(client.get("/feed/").content)
    assert rss.find("channel/item/enclosure").attrib == expected
    atom = ElementTree.fromstring(client.get("/feed/atom/").content)
    [link] = atom.findall(
        "{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}link[@rel='enclosure']"
    )
    assert {"url": link.get("href"), "length": link.get("length"), "type": link.get("type")} == (
        expected
    )


@pytest.fixture
def editor(django_user_model):
    user = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client = Client()
    client.force_login(user)
    return client


def test_a_lead_image_narrower_than_1200_pixels_is_refused(editor, media_root):
    small = ImageFactory(width=1000, height=600)
    response = editor.post("/admin/news/article/add/", form_data(lead_image=str(small.pk)))
    assert response.status_code == 200
    assert response.context["adminform"].form.errors["lead_image"] == [
        "A lead image must be at least 1,200 pixels wide (search engines and link previews "
        "show nothing smaller); this one is 1,000. Choose a larger picture, or place this "
        "one in the body."
    ]


def test_an_image_an_article_shows_cannot_be_deleted_under_it(editor, story, photo):
    response = editor.post(f"/admin/images/image/{photo.pk}/delete/", {"post": "yes"})
    assert photo.__class__.objects.filter(pk=photo.pk).exists()
    assert "Shell 5 ships" in response.content.decode()


def test_the_image_page_in_the_admin_says_where_it_is_used(editor, story, photo):
    html = editor.get(f"/admin/images/image/{photo.pk}/change/").content.decode()
    assert f'<a href="/admin/news/article/{story.pk}/change/">Shell 5 ships</a>' in html
    assert 'class="focal-picker"' in html


# The plain-text format: "Lead image: KEY" in the header block.

FOOTER = (
    "Published date reflects the original event date (2024-07-24). This article is original "
    "Skillo editorial written from the sources above; facts were verified in September 2026."
)


def article_file(folder, header):
    path = folder / "shell.txt"
    path.write_text(
        f"Shell 5 ships\n\n{header}\n\nSome news.\n\nSources\n\n• Notes (Shell team)\n\n"
        f"{FOOTER}\n\nTags: shells\n"
    )
    return path


def test_an_export_names_the_lead_image_and_an_import_sets_it(story, photo, tmp_path):
    from textfiles.importer import import_articles
    from textfiles.textformat import format_article

    text = format_article(story)
    assert f"\nLead image: {photo.sha256[:16]}\n" in text
    story.lead_image = None
    story.save()
    path = tmp_path / "shell.txt"
    path.write_text(text)
    import_articles([path])
    story.refresh_from_db()
    assert story.lead_image == photo


def test_an_empty_lead_image_line_removes_it(story, photo, tmp_path):
    from textfiles.importer import import_articles

    import_articles([article_file(tmp_path, "Format: plain text\nLead image:")])
    story.refresh_from_db()
    assert story.lead_image is None


def test_a_lead_image_not_in_the_library_names_file_and_line(story, tmp_path):
    from textfiles.importer import ImportFailed, import_articles

    path = article_file(tmp_path, "Format: plain text\nLead image: 0123456789abcdef")
    with pytest.raises(ImportFailed) as failed:
        import_articles([path])
    assert failed.value.problems == [
        f"{path}:4: lead image: no picture 0123456789abcdef in the image library; upload it "
        "first (a site backup's images/ folder holds it, and import_site restores it)."
    ]


def test_a_lead_image_line_that_is_no_key_is_a_format_error(tmp_path):
    from textfiles.importer import ImportFailed, import_articles

    path = article_file(tmp_path, "Format: plain text\nLead image: photo.jpg")
    with pytest.raises(ImportFailed) as failed:
        import_articles([path])
    [problem] = failed.value.problems
    assert problem.startswith(f"{path}:4: 'Lead image:' must be the picture's key")


# Library images in the text: ![alt](image:KEY "caption")


def test_a_placed_image_is_a_lazy_figure_with_the_librarys_words(client, photo):
    body = f"## What happened\n\nIt shipped.\n\n![](image:{photo.key})\n\nMore text."
    article = ArticleFactory(body=body)
    html = page(client, article)
    # The body up to its own closing tag (its headings are <div>s too).
    figure = re.search(r'<div class="article-body">.*?\n  </div>', html, re.S)[0]
    assert "<figure" in figure and "<p></p>" not in figure
    img = re.search(r"<img [^>]*>", figure)[0]
    assert 'loading="lazy"' in img and "fetchpriority" not in img
    assert 'alt="The release&#x27;s new terminal prompt"' in img
    assert "<figcaption>The prompt after the upgrade. " in figure
    # Readers of search results and teasers get the words, not the marker.
    assert "\ue000" not in article.body_text and "\ue000" not in html


def test_a_placement_may_give_its_own_alt_text_and_caption(client, photo):
    body = f'Text.\n\n![A close-up of the prompt](image:{photo.key} "Zoomed in.")'
    html = page(client, ArticleFactory(body=body))
    assert 'alt="A close-up of the prompt"' in html
    assert "<figcaption>Zoomed in. " in html


def test_a_placement_inside_a_paragraph_splits_it_into_valid_html(client, photo):
    html = page(client, ArticleFactory(body=f"Before ![](image:{photo.key}) after."))
    assert re.search(r"<p>Before </p><figure[^>]*>.*?</figure>\s*<p> after.</p>", html, re.S)


def test_a_placement_in_a_code_block_stays_text(client, photo):
    html = page(client, ArticleFactory(body=f"```\n![](image:{photo.key})\n```"))
    assert f"![](image:{photo.key})" in html and "<figure" not in html


def test_other_images_are_still_dropped(client):
    html = page(client, ArticleFactory(body="![pixel](https://tracker.example/p.gif)"))
    assert "tracker.example" not in html


def test_an_image_not_in_the_library_is_refused_with_its_key(editor, media_root):
    response = editor.post(
        "/admin/news/article/add/", form_data(body="Text.\n\n![](image:0123456789abcdef)")
    )
    assert response.context["adminform"].form.errors["body"] == [
        "The body places image:0123456789abcdef, which is not in the image library. Copy "
        "the line from the image's page in the library."
    ]


def test_feeds_show_placed_images_as_absolute_jpegs(client, photo):
    ArticleFactory(body=f"Text.\n\n![](image:{photo.key})")
    rss = ElementTree.fromstring(client.get("/feed/").content)
    description = rss.find("channel/item/description").text
    jpeg = next(r for r in page_renditions(photo, "jpg") if r.width == 1200)
    assert f'<img src="http://testserver{jpeg.url}" width="1200" height="675"' in description
    assert "<picture>" not in description


def test_the_image_page_gives_the_line_to_place_it(editor, photo):
    html = editor.get(f"/admin/images/image/{photo.pk}/change/").content.decode()
    assert f'<code class="image-placement">![](image:{photo.key})</code>' in html


def test_new_words_for_a_placed_image_show_without_saving_the_article(client, photo):
    article = ArticleFactory(body=f"Text.\n\n![](image:{photo.key})")
    photo.alt_text = "Renamed"
    photo.save()
    assert 'alt="Renamed"' in page(client, article)


def test_a_placed_image_survives_the_plain_text_round_trip(photo, tmp_path):
    from textfiles.importer import import_articles
    from textfiles.textformat import format_article

    article = ArticleFactory(body=f'Text.\n\n![Alt](image:{photo.key} "Cap")', tags=["x"])
    text = format_article(article)
    assert f'![Alt](image:{photo.key} "Cap")' in text
    path = tmp_path / "a.txt"
    path.write_text(text)
    assert import_articles([path]).unchanged == [article]


def test_pictures_add_one_query_however_many_the_text_places(client, photo, media_root):
    from news.dependencies import ARTICLE

    from .conftest import count_queries

    def rendering_queries(article):
        return count_queries(client, article.get_absolute_url(), [ARTICLE(article.pk)])

    others = [ImageFactory(width=800, height=450) for _ in range(3)]
    one = ArticleFactory(body=f"![](image:{photo.key})", lead_image=photo, tags=["x"])
    many = ArticleFactory(
        body="\n\n".join(f"![](image:{image.key})" for image in [photo, *others]),
        lead_image=photo,
        tags=["x"],
    )
    plain = ArticleFactory(tags=["x"])
    counts = [rendering_queries(article) for article in (plain, one, many)]
    assert counts[1] == counts[2] == counts[0] + 1, counts
