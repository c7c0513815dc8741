"""The workflow bar at the top of the article form: the article's state, the actions the
user's role allows, and messages that say what happened and where; the error summary
that links each problem to its field."""

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.utils import timezone

from news.models import Article, ArticleAuthor
from people.models import Author

from .factories import ArticleFactory
from .test_workflow import ADD, change_url, edit_data, form_data
from .together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    from django.test import Client

    def make(role, name):
        user = django_user_model.objects.create_user(
            name.lower(), password="pw", is_staff=True, email=f"{name.lower()}@example.org",
            first_name=name,
        )  # fmt: skip
        user.groups.add(Group.objects.get(name=role))
        client = Client()
        client.force_login(user)
        return user, client

    return make


def bar(response):
    html = response.content.decode()
    match = re.search(
        r'<div class="workflow-bar".*?</div>\s*</div>|<div class="workflow-bar".*?</p>\s*</div>',
        html,
        re.S,
    )
    assert match, "no workflow bar"
    return match.group(0)


def buttons(response):
    return re.findall(r'name="_workflow" value="([a-z_]+)"', bar(response))


def message(response):
    return " ".join(str(m) for m in response.context["messages"])


def test_a_writer_can_save_a_draft_and_submit_it_nothing_more(people):
    _, writer = people("Writers", "Ada")
    response = writer.get(ADD)
    assert "New draft" in bar(response)
    assert buttons(response) == ["save", "submit"]
    draft = ArticleFactory(draft=True)
    assert buttons(writer.get(change_url(draft))) == ["save", "submit"]


def test_an_editor_sees_publish_schedule_and_send_back_on_an_article_in_review(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    response = editor.get(change_url(article))
    assert "Ready for review" in bar(response)
    assert buttons(response) == ["save", "publish_send", "publish", "schedule", "send_back"]


def test_a_published_article_says_since_when_and_links_to_its_page(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(published_at=timezone.now() - timedelta(hours=2))
    shown = bar(editor.get(change_url(article)))
    assert "Published</strong> 2\xa0hours ago" in shown
    assert f'href="{article.get_absolute_url()}"' in shown
    assert buttons(editor.get(change_url(article))) == ["save", "unpublish"]


def test_submitting_from_the_bar_says_so_and_stays_on_the_form(people):
    _, writer = people("Writers", "Ada")
    article = ArticleFactory(draft=True)
    response = writer.post(change_url(article), edit_data(article, _workflow="submit"), follow=True)
    article.refresh_from_db()
    assert article.status == Article.Status.REVIEW
    assert response.redirect_chain[-1][0] == change_url(article)
    assert f"Submitted “{article.title}” for review" in message(response)


def test_publishing_from_the_bar_gives_the_live_address(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    response = editor.post(
        change_url(article), edit_data(article, _workflow="publish"), follow=True
    )
    article.refresh_from_db()
    assert article.is_published()
    said = f"Published “{article.title}”: http://testserver{article.get_absolute_url()}"
    assert said in message(response)


def test_publish_now_on_a_scheduled_article_publishes_it_now(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(scheduled=True)
    editor.post(change_url(article), edit_data(article, _workflow="publish"))
    article.refresh_from_db()
    assert article.is_published()
    assert abs(article.published_at - timezone.now()) < timedelta(minutes=1)


def test_scheduling_from_the_bar_takes_its_time(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    when = (timezone.localtime() + timedelta(days=1)).replace(second=0, microsecond=0)
    response = editor.post(
        change_url(article),
        edit_data(article, _workflow="schedule", _schedule_at=when.strftime("%Y-%m-%dT%H:%M")),
        follow=True,
    )
    article.refresh_from_db()
    assert article.is_scheduled and article.published_at == when
    said = f"“{article.title}” is scheduled for {when:%-d %B %Y, %H:%M}"
    assert message(response).startswith(said)


def test_scheduling_in_the_past_is_an_error_linked_to_its_field(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    past = (timezone.localtime() - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    response = editor.post(
        change_url(article), edit_data(article, _workflow="schedule", _schedule_at=past)
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert '<div class="error-summary"' in html
    assert re.search(r'<a href="#id_published_at_0">[^<]*To schedule it, choose when', html)
    article.refresh_from_db()
    assert article.status == Article.Status.REVIEW


def test_sending_back_names_the_writer_and_keeps_the_note(people):
    ada, _ = people("Writers", "Ada")
    _, editor = people("Editors", "Grace")
    author = Author.objects.create(name="Ada Lovelace", slug="ada", user=ada)
    article = ArticleFactory(status=Article.Status.REVIEW)
    ArticleAuthor.objects.create(article=article, author=author)
    response = editor.post(
        change_url(article),
        edit_data(article, _workflow="send_back", _send_back_note="Say which platforms."),
        follow=True,
    )
    article.refresh_from_db()
    assert article.status == Article.Status.DRAFT
    assert f"Sent “{article.title}” back to Ada with your note." in message(response)
    history = editor.get(change_url(article).replace("change/", "history/")).content.decode()
    assert "Say which platforms." in history


def test_sending_back_without_a_note_is_refused(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    response = editor.post(change_url(article), edit_data(article, _workflow="send_back"))
    assert response.status_code == 200
    assert 'href="#id_workflow_note"' in response.content.decode()
    article.refresh_from_db()
    assert article.status == Article.Status.REVIEW


def test_unpublishing_asks_first_and_then_says_what_followed(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory()
    shown = bar(editor.get(change_url(article)))
    assert "<summary" in shown.split('value="unpublish"')[0].rsplit("<details", 1)[1]
    assert "stops answering" in shown
    response = editor.post(
        change_url(article), edit_data(article, _workflow="unpublish"), follow=True
    )
    article.refresh_from_db()
    assert article.status == Article.Status.DRAFT
    assert f"Unpublished “{article.title}”: http://testserver" in message(response)


def test_a_writer_forging_publish_from_the_bar_is_refused(people):
    _, writer = people("Writers", "Ada")
    article = ArticleFactory(draft=True)
    response = writer.post(change_url(article), edit_data(article, _workflow="publish"))
    assert response.status_code == 200
    article.refresh_from_db()
    assert article.status == Article.Status.DRAFT
    assert "You cannot publish" in response.content.decode()


def test_the_error_summary_links_each_problem_to_its_field(people):
    _, editor = people("Editors", "Grace")
    data = form_data(
        title="", event_date="not a date",
        sources=[{"title": "Notes", "publisher": "", "url": "ftp://x"}],
    )  # fmt: skip
    html = editor.post(ADD, data).content.decode()
    summary = html.split('<div class="error-summary"', 1)[1].split("</div>", 1)[0]
    assert '<a href="#id_title">Title: This field is required.</a>' in summary
    assert 'href="#id_event_date"' in summary
    assert 'href="#id_sources-0-publisher"' in summary
    assert "problems to fix before it is saved" in summary


# One lead story at a time


def pin_form(**fields):
    return {"position": "0", "until_0": "", "until_1": "", **fields}


def test_pinning_a_second_lead_asks_then_replaces_the_first(people):
    from news.models import FrontPin

    _, editor = people("Editors", "Grace")
    first, second = ArticleFactory(title="First lead"), ArticleFactory(title="Second lead")
    add = "/admin/news/frontpin/add/"
    assert editor.post(add, pin_form(article=first.pk, lead="on")).status_code == 302
    form = editor.get(add).content.decode()
    assert "Replace the current lead story" in form
    asked = editor.post(add, pin_form(article=second.pk, lead="on"))
    assert asked.status_code == 200
    assert "“First lead” is the lead story now" in asked.content.decode()
    assert FrontPin.objects.count() == 1
    editor.post(add, pin_form(article=second.pk, lead="on", replace_lead="on"))
    pins = {pin.article.title: pin.lead for pin in FrontPin.objects.select_related("article")}
    assert pins == {"First lead": False, "Second lead": True}
    listing = editor.get("/admin/news/frontpin/").content.decode()
    assert "The lead story" in listing and "A feature, at position 0" in listing


def test_a_lead_readers_no_longer_see_becomes_a_feature_without_asking(people):
    from news.models import FrontPin

    _, editor = people("Editors", "Grace")
    gone = FrontPin.objects.create(
        article=ArticleFactory(title="Yesterday's lead"),
        lead=True,
        until=timezone.now() - timedelta(minutes=1),
    )
    add = "/admin/news/frontpin/add/"
    assert "Replace the current lead story" not in editor.get(add).content.decode()
    new = ArticleFactory(title="Today's lead")
    assert editor.post(add, pin_form(article=new.pk, lead="on")).status_code == 302
    assert FrontPin.objects.get(lead=True).article == new
    assert not FrontPin.objects.get(pk=gone.pk).lead  # still pinned, a feature


def test_the_lead_cannot_be_doubled_behind_the_forms_back():
    from django.db import IntegrityError, transaction

    from news.models import FrontPin

    FrontPin.objects.create(article=ArticleFactory(), lead=True)
    with pytest.raises(IntegrityError), transaction.atomic():
        FrontPin.objects.create(article=ArticleFactory(), lead=True)
    FrontPin.objects.create(article=ArticleFactory())  # features: as many as wanted
    assert FrontPin.objects.filter(lead=True).count() == 1


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_leads_chosen_at_the_same_moment_make_one_lead_and_ask_the_others(
    live_server, django_user_model
):
    from news.models import FrontPin

    add = "/admin/news/frontpin/add/"
    editor = django_user_model.objects.create_superuser("grace", "grace@example.org", "pw")
    articles = [ArticleFactory(title=f"Lead {n}") for n in range(RACERS)]
    browsers = [Browser(live_server, editor) for _ in range(RACERS)]
    for browser in browsers:
        assert "Replace the current lead story" not in browser.get(add).text  # none yet
    forms = [pin_form(article=article.pk, lead="on") for article in articles]
    responses = together([b.sender(add, form) for b, form in zip(browsers, forms, strict=True)])
    assert outcomes(responses) == {302: 1, 200: RACERS - 1}
    (lead,) = FrontPin.objects.all()
    assert lead.lead
    for response in responses:
        if response.status_code == 200:
            assert f"“{lead.article.title}” is the lead story now" in response.text


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_leads_replacing_one_at_the_same_moment_leave_one_lead(live_server, django_user_model):
    from news.models import FrontPin

    add = "/admin/news/frontpin/add/"
    editor = django_user_model.objects.create_superuser("grace", "grace@example.org", "pw")
    FrontPin.objects.create(article=ArticleFactory(title="This morning's lead"), lead=True)
    articles = [ArticleFactory(title=f"Lead {n}") for n in range(RACERS)]
    browsers = [Browser(live_server, editor) for _ in range(RACERS)]
    for browser in browsers:
        assert "Replace the current lead story" in browser.get(add).text
    forms = [pin_form(article=a.pk, lead="on", replace_lead="on") for a in articles]
    responses = together([b.sender(add, form) for b, form in zip(browsers, forms, strict=True)])
    # Each asked to replace the lead: each did, in turn; the last is the lead.
    assert outcomes(responses) == {302: RACERS}
    assert FrontPin.objects.count() == RACERS + 1
    assert FrontPin.objects.filter(lead=True).count() == 1


# After a refused action the bar shows the article as it is stored, and that state's
# actions: the refused action's status was never saved (issue 44, item 15).


def test_a_refused_send_back_leaves_the_bar_at_ready_for_review(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    response = editor.post(change_url(article), edit_data(article, _workflow="send_back"))
    assert response.status_code == 200
    assert "<strong>Ready for review</strong>" in bar(response)
    assert buttons(response) == ["save", "publish_send", "publish", "schedule", "send_back"]
    assert "Save changes" in bar(response)


def test_a_refused_publish_leaves_the_bar_at_draft(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(draft=True)
    data = edit_data(article, _workflow="publish", title="")  # a title is required
    response = editor.post(change_url(article), data)
    assert response.status_code == 200
    assert "<strong>Draft</strong>" in bar(response)
    assert buttons(response) == ["save", "publish_send", "publish", "schedule"]


def test_a_refused_unpublish_leaves_the_bar_at_published(people):
    _, editor = people("Editors", "Grace")
    article = ArticleFactory()
    data = edit_data(article, _workflow="unpublish", title="")  # a title is required
    response = editor.post(change_url(article), data)
    assert response.status_code == 200
    assert "<strong>Published</strong>" in bar(response)
    assert buttons(response) == ["save", "unpublish"]


def test_a_writers_refused_submit_keeps_their_form_editable_at_draft(people):
    _, writer = people("Writers", "Ada")
    article = ArticleFactory(draft=True)
    response = writer.post(change_url(article), edit_data(article, _workflow="submit", title=""))
    assert response.status_code == 200
    assert "<strong>Draft</strong>" in bar(response)
    assert buttons(response) == ["save", "submit"]


def test_a_time_typed_before_a_refused_save_is_kept_when_it_is_sent_again(people):
    # As a browser sends it: the refused form's fields, with what it renders of them.
    _, editor = people("Editors", "Grace")
    article = ArticleFactory(status=Article.Status.REVIEW)
    when = (timezone.localtime() + timedelta(days=1)).replace(second=0, microsecond=0)
    typed = {
        "status": "published",
        "published_at_0": when.date().isoformat(),
        "published_at_1": when.strftime("%H:%M:%S"),
    }
    refused = editor.post(change_url(article), edit_data(article, title="", **typed))
    assert refused.status_code == 200
    html = refused.content.decode()
    again = edit_data(article, **typed)
    # Whatever the form rendered beside the fields is sent back with them.
    for name, value in re.findall(
        r'<input type="hidden" name="(initial-[^"]+)" value="([^"]*)"', html
    ):
        again[name] = value
    editor.post(change_url(article), again)
    article.refresh_from_db()
    assert article.is_scheduled and article.published_at == when
