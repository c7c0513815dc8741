"""Drafts and scheduled articles never reach an anonymous client, on any endpoint; a
token with the read:drafts scope sees them, one without it does not."""

import hashlib
import re

import pytest

from api.models import ApiToken, Scope
from tests.api.conftest import bearer
from tests.factories import ApiTokenFactory, ArticleFactory, AuthorFactory
from tests.together import POSTGRESQL_ONLY, RACERS, Browser, outcomes, together

pytestmark = pytest.mark.django_db

ENDPOINTS = [
    "/api/v1/articles/",
    "/api/v1/articles/?tag=secret",
    "/api/v1/articles/?author=ann-lee",
    "/api/v1/articles/?q=hidden",
    "/api/v1/articles/?ordering=event_date",
    "/api/v1/tags/",
    "/api/v1/authors/ann-lee/",
    "/feed.json",
    "/tags/public/feed.json",
]


@pytest.fixture
def unpublished():
    """A public article, a draft and a scheduled article, each in the same topics."""
    author = AuthorFactory(name="Ann Lee")
    ArticleFactory(title="Visible story", tags=["Public"], authors=[author])
    draft = ArticleFactory(
        title="Hidden draft", tags=["Public", "Secret"], authors=[author], draft=True
    )
    scheduled = ArticleFactory(
        title="Hidden scheduled", tags=["Public", "Secret"], authors=[author], scheduled=True
    )
    return draft, scheduled


@pytest.mark.parametrize("url", ENDPOINTS)
def test_unpublished_articles_are_in_no_anonymous_answer(client, unpublished, url):
    response = client.get(url)
    assert response.status_code in {200, 404}, url
    assert b"Hidden" not in response.content


@pytest.mark.parametrize("which", [0, 1], ids=["draft", "scheduled"])
def test_an_unpublished_article_is_a_404(api, unpublished, which):
    api.json(f"/api/v1/articles/{unpublished[which].slug}/", status=404)


def test_a_topic_of_unpublished_articles_only_is_a_404(api, unpublished):
    api.json("/api/v1/tags/secret/", status=404)


def test_a_token_without_scopes_sees_what_the_public_sees(api, unpublished):
    token = ApiTokenFactory()
    answer = api.json("/api/v1/articles/", **bearer(token))
    assert [item["title"] for item in answer["results"]] == ["Visible story"]
    api.json(f"/api/v1/articles/{unpublished[0].slug}/", status=404, **bearer(token))


def test_a_token_with_read_drafts_sees_drafts_and_scheduled_articles(api, unpublished):
    token = ApiTokenFactory(scopes=[Scope.READ_DRAFTS])
    answer = api.json("/api/v1/articles/?tag=secret", **bearer(token))
    assert {(item["title"], item["public"]) for item in answer["results"]} == {
        ("Hidden draft", False),
        ("Hidden scheduled", False),
    }
    assert api.json(f"/api/v1/articles/{unpublished[1].slug}/", **bearer(token))["public"] is False


def test_a_token_is_stored_only_as_its_hash(db):
    token = ApiTokenFactory()
    stored = ApiToken.objects.get()
    assert stored.hashed == hashlib.sha256(token.secret.encode()).hexdigest()
    assert token.secret not in str(ApiToken.objects.values().get())


@pytest.mark.parametrize(
    "header",
    ["Bearer skl_00000000_wrong", "Bearer nonsense", "Token skl_x", "Basic dXNlcjpwYXNz"],
)
def test_an_unknown_token_is_a_401_saying_why(api, header):
    answer = api.json("/api/v1/articles/", status=401, HTTP_AUTHORIZATION=header)
    assert "token" in answer["detail"]


def test_a_token_with_a_wrong_secret_is_refused(api):
    token = ApiTokenFactory()
    forged = token.secret[:-4] + "AAAA"
    api.json("/api/v1/articles/", status=401, HTTP_AUTHORIZATION=f"Bearer {forged}")


def test_a_revoked_token_is_refused(api):
    token = ApiTokenFactory(revoked_at="2024-01-01T00:00Z")
    api.json("/api/v1/articles/", status=401, **bearer(token))


def test_a_deactivated_accounts_token_is_refused(api):
    token = ApiTokenFactory()
    token.user.is_active = False
    token.user.save()
    api.json("/api/v1/articles/", status=401, **bearer(token))


def test_an_expired_token_is_refused(api):
    token = ApiTokenFactory(expires_at="2024-01-01T00:00Z")
    api.json("/api/v1/articles/", status=401, **bearer(token))


ADD_TOKEN = "/admin/api/apitoken/add/"
FORM_KEY = re.compile(r'name="form_key" value="([^"]+)"')


def token_form(page, user, **fields):
    """The add form's data as a browser sends it, with the key of the page it showed."""
    key = FORM_KEY.search(page).group(1)
    return {"name": "Newsletter", "user": user.pk, "form_key": key, **fields}


def test_the_admin_shows_a_new_token_once_and_keeps_its_hash(admin_client, admin_user):
    page = admin_client.get(ADD_TOKEN).content.decode()
    response = admin_client.post(
        ADD_TOKEN, token_form(page, admin_user, scopes=["read:drafts"]), follow=True
    )
    [message] = [str(m) for m in response.context["messages"] if "shown this once" in str(m)]
    secret = message.rsplit(" ", 1)[1]
    token = ApiToken.objects.get()
    assert token.scopes == ["read:drafts"]
    assert token.hashed == hashlib.sha256(secret.encode()).hexdigest()


def test_the_add_form_sent_twice_makes_one_token(admin_client, admin_user):
    form = token_form(admin_client.get(ADD_TOKEN).content.decode(), admin_user)
    assert admin_client.post(ADD_TOKEN, form).status_code == 302
    again = admin_client.post(ADD_TOKEN, form)  # a double click, or the page sent again
    assert again.status_code == 200
    assert "This form was sent already: its token was made then" in again.content.decode()
    assert ApiToken.objects.count() == 1
    # The next form shown is a new one.
    next_form = token_form(admin_client.get(ADD_TOKEN).content.decode(), admin_user)
    assert admin_client.post(ADD_TOKEN, next_form).status_code == 302
    assert ApiToken.objects.count() == 2


@POSTGRESQL_ONLY
@pytest.mark.django_db(transaction=True)
def test_the_add_form_sent_at_the_same_moment_makes_one_token(live_server, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    browser = Browser(live_server, boss)
    form = token_form(browser.get(ADD_TOKEN).text, boss)
    # The same page's form sent by several clicks: one browser's cookies, each request on
    # a connection of its own.
    senders = [Browser(live_server, boss) for _ in range(RACERS)]
    for sender in senders:
        sender.session.cookies.update(browser.session.cookies)
        sender.csrf = browser.csrf
    responses = together([sender.sender(ADD_TOKEN, form) for sender in senders])
    assert outcomes(responses) == {302: 1, 200: RACERS - 1}
    for response in responses:
        if response.status_code == 200:
            assert "This form was sent already" in response.text
    assert ApiToken.objects.count() == 1


def test_the_admin_refuses_an_unknown_scope_and_saves_nothing(admin_client, admin_user):
    response = admin_client.post(
        "/admin/api/apitoken/add/",
        {"name": "Newsletter", "user": admin_user.pk, "scopes": ["write:everything"]},
    )
    assert response.status_code == 200
    assert "not one of the available choices" in response.content.decode()
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("url", ["/admin/api/apitoken/", "/admin/api/webhook/"])
def test_editors_cannot_manage_tokens_or_webhooks(editor_client, url):
    assert editor_client.get(url).status_code == 403
