"""The members' pages are valid HTML by the Nu Html Checker (tests/test_html_validity.py
says how it is installed): the sign-in form, its answer, a link's button, an expired
link, the portal with a newsletter and saved stories, the comment form's own page, a
form refused as expired, and the pages after signing out and erasing."""

import pytest
from django.test import Client

from members.comments import render
from members.models import Comment, Member, SavedStory
from newsletters.models import Subscriber

from ..factories import ArticleFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from ..test_html_validity import nu_errors
from .helpers import ask_for_link, received_link, signed_in

pytestmark = pytest.mark.django_db

ADA = "ada@example.org"


@pytest.mark.sqlite_only(reason="checks HTML, which does not depend on the database")
def test_the_members_pages_are_valid_html(mail_server, tmp_path):  # noqa: F811
    Subscriber.objects.create(email=ADA, state=Subscriber.State.ACTIVE)
    ArticleFactory(draft=True, tags=["rust"])
    reader = Client()
    pages = {"sign in": reader.get("/account/").content}
    pages["bad address"] = reader.post("/account/", {"email": "ada@"}).content
    pages["sent"] = reader.get("/account/sent/").content
    ask_for_link(ADA)
    path = received_link(mail_server, ADA)
    pages["link"] = reader.get(path).content
    member = signed_in(mail_server, ADA)
    pages["used link"] = reader.get(path).content
    SavedStory.objects.create(member=Member.objects.get(), article=ArticleFactory())
    pages["portal"] = member.get("/account/?saved=newsletter").content
    pages["portal refused"] = member.post("/account/newsletter/", {"what": "chosen"}).content
    pages["erase refused"] = member.post("/account/erase/").content
    pages["name refused"] = member.post("/account/name/", {"name": "x" * 61}).content
    pages["signed out"] = signed_in(mail_server, ADA).post("/account/sign-out/").content
    story = ArticleFactory()
    Comment.objects.create(
        article=story, member=Member.objects.get(), body="Hi https://example.org/",
        body_html=render("Hi https://example.org/"), state=Comment.State.APPROVED,
    )  # fmt: skip
    # The conversation is a fragment the story's page takes in: checked inside a page.
    fragment = Client().get(f"/comments/{story.pk}/").content
    pages["conversation"] = (
        b'<!DOCTYPE html><html lang="en"><head><title>t</title></head><body><main>'
        + fragment
        + b"</main></body></html>"
    )
    write = f"/account/stories/{story.pk}/write/"
    pages["comment form"] = member.get(write).content
    pages["comment refused"] = member.post(write, {"body": " "}).content
    pages["comment sign in"] = Client().get(write).content
    pages["story"] = Client().get(story.get_absolute_url()).content
    pages["expired sign-in form"] = (
        Client(enforce_csrf_checks=True).post("/account/", {"email": ADA}).content
    )
    pages["erased"] = member.post("/account/erase/", {"confirm": "on"}).content
    assert nu_errors(pages, tmp_path) == []
