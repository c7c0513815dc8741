"""Renditions and share cards are made by the worker (images.tasks, news.tasks), not in
the editor's request: the upload answers at once, the editor sees the picture with a
"being made" state, and readers meet the article without it until its files exist,
never a broken image."""

import pytest
from django.db import transaction
from django.tasks import TaskResultStatus
from django.test import Client
from django_tasks_db.models import DBTaskResult

from images.cards import title_card
from images.models import Image
from images.renditions import all_renditions, page_renditions, social_rendition
from images.tasks import make_renditions

from .background_tasks import run_queued
from .factories import ArticleFactory, ImageFactory
from .pictures import picture
from .test_image_uploads import editor, post_image  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def queued(path):
    return DBTaskResult.objects.filter(task_path=path, status=TaskResultStatus.READY)


def test_an_upload_answers_before_its_renditions_are_made(editor, media_root):  # noqa: F811
    assert post_image(editor, picture(2400, 1350)).status_code == 302
    image = Image.objects.get()
    assert not image.renditions_ready
    assert [r.name for r in all_renditions(image) if (media_root / r.name).exists()] == []
    assert queued("images.tasks.make_renditions").count() == 1


def test_the_worker_makes_them_and_marks_them_made(editor, media_root):  # noqa: F811
    post_image(editor, picture(2400, 1350))
    run_queued()
    image = Image.objects.get()
    assert image.renditions_ready and image.crops_ready
    assert all((media_root / r.name).exists() for r in all_renditions(image))


def test_an_upload_that_rolls_back_queues_nothing(media_root):
    with pytest.raises(RuntimeError), transaction.atomic():
        ImageFactory(made=False)
        raise RuntimeError("the article's save failed after the upload")
    assert not DBTaskResult.objects.exists()


def test_readers_see_the_article_without_the_picture_until_it_is_made(media_root):
    image = ImageFactory(made=False)
    article = ArticleFactory(lead_image=image)
    reader = Client()
    page = reader.get(article.get_absolute_url()).content.decode()
    # No <img> pointing at a file that is not there, and previews get the title card.
    assert "<picture>" not in page
    assert page_renditions(image, "jpg")[0].url not in page
    assert f"/articles/{article.pk}/card-" in page
    assert social_rendition(image, "card").url not in page
    run_queued()
    # The cached page was purged when the renditions were marked made.
    page = reader.get(article.get_absolute_url()).content.decode()
    assert "<picture>" in page
    assert social_rendition(image, "card").url in page


def test_a_picture_placed_in_the_text_appears_once_made(media_root):
    image = ImageFactory(made=False)
    article = ArticleFactory(body=f"## What changed\n\n![](image:{image.key})\n\nText.")
    reader = Client()
    assert "<figure" not in reader.get(article.get_absolute_url()).content.decode()
    run_queued()
    assert "<figure" in reader.get(article.get_absolute_url()).content.decode()


def test_a_new_focal_point_keeps_the_picture_on_pages_while_its_crops_are_made(media_root):
    image = ImageFactory()
    article = ArticleFactory(lead_image=image)
    image.focal_x = 0.8
    image.save()
    page = Client().get(article.get_absolute_url()).content.decode()
    assert "<picture>" in page  # the page renditions do not depend on the point
    assert social_rendition(image, "card").url not in page  # not made yet: the title card
    run_queued()
    assert (
        social_rendition(image, "card").url
        in Client().get(article.get_absolute_url()).content.decode()
    )


def test_the_editor_sees_the_picture_and_its_state_while_renditions_are_made(editor, media_root):  # noqa: F811
    post_image(editor, picture(1600, 900))
    image = Image.objects.get()
    page = editor.get(f"/admin/images/image/{image.pk}/change/").content.decode()
    assert "Its renditions are being made" in page
    original = f"/admin/images/image/{image.pk}/original/"
    assert f'src="{original}"' in page
    response = editor.get(original)
    assert response.status_code == 200 and response["Content-Type"] == "image/jpeg"
    with image.file.open("rb") as uploaded:
        # Read whole, the test client closes it.
        assert b"".join(response.streaming_content) == uploaded.read()
    run_queued()
    page = editor.get(f"/admin/images/image/{image.pk}/change/").content.decode()
    assert "being made" not in page and original not in page


def test_the_original_is_not_served_to_readers(media_root):
    image = ImageFactory()
    response = Client().get(f"/admin/images/image/{image.pk}/original/")
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_a_task_for_an_image_deleted_meanwhile_fails_at_once(media_root):
    image = ImageFactory(made=False)
    Image.objects.filter(pk=image.pk).delete()
    run_queued()
    (result,) = DBTaskResult.objects.filter(task_path="images.tasks.make_renditions")
    assert result.status == TaskResultStatus.FAILED
    assert "DoesNotExist" in result.exception_class_path
    assert len(result.worker_ids) == 1  # not tried again


def test_running_the_task_twice_makes_nothing_the_second_time(media_root):
    image = ImageFactory(made=False)
    assert make_renditions.call(image.pk) == len(all_renditions(image))
    assert make_renditions.call(image.pk) == 0


def test_publishing_an_article_without_a_lead_image_draws_its_card_in_the_background(
    media_root,
):
    article = ArticleFactory(title="Rust 1.90 ships")
    card = title_card(article.title, article.first_topic_name)
    assert not (media_root / card.name).exists()
    assert queued("news.tasks.draw_share_card").filter(args_kwargs__args=[article.pk]).exists()
    run_queued()
    assert (media_root / card.name).exists()


def test_a_draft_queues_no_card(media_root):
    ArticleFactory(draft=True)
    assert not queued("news.tasks.draw_share_card").exists()
