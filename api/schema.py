"""How the OpenAPI schema describes the token (drf-spectacular's extension hook)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class TokenScheme(OpenApiAuthenticationExtension):
    target_class = "api.auth.TokenAuthentication"
    name = "token"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "An API token from the admin (API tokens): optional; the "
            "read:drafts scope adds drafts and scheduled articles.",
        }
