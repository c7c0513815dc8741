"""A member's session: a random token in a cookie of its own (MEMBER_COOKIE_NAME), its
hash in MemberSession. It is not Django's session: a staff login (the admin's
`sessionid`) makes nobody a member, and a member's cookie opens nothing in the admin.

The cookie's path is /account/: a browser sends it nowhere else, so the public pages
(kept whole by the page cache and Varnish for every reader) never see who is asking;
what is personal on them comes from /account/ in a request of its own."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from .models import MemberSession, new_token, token_hash

COOKIE_PATH = "/account/"


def current_session(request):
    """The request's live session (its member selected with it), or None; read once a
    request."""
    if not hasattr(request, "_member_session"):
        token = request.COOKIES.get(settings.MEMBER_COOKIE_NAME, "")
        request._member_session = (
            MemberSession.objects.select_related("member")
            .filter(token=token_hash(token), expires_at__gt=timezone.now())
            .first()
            if token
            else None
        )
    return request._member_session


def current_member(request):
    session = current_session(request)
    return session.member if session else None


def sign_in(request, response, member):
    token = new_token()
    lifetime = timedelta(days=settings.MEMBER_SESSION_DAYS)
    session = MemberSession.objects.create(
        member=member, token=token_hash(token), expires_at=timezone.now() + lifetime
    )
    request._member_session = session
    response.set_cookie(
        settings.MEMBER_COOKIE_NAME,
        token,
        max_age=int(lifetime.total_seconds()),
        path=COOKIE_PATH,
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Lax",
    )
    return session


def forget_cookie(response):
    response.delete_cookie(settings.MEMBER_COOKIE_NAME, path=COOKIE_PATH, samesite="Lax")


def sign_out(request, response):
    session = current_session(request)
    if session is not None:
        session.delete()
    request._member_session = None
    forget_cookie(response)


def sign_out_everywhere(request, response):
    """Every browser of the member signed out: each one's next request finds no row."""
    session = current_session(request)
    if session is not None:
        MemberSession.objects.filter(member=session.member_id).delete()
    request._member_session = None
    forget_cookie(response)
