"""The plain-text part of a story's e-mail (issue 44): a footnote's number is "[1]", not
glued to the word before it, and its note follows the story; a picture in the body is
"[Picture: its alt text]" where the HTML part shows it, not dropped. Sent through a real
SMTP server and read as a mail client reads it."""

import pytest

from newsletters.models import Subscriber

from .background_tasks import run_queued
from .factories import ArticleFactory, ImageFactory
from .mail_server import mail_server  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def story_text(server, **article):
    Subscriber.objects.create(email="ada@example.org", state=Subscriber.State.ACTIVE)
    ArticleFactory(**article)
    run_queued()
    (message,) = server.messages()
    (part,) = [p for p in message.walk() if p.get_content_type() == "text/plain"]
    return part.get_payload(decode=True).decode()


FOOTNOTES = """Rust 1.0 was the first stable version.[^1] It came after years of work.[^why]

[^1]: Released on 15 May 2015.
[^why]: The borrow checker took *most* of them.
"""


def test_a_footnote_number_stands_apart_from_the_word_before_it(mail_server):  # noqa: F811
    text = story_text(mail_server, body=FOOTNOTES)
    assert "the first stable version.[1] It came after years of work.[2]" in text
    assert "version.1" not in text


def test_the_notes_follow_the_story_under_their_numbers(mail_server):  # noqa: F811
    text = story_text(mail_server, body=FOOTNOTES)
    story, notes = text.split("\nNotes\n")
    assert "[1] Released on 15 May 2015." in notes
    assert "[2] The borrow checker took most of them." in notes
    assert "Released" not in story and "↩" not in text
    assert notes.index("[2]") < notes.index("Read it on Skillo")


def test_a_picture_in_the_body_is_named_by_its_alt_text_with_its_caption(
    mail_server,  # noqa: F811
    media_root,
):
    image = ImageFactory(alt_text="A crab on a laptop", credit="Photo: Jane Doe")
    body = (
        f'Before it.\n\n![Ferris on a keyboard](image:{image.key} "Ferris at RustConf")\n\nAfter.'
    )
    text = story_text(mail_server, body=body)
    figure = "[Picture: Ferris on a keyboard]\nFerris at RustConf\nPhoto: Jane Doe"
    assert f"Before it.\n\n{figure}\n\nAfter." in text


def test_a_picture_without_alt_text_is_still_there(mail_server, media_root):  # noqa: F811
    image = ImageFactory(alt_text="", decorative=True, credit="Photo: Jane Doe")
    text = story_text(mail_server, body=f"Before it.\n\n![](image:{image.key})\n\nAfter.")
    assert "Before it.\n\n[Picture]\nPhoto: Jane Doe\n\nAfter." in text
    assert "[Picture: ]" not in text


def test_the_lead_picture_is_named_before_the_story(mail_server, media_root):  # noqa: F811
    text = story_text(mail_server, illustrated=True, body="The story.")
    assert "[Picture: Engineers on stage at a release event]\nPhoto: Skillo\n\nThe story." in text
