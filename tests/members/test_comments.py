"""Members' comments (issue 47): posted by members under published stories, plain text
with links marked nofollow ugc, one level of replies, edited for 10 minutes, deleted by
their author; a first comment waits when the editors say so; closed per story or after
N days; moderation (approve, hide, block with a reason, reports); abuse held (limits,
a new member's wait, a honeypot, duplicates, suppressed addresses); the conversation
with fediverse replies, public, cached and purged by what changes it."""

from datetime import timedelta

import pytest
import time_machine
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from fediverse.models import RemoteActor, Reply
from members import comments
from members.models import (
    BlockedAddress,
    ClosedStory,
    Comment,
    CommentReport,
    CommentSettings,
    Member,
    Moderation,
)
from newsletters.models import Suppressed, digest

from ..factories import ArticleFactory, AuthorFactory, UserFactory
from ..mail_server import mail_server  # noqa: F401 (a fixture)
from .helpers import signed_in

pytestmark = pytest.mark.django_db

ADA = "ada@example.org"
JSON = {"HTTP_ACCEPT": "application/json"}


@pytest.fixture
def rules(settings):
    settings.COMMENT_MIN_MEMBER_MINUTES = 0
    return CommentSettings.objects.create(first_comment_waits=False)


@pytest.fixture
def member(mail_server, rules):  # noqa: F811
    client = signed_in(mail_server, ADA)
    Member.objects.update(name="Ada")
    return client


def say(client, story, body, **fields):
    return client.post(f"/account/stories/{story.pk}/comments/", {"body": body, **fields})


def conversation(story):
    return Client().get(f"/comments/{story.pk}/").content.decode()


def test_a_members_comment_is_shown_in_the_storys_conversation(member):
    story = ArticleFactory()
    answer = say(member, story, "First!\n\nSee https://example.org/a?b=1.")
    assert answer.json()["state"] == "approved"
    html = conversation(story)
    assert "<p>First!</p>" in html and "Ada" in html
    assert '<a href="https://example.org/a?b=1" rel="nofollow ugc noopener noreferrer">' in html


def test_the_conversation_is_a_fragment_for_the_story_page_kept_out_of_search(member):
    story = ArticleFactory()
    say(member, story, "First!")
    response = Client().get(f"/comments/{story.pk}/")
    assert response["X-Robots-Tag"] == "noindex"


def test_markup_in_a_comment_is_shown_as_typed_never_run(member):
    story = ArticleFactory()
    say(member, story, '<script>alert(1)</script> <a href="javascript:x">x</a>')
    html = conversation(story)
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    assert '<a href="javascript' not in html


def test_a_reader_who_is_not_signed_in_cannot_comment():
    story = ArticleFactory()
    assert say(Client(), story, "Hello").status_code == 403
    assert not Comment.objects.exists()


def test_a_draft_takes_no_comments_and_has_no_conversation(member):
    draft = ArticleFactory(draft=True)
    assert say(member, draft, "Early").status_code == 404
    assert Client().get(f"/comments/{draft.pk}/").status_code == 404


def test_a_reply_hangs_under_a_comment_and_a_reply_to_a_reply_is_refused(member):
    story = ArticleFactory()
    first = say(member, story, "A comment").json()["id"]
    reply = say(member, story, "A reply", parent=first)
    assert reply.json()["state"] == "approved"
    deeper = say(member, story, "A reply to the reply", parent=reply.json()["id"])
    assert deeper.status_code == 400 and "Replies go under a comment" in deeper.json()["error"]
    assert Comment.objects.get(pk=reply.json()["id"]).parent_id == first


def test_a_comment_is_edited_within_10_minutes_and_not_after(member):
    story = ArticleFactory()
    pk = say(member, story, "Tpyo").json()["id"]
    assert member.post(f"/account/comments/{pk}/edit/", {"body": "Typo"}).json() == {"edited": True}
    assert "<p>Typo</p>" in conversation(story)
    with time_machine.travel(timedelta(minutes=11)):
        late = member.post(f"/account/comments/{pk}/edit/", {"body": "Later"})
        assert late.status_code == 400 and "for 10 minutes" in late.json()["error"]
    assert Comment.objects.get().body == "Typo"


def test_a_member_deletes_their_own_comment_and_no_one_elses(member, mail_server):  # noqa: F811
    story = ArticleFactory()
    pk = say(member, story, "Mine").json()["id"]
    grace = signed_in(mail_server, "grace@example.org")
    assert grace.post(f"/account/comments/{pk}/delete/").status_code == 404
    assert member.post(f"/account/comments/{pk}/delete/", **JSON).json() == {"deleted": True}
    assert "Mine" not in conversation(story)


def test_a_first_comment_waits_for_a_moderator_when_the_editors_say_so(member, admin_client):
    CommentSettings.objects.update(first_comment_waits=True)
    story = ArticleFactory()
    assert say(member, story, "Held").json()["state"] == "pending"
    assert "Held" not in conversation(story)
    comment = Comment.objects.get()
    admin_client.post(
        "/admin/members/comment/",
        {"action": "approve", ACTION_CHECKBOX_NAME: [comment.pk], "reason": "fine"},
    )
    assert "Held" in conversation(story)
    assert say(member, story, "Second").json()["state"] == "approved"
    assert Moderation.objects.get().reason == "fine"


def test_comments_close_per_story(member):
    story = ArticleFactory()
    ClosedStory.objects.create(article=story)
    answer = say(member, story, "Too late")
    assert answer.status_code == 400 and answer.json()["error"] == comments.CLOSED
    assert "Comments on this story are closed." in conversation(story)


def test_comments_close_n_days_after_publication(member):
    CommentSettings.objects.update(close_after_days=7)
    old = ArticleFactory(published_at=timezone.now() - timedelta(days=8))
    recent = ArticleFactory(published_at=timezone.now() - timedelta(days=6))
    assert say(member, old, "Old").status_code == 400
    assert say(member, recent, "Recent").status_code == 200


def test_hiding_takes_a_comment_off_the_conversation(member, admin_client):
    story = ArticleFactory()
    say(member, story, "Rude words")
    admin_client.post(
        "/admin/members/comment/",
        {"action": "hide", ACTION_CHECKBOX_NAME: [Comment.objects.get().pk], "reason": "rude"},
    )
    assert "Rude words" not in conversation(story)
    assert Moderation.objects.get().action == "hide"


def test_blocking_a_member_takes_all_their_comments_away_at_once(member, admin_client):
    stories = ArticleFactory.create_batch(2)
    for story in stories:
        say(member, story, f"Spam on {story.pk}")
    pk = Comment.objects.first().pk
    refused = admin_client.post(
        "/admin/members/comment/", {"action": "block_authors", ACTION_CHECKBOX_NAME: [pk]}
    )
    assert refused.status_code == 302 and Member.objects.get().blocked_at is None
    admin_client.post(
        "/admin/members/comment/",
        {"action": "block_authors", ACTION_CHECKBOX_NAME: [pk], "reason": "spam"},
    )
    assert all("Spam on" not in conversation(story) for story in stories)
    assert Member.objects.get().blocked_reason == "spam"
    assert say(member, stories[0], "Again").json()["error"] == comments.BLOCKED


@pytest.fixture
def editor_client(django_user_model):
    """Someone of the Editors group, as the demo's ``editor``."""
    user = django_user_model.objects.create_user("grace", is_staff=True)
    user.groups.add(Group.objects.get(name="Editors"))
    client = Client()
    client.force_login(user)
    return client


def test_an_editor_hides_a_comment_and_blocks_its_author(member, editor_client):
    story = ArticleFactory()
    pk = say(member, story, "Spam, spam").json()["id"]
    assert editor_client.get("/admin/members/comment/").status_code == 200
    editor_client.post(
        "/admin/members/comment/",
        {"action": "hide", ACTION_CHECKBOX_NAME: [pk], "reason": "spam"},
    )
    assert Comment.objects.get().state == Comment.State.HIDDEN
    editor_client.post(
        "/admin/members/comment/",
        {"action": "block_authors", ACTION_CHECKBOX_NAME: [pk], "reason": "spam"},
    )
    assert Member.objects.get().blocked_reason == "spam"
    # The site-wide rules stay the admins'.
    assert editor_client.get("/admin/members/commentsettings/").status_code == 403


def test_the_newsroom_home_page_shows_editors_the_comments_waiting(member, rules, editor_client):
    rules.first_comment_waits = True
    rules.save()
    say(member, ArticleFactory(), "First!")
    page = editor_client.get("/admin/").content.decode()
    assert "Comments waiting (1)" in page and "1 comment waits for a moderator" in page
    assert "/admin/members/comment/?state__exact=pending" in page


def test_a_writer_is_not_shown_the_comments_waiting(member, django_user_model):
    say(member, ArticleFactory(), "First!")
    user = django_user_model.objects.create_user("wanda", is_staff=True)
    user.groups.add(Group.objects.get(name="Writers"))
    writer = Client()
    writer.force_login(user)
    page = writer.get("/admin/").content.decode()
    assert "Newsroom" in page and "Comments waiting" not in page


def test_the_moderation_log_cannot_be_deleted_even_by_an_admin(member, admin_client):
    pk = say(member, ArticleFactory(), "Rude").json()["id"]
    admin_client.post(
        "/admin/members/comment/", {"action": "hide", ACTION_CHECKBOX_NAME: [pk], "reason": "rude"}
    )
    record = Moderation.objects.get()
    assert admin_client.post(f"/admin/members/moderation/{record.pk}/delete/").status_code == 403
    assert Moderation.objects.filter(pk=record.pk).exists()


def test_a_blocked_member_who_erases_the_membership_signs_in_again_still_blocked(
    member,
    mail_server,  # noqa: F811
):
    story = ArticleFactory()
    comments.block(Member.objects.all(), "spam", user=UserFactory())
    member.post("/account/erase/", {"confirm": "on"})
    assert not Member.objects.exists()
    again = signed_in(mail_server, ADA)
    assert Member.objects.get().blocked_reason == "spam"
    assert say(again, story, "Back, unblocked?").json()["error"] == comments.BLOCKED
    assert not Comment.objects.exists()


def test_an_erased_member_who_was_not_blocked_signs_in_again_free_to_comment(
    member,
    mail_server,  # noqa: F811
):
    member.post("/account/erase/", {"confirm": "on"})
    signed_in(mail_server, ADA)
    assert Member.objects.get().blocked_at is None
    assert not BlockedAddress.objects.exists()


def test_a_reader_reports_a_comment_once(member):
    story = ArticleFactory()
    pk = say(member, story, "Hmm").json()["id"]
    reader = Client(REMOTE_ADDR="192.0.2.5")
    for _ in range(2):
        assert reader.post(f"/comments/{pk}/report/", {"reason": "off topic"}).status_code == 200
    assert Comment.objects.get().reports.count() == 1


def test_a_new_member_waits_before_a_first_comment(member, settings):
    settings.COMMENT_MIN_MEMBER_MINUTES = 10
    story = ArticleFactory()
    assert "10 minutes" in say(member, story, "Hi").json()["error"]
    with time_machine.travel(timedelta(minutes=11)):
        assert say(member, story, "Hi").status_code == 200


def test_a_member_over_the_hourly_limit_is_refused(member, settings):
    settings.COMMENTS_PER_MEMBER = 2
    story = ArticleFactory()
    answers = [say(member, story, f"Comment {n}").status_code for n in range(3)]
    assert answers == [200, 200, 400]


def test_the_same_text_twice_is_refused(member):
    story = ArticleFactory()
    say(member, story, "Same")
    assert say(member, story, "Same").json()["error"] == comments.DUPLICATE


def test_the_honeypot_saves_nothing(member):
    story = ArticleFactory()
    assert say(member, story, "Buy now", website="http://spam.example").status_code == 200
    assert not Comment.objects.exists()


def test_an_address_on_the_suppression_list_cannot_comment(member):
    Suppressed.objects.create(address=digest(ADA), reason=Suppressed.Reason.COMPLAINED)
    assert say(member, ArticleFactory(), "Hello").json()["error"] == comments.SUPPRESSED


def test_a_comment_form_without_its_csrf_token_is_refused(member):
    story = ArticleFactory()
    forger = Client(enforce_csrf_checks=True)
    forger.cookies = member.cookies
    assert forger.post(f"/account/stories/{story.pk}/comments/", {"body": "x"}).status_code == 403
    assert Client(enforce_csrf_checks=True).post("/comments/1/report/").status_code == 403


def fediverse_reply(story, text, at):
    remote = RemoteActor.objects.create(
        uri="https://social.example/users/grace",
        inbox="https://social.example/inbox",
        fetched_at=timezone.now(),
    )
    return Reply.objects.create(
        uri="https://social.example/notes/1",
        article=story,
        remote=remote,
        content=f"<p>{text}</p>",
        published_at=at,
        state=Reply.State.APPROVED,
    )


def test_comments_and_fediverse_replies_are_one_conversation_marked_by_source(member):
    story = ArticleFactory()
    fediverse_reply(story, "From Mastodon", timezone.now() - timedelta(hours=1))
    say(member, story, "From Skillo")
    html = conversation(story)
    assert html.index("From Mastodon") < html.index("From Skillo")
    assert "From the fediverse" in html and '<span class="source">Comment</span>' in html


def test_the_conversation_asks_as_many_queries_for_one_comment_as_for_fifty(member, mail_server):  # noqa: F811
    story = ArticleFactory()
    say(member, story, "One")

    def queries():
        with CaptureQueriesContext(connection) as captured:
            Client().get(f"/comments/{story.pk}/")
        return len(captured)

    one = queries()
    person = Member.objects.get()
    Comment.objects.bulk_create(
        Comment(article=story, member=person, body=f"c{n}", body_html=f"<p>c{n}</p>",
                state=Comment.State.APPROVED)
        for n in range(49)
    )  # fmt: skip
    assert queries() == one


def test_a_comment_shows_the_name_chosen_in_the_portal_never_the_address(member):
    story = ArticleFactory()
    assert member.post("/account/name/", {"name": "Ada L."})["Location"] == "/account/?saved=name"
    say(member, story, "Named")
    html = conversation(story)
    assert "Ada L." in html and ADA not in html


def test_the_download_holds_the_members_comments(member):
    say(member, ArticleFactory(title="Commented story"), "My words")
    (kept,) = member.get("/account/download/").json()["comments"]
    assert kept["story"] == "Commented story" and kept["text"] == "My words"


def test_posting_asks_as_many_queries_on_a_story_with_1000_comments_as_with_one(member):
    quiet, busy = ArticleFactory.create_batch(2)
    person = Member.objects.get()
    for story, count in ((quiet, 1), (busy, 1000)):
        Comment.objects.bulk_create(
            Comment(article=story, member=person, body=f"c{n}", body_html=f"<p>c{n}</p>",
                    state=Comment.State.APPROVED)
            for n in range(count)
        )  # fmt: skip

    def queries(story, body):
        with CaptureQueriesContext(connection) as captured:
            assert say(member, story, body).status_code == 200
        return len(captured)

    assert queries(busy, "On the busy story") == queries(quiet, "On the quiet story")


def test_the_portal_lists_a_members_comments_and_deletes_one_without_the_script(member):
    story = ArticleFactory(title="Discussed story")
    pk = say(member, story, "Said in the portal").json()["id"]
    page = member.get("/account/").content.decode()
    assert "Discussed story" in page and "Said in the portal" in page
    response = member.post(f"/account/comments/{pk}/delete/")
    assert response.status_code == 302 and response["Location"] == "/account/#comments"
    assert "Said in the portal" not in member.get("/account/").content.decode()


def test_a_name_too_long_is_refused_with_what_was_typed_kept(member):
    response = member.post("/account/name/", {"name": "x" * 61})
    page = response.content.decode()
    assert response.status_code == 400 and "at most 60 characters (this one has 61)" in page
    assert 'value="' + "x" * 61 + '"' in page and Member.objects.get().name == "Ada"


def test_one_address_sending_many_reports_is_told_to_wait_and_nothing_more_reaches_the_moderators(
    member, settings
):
    settings.COMMENT_REPORTS_PER_CLIENT = 2
    story = ArticleFactory()
    pks = [say(member, story, f"Comment {n}").json()["id"] for n in range(3)]
    reader = Client(REMOTE_ADDR="192.0.2.9")
    answers = [reader.post(f"/comments/{pk}/report/").status_code for pk in pks]
    assert answers == [200, 200, 429]
    refused = reader.post(f"/comments/{pks[2]}/report/")
    assert "many reports" in refused.json()["error"]
    assert CommentReport.objects.count() == 2
    # Another address still reports.
    assert Client(REMOTE_ADDR="192.0.2.10").post(f"/comments/{pks[2]}/report/").status_code == 200


def test_without_the_script_a_member_comments_from_the_form_page_and_lands_on_the_comment(member):
    story = ArticleFactory()
    write = f"/account/stories/{story.pk}/write/"
    assert (
        f'<noscript><p class="meta"><a href="{write}">'
        in Client().get(story.get_absolute_url()).content.decode()
    )
    assert 'name="body"' in member.get(write).content.decode()
    response = member.post(write, {"body": "Read without scripts."})
    pk = Comment.objects.get().pk
    assert response.status_code == 302
    assert response["Location"] == f"{story.get_absolute_url()}#comment-{pk}"
    page = Client().get(story.get_absolute_url()).content.decode()
    assert "Read without scripts." in page and write in page  # the next one, from there


def test_without_the_script_a_refused_comment_comes_back_with_its_text_and_reason(member):
    story = ArticleFactory()
    long = "word " * (comments.MAX_CHARS // 5 + 1)
    response = member.post(f"/account/stories/{story.pk}/write/", {"body": long})
    page = response.content.decode()
    assert response.status_code == 400
    assert "at most" in page and long.strip()[:200] in page
    assert not Comment.objects.exists()


def test_without_the_script_a_held_comment_says_it_waits_for_a_moderator(member):
    CommentSettings.objects.update(first_comment_waits=True)
    story = ArticleFactory()
    response = member.post(f"/account/stories/{story.pk}/write/", {"body": "First!"})
    assert response.status_code == 200
    assert "waits for a moderator" in response.content.decode()
    assert Comment.objects.get().state == Comment.State.PENDING


def test_a_reader_not_signed_in_is_asked_to_sign_in_to_comment_and_nothing_is_posted():
    story = ArticleFactory()
    page = Client().get(f"/account/stories/{story.pk}/write/").content.decode()
    assert "Sign in to Skillo" in page and story.title in page
    Client().post(f"/account/stories/{story.pk}/write/", {"body": "Anonymous"})
    assert not Comment.objects.exists()


def test_an_expired_comment_form_comes_back_with_its_text_and_posts_nothing(member):
    story = ArticleFactory()
    forger = Client(enforce_csrf_checks=True)
    forger.cookies = member.cookies
    response = forger.post(f"/account/stories/{story.pk}/write/", {"body": "Kept text"})
    page = response.content.decode()
    assert response.status_code == 403
    assert "nothing was done" in page and "Kept text</textarea>" in page
    assert not Comment.objects.exists()


# Input no form sends (issue 56.11, 56.16): refused with the reason, never a 500.


def test_a_comment_holding_a_nul_character_is_refused_with_the_reason(member):
    story = ArticleFactory()
    answer = say(member, story, "a\x00b")
    assert answer.status_code == 400
    assert "NUL" in answer.json()["error"]
    assert not Comment.objects.exists()


def test_a_report_holding_a_nul_character_is_refused_with_the_reason(member):
    pk = say(member, ArticleFactory(), "Hmm").json()["id"]
    answer = Client(REMOTE_ADDR="192.0.2.5").post(f"/comments/{pk}/report/", {"reason": "a\x00b"})
    assert answer.status_code == 400
    assert "NUL" in answer.json()["error"]
    assert not CommentReport.objects.exists()


@pytest.mark.parametrize("parent", ["²", "٣", "9" * 25])
def test_a_reply_to_what_is_no_comments_number_is_refused_as_no_thread(member, parent):
    story = ArticleFactory()
    answer = say(member, story, "A reply", parent=parent)
    assert answer.status_code == 400
    assert answer.json()["error"] == comments.NOT_A_THREAD


def test_a_comment_differing_only_by_an_invisible_character_is_a_duplicate(member):
    story = ArticleFactory()
    assert say(member, story, "Great story").status_code == 200
    again = say(member, story, "Great\u200b story")
    assert again.json()["error"] == comments.DUPLICATE
    assert Comment.objects.count() == 1


@pytest.mark.parametrize(
    "name",
    ["Skillo editorial", "S K I L L O", "Grace Hopper", "grace.h", "\u202eAda"],
    ids=["the site's", "the site's spaced", "an author's", "a staff login's", "reversing"],
)
def test_a_name_that_passes_for_the_sites_or_its_staffs_is_refused(member, name):
    AuthorFactory(name="Grace Hopper")
    UserFactory(username="grace.h", is_staff=True)
    response = member.post("/account/name/", {"name": name})
    assert response.status_code == 400
    assert Member.objects.get().name == "Ada"


def test_a_name_like_nobody_elses_is_kept(member):
    AuthorFactory(name="Grace Hopper")
    member.post("/account/name/", {"name": "Grace from Ohio"})
    assert Member.objects.get().name == "Grace from Ohio"
