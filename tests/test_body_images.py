"""Pictures put into an article's text from its form: the dialog's upload (a dropped,
pasted or chosen file, with its words) and its library search. An upload is refused
with sentences that say which field is wrong, and keeps nothing; a picture already in
the library is the one inserted."""

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from images.models import Image

from .factories import ImageFactory
from .pictures import picture, upload

pytestmark = pytest.mark.django_db

UPLOAD_URL = "/admin/images/image/body-upload/"
PICK_URL = "/admin/images/image/pick/"


def member_of(django_user_model, group, name):
    user = django_user_model.objects.create_user(name, f"{name}@example.org", "pw", is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def writer(django_user_model):
    return member_of(django_user_model, "Writers", "writer")


def send(client, content, **fields):
    data = {
        "upload": upload(content, "dropped.png"),
        "alt_text": "The new build cache's hit rate, rising over a week",
        "caption": "",
        "credit": "Chart: Skillo",
        "licence": "own",
        **fields,
    }
    return client.post(UPLOAD_URL, data)


def test_a_dropped_picture_joins_the_library_with_its_words(writer, media_root):
    response = send(writer, picture(800, 400, format="PNG"))
    assert response.status_code == 201
    image = Image.objects.get()
    assert image.alt_text == "The new build cache's hit rate, rising over a week"
    assert (image.credit, image.licence, image.original_name) == (
        "Chart: Skillo",
        "own",
        "dropped.png",
    )
    assert image.uploaded_by.username == "writer"
    answer = response.json()
    assert answer["markdown"] == f"![](image:{image.key})"
    assert answer["existing"] is False


def test_a_decorative_picture_needs_no_alt_text(writer, media_root):
    response = send(writer, picture(800, 400, format="PNG"), alt_text="", decorative="on")
    assert response.status_code == 201
    assert Image.objects.get().decorative


def test_missing_words_are_named_and_nothing_is_kept(writer, media_root):
    response = send(writer, picture(800, 400, format="PNG"), alt_text="", credit="")
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert any(line.startswith("Alt text: Describe the picture") for line in errors), errors
    assert any(line.startswith("Credit: ") for line in errors), errors
    assert not Image.objects.exists()
    assert not list(media_root.rglob("*.png"))


def test_a_file_that_is_not_a_picture_is_refused_with_the_reason(writer, media_root):
    response = send(writer, b"%PDF-1.7 not a picture")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        "Picture: This file is not an image Skillo takes; upload a JPEG, PNG, WebP, AVIF "
        "or GIF file."
    ]


def test_a_picture_already_in_the_library_is_the_one_inserted(writer, media_root):
    content = picture(800, 400, format="PNG")
    first = send(writer, content).json()
    # Dropped again, even without its words: the library's entry, not a second copy.
    again = send(writer, content, alt_text="", credit="")
    assert again.status_code == 200
    assert again.json()["existing"] is True
    assert again.json()["markdown"] == first["markdown"]
    assert Image.objects.count() == 1


def test_the_upload_takes_posts_only(writer):
    assert writer.get(UPLOAD_URL).status_code == 405


def test_someone_who_may_not_add_pictures_is_told(django_user_model, media_root):
    user = django_user_model.objects.create_user("reader", "r@example.org", "pw", is_staff=True)
    client = Client()
    client.force_login(user)
    response = send(client, picture(800, 400, format="PNG"))
    assert response.status_code == 403
    assert "may not add pictures" in response.json()["errors"][0]
    assert not Image.objects.exists()


def test_the_library_search_finds_pictures_by_their_words(writer):
    ImageFactory(alt_text="A rack of servers in a data centre")
    ImageFactory(alt_text="A cat asleep on a keyboard")
    found = writer.get(PICK_URL, {"q": "servers"}).json()["results"]
    assert [image["label"] for image in found] == ["A rack of servers in a data centre"]
    assert found[0]["markdown"].startswith("![](image:")


def test_the_library_search_without_words_offers_the_newest(writer):
    older = ImageFactory(alt_text="Older")
    newer = ImageFactory(alt_text="Newer")
    found = writer.get(PICK_URL).json()["results"]
    assert [image["key"] for image in found] == [newer.key, older.key]


def test_the_article_form_offers_the_image_dialog(writer):
    page = writer.get("/admin/news/article/add/")
    assert b'id="body-image-dialog"' in page.content
    assert b'data-upload-url="/admin/images/image/body-upload/"' in page.content
    assert b"editorial/body-images.js" in page.content
