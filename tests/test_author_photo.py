"""An author's portrait from the image library: on their page and in JSON-LD."""

import json
import re

import pytest

from images.renditions import page_renditions, social_rendition

from .factories import ArticleFactory, AuthorFactory, ImageFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ada(media_root):
    portrait = ImageFactory(width=600, height=800, alt_text="Ada at her desk")
    return AuthorFactory(name="Ada Writer", slug="ada", photo=portrait)


def test_the_author_page_shows_the_portrait(client, ada):
    html = client.get("/authors/ada/").content.decode()
    smallest = page_renditions(ada.photo, "avif")[0]
    assert f"{smallest.url} {smallest.width}w" in html
    assert 'alt="Ada at her desk"' in html and 'sizes="10rem"' in html


def test_the_person_in_json_ld_has_the_portrait(client, ada):
    article = ArticleFactory(authors=[ada])
    html = client.get(article.get_absolute_url()).content.decode()
    [block] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    [person] = json.loads(block)["author"]
    assert person["image"] == f"http://testserver{social_rendition(ada.photo, '1x1').url}"


def test_new_words_for_the_portrait_show_on_the_author_page(client, ada):
    ada.photo.alt_text = "Ada on stage"
    ada.photo.save()
    assert 'alt="Ada on stage"' in client.get("/authors/ada/").content.decode()


def test_a_portrait_in_use_cannot_be_deleted(ada):
    from django.db.models import ProtectedError

    with pytest.raises(ProtectedError):
        ada.photo.delete()
