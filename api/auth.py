"""API tokens: ``Authorization: Bearer skl_...``, checked against their hash."""

import hmac

from rest_framework import authentication, exceptions

from .models import PREFIX_LENGTH, TOKEN_START, ApiToken, Scope, hash_token


class TokenAuthentication(authentication.BaseAuthentication):
    keyword = "Bearer"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).decode("latin-1")
        if not header:
            return None
        keyword, _, token = header.partition(" ")
        if keyword != self.keyword or not token.startswith(TOKEN_START):
            raise exceptions.AuthenticationFailed(
                "Send an API token as “Authorization: Bearer skl_...”."
            )
        prefix = token[len(TOKEN_START) :][:PREFIX_LENGTH]
        found = ApiToken.objects.usable().select_related("user").filter(prefix=prefix).first()
        if found is None or not hmac.compare_digest(found.hashed, hash_token(token)):
            raise exceptions.AuthenticationFailed("Unknown, expired or revoked API token.")
        return found.user, found

    def authenticate_header(self, request):
        # A 401 (not a 403) tells the client to send a token.
        return self.keyword


def sees_drafts(request):
    """Whether this request may see drafts and scheduled articles: only with a token
    that has the read:drafts scope. Everyone else sees what the public site shows."""
    token = getattr(request, "auth", None)
    return isinstance(token, ApiToken) and token.has_scope(Scope.READ_DRAFTS)
