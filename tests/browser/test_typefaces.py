"""One typeface within one component: the reading beside an article, and buttons
wherever they are."""

from datetime import timedelta

import pytest
from django.utils import timezone

from members.models import Member, MemberSession, new_token, token_hash
from news.models import Article

pytestmark = pytest.mark.browser

FACE = "el => getComputedStyle(el).fontFamily"


def faces(locator):
    return {locator.nth(n).evaluate(FACE) for n in range(locator.count())}


def test_the_reading_beside_an_article_is_in_one_face(page, site):
    page.set_viewport_size({"width": 1280, "height": 900})
    article = next(a for a in Article.objects.published().order_by("slug") if a.tags.exists())
    page.goto(site + article.get_absolute_url())
    text = page.locator(".article-aside :is(h2, p, li, a)")
    assert text.count() > 3
    assert len(faces(text)) == 1, faces(text)


def test_buttons_are_in_the_sans_face_whatever_they_sit_in(page, site, settings):
    member = Member.objects.create(email="reader@example.org")
    token = new_token()
    MemberSession.objects.create(
        member=member, token=token_hash(token), expires_at=timezone.now() + timedelta(days=1)
    )
    page.context.add_cookies(
        [{"name": settings.MEMBER_COOKIE_NAME, "value": token, "url": f"{site}/account/"}]
    )
    sans = None
    for path in ("/account/", "/newsletter/"):  # the member's portal, the sign-up page
        page.goto(site + path)
        sans = sans or page.locator(".site-header").evaluate(FACE)
        buttons = page.locator("main .button")
        assert buttons.count() >= 1, path
        assert faces(buttons) == {sans}, (path, faces(buttons))
