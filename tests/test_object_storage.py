"""Media on S3-compatible object storage (MEDIA_S3_BUCKET), against a real S3 API server
on loopback: what one machine uploads, renders and draws, another machine with an empty
media folder of its own serves. Here the two machines are two test clients in one
process, each with its own MEDIA_ROOT; tests/test_object_storage_machines.py runs them
as separate processes."""

import io
import re
from io import StringIO
from xml.etree import ElementTree

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.test import Client
from PIL import Image as PILImage

from images.models import Image
from images.renditions import all_renditions, page_renditions, social_rendition
from skillo.settings.base import media_storage

from .background_tasks import run_queued
from .factories import ArticleFactory, ImageFactory
from .pictures import picture, upload
from .test_site_backup import wipe

# The database only holds the images' rows, the same on both: SQLite pass only.
pytestmark = [
    pytest.mark.django_db,
    pytest.mark.sqlite_only(reason="media are files: the database cannot change them"),
]


@pytest.fixture
def machine_a(settings, tmp_path, s3_media, django_user_model):
    """An editor's client on machine A, whose media folder is its own."""
    settings.MEDIA_ROOT = tmp_path / "machine-a"
    editor = django_user_model.objects.create_superuser("editor", "e@example.org", "pw")
    client = Client()
    client.force_login(editor)
    return client


def on_machine_b(settings, tmp_path):
    """A reader's client on machine B: another, empty media folder."""
    settings.MEDIA_ROOT = tmp_path / "machine-b"
    return Client()


def upload_through_the_admin(client):
    response = client.post(
        "/admin/images/image/add/",
        {
            "upload": upload(picture(1600, 900), "launch.jpg"),
            "alt_text": "The launch on stage",
            "credit": "Photo: Skillo",
            "licence": "own",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    run_queued()  # machine A's worker makes the renditions
    return Image.objects.get()


def test_an_upload_on_one_machine_is_served_with_its_renditions_by_another(
    machine_a,
    settings,
    tmp_path,
    s3_server,
    s3_media,
):
    image = upload_through_the_admin(machine_a)
    article = ArticleFactory(title="Launch day", lead_image=image)
    reader = on_machine_b(settings, tmp_path)
    html = reader.get(article.get_absolute_url()).content.decode()
    [largest] = page_renditions(image, "jpg")[-1:]
    assert f"{largest.url} {largest.width}w" in html
    response = reader.get(largest.url)
    assert response.status_code == 200
    served = PILImage.open(io.BytesIO(b"".join(response.streaming_content)))
    assert served.size == (largest.width, largest.height)
    # Everything is in the bucket, nothing on either machine's disk.
    stored = s3_server.keys(s3_media)
    assert {image.file.name, *(r.name for r in all_renditions(image))} <= set(stored)
    assert not (tmp_path / "machine-a").exists() and not (tmp_path / "machine-b").exists()


@pytest.fixture
def published(machine_a):
    image = upload_through_the_admin(machine_a)
    return ArticleFactory(title="Launch day", lead_image=image)


def bucket_requests():
    """The requests this process sends the bucket from now on, by operation name."""
    sent = []
    events = default_storage.connection.meta.client.meta.events
    events.register("before-call.s3", lambda model, **kwargs: sent.append(model.name))
    return sent


def test_an_article_page_asks_the_bucket_nothing(published, settings, tmp_path):
    reader = on_machine_b(settings, tmp_path)
    sent = bucket_requests()
    for path in ("/", published.get_absolute_url()):
        assert reader.get(path).status_code == 200
    assert sent == []


def test_originals_in_the_bucket_are_not_served(published, settings, tmp_path):
    reader = on_machine_b(settings, tmp_path)
    assert reader.get(f"/media/{published.lead_image.file.name}").status_code == 404


def test_the_feed_gives_the_cards_size_in_the_bucket(published, settings, tmp_path, s3_server):
    reader = on_machine_b(settings, tmp_path)
    card = social_rendition(published.lead_image, "card")
    stored = s3_server.client.head_object(
        Bucket=settings.STORAGES["default"]["OPTIONS"]["bucket_name"], Key=card.name
    )
    enclosure = ElementTree.fromstring(reader.get("/feed/").content).find("channel/item/enclosure")
    assert enclosure.attrib["length"] == str(stored["ContentLength"])


def test_an_endpoint_without_its_scheme_stops_the_start_naming_the_variable():
    with pytest.raises(
        ImproperlyConfigured, match=re.escape("MEDIA_S3_ENDPOINT_URL 'r2.example.com'")
    ):
        media_storage({"MEDIA_S3_BUCKET": "media", "MEDIA_S3_ENDPOINT_URL": "r2.example.com"})


def empty(s3_server, bucket):
    for key in s3_server.keys(bucket):
        s3_server.client.delete_object(Bucket=bucket, Key=key)


def export_and_empty_the_site(s3_server, bucket, folder):
    call_command("export_site", str(folder), stdout=StringIO())
    wipe()
    empty(s3_server, bucket)


def test_a_backup_restores_its_pictures_into_the_bucket(s3_server, s3_media, settings, tmp_path):
    story = ArticleFactory(title="Illustrated", lead_image=ImageFactory())
    card = social_rendition(story.lead_image, "card")
    export_and_empty_the_site(s3_server, s3_media, tmp_path / "backup")
    call_command("import_site", str(tmp_path / "backup"), stdout=StringIO())
    reader = on_machine_b(settings, tmp_path)
    response = reader.get(card.url)
    assert response.status_code == 200
    assert PILImage.open(io.BytesIO(b"".join(response.streaming_content))).size == (1200, 630)
    assert not (tmp_path / "machine-b").exists()


def test_a_restore_that_fails_leaves_nothing_in_the_bucket(s3_server, s3_media, tmp_path):
    ArticleFactory(title="Illustrated", lead_image=ImageFactory())
    export_and_empty_the_site(s3_server, s3_media, tmp_path / "backup")
    # The pictures are restored first; this article then fails, and nothing is kept.
    path = tmp_path / "backup" / "articles" / "illustrated.txt"
    path.write_text(path.read_text().replace("Illustrated", "x" * 201, 1))
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_site", str(tmp_path / "backup"), stdout=StringIO(), stderr=StringIO())
    assert not Image.objects.exists()
    assert s3_server.keys(s3_media) == []
