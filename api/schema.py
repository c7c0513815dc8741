"""What the OpenAPI schema says beyond the serializers: how the token is sent
(drf-spectacular's extension hook), and every answer besides 200 with its body, so that
a client generated from the schema knows the 400s, 401s, 404s and 429s it will get."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers


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


class ErrorSerializer(serializers.Serializer):
    """An error about no one parameter, in words (DRF's own body of an error)."""

    detail = serializers.CharField()


def bad_parameters(names):
    """A 400's body: each parameter of ``names`` that was refused, with why, as DRF's
    ValidationError writes it (``{"q": ["At most 10 words."]}``)."""
    return OpenApiResponse(
        {
            "type": "object",
            "propertyNames": {"enum": sorted(names)},
            "additionalProperties": {"type": "array", "items": {"type": "string"}},
            "minProperties": 1,
        },
        description="A bad value: the body names each refused parameter and says why.",
    )


UNAUTHORIZED = OpenApiResponse(
    ErrorSerializer,
    description="An Authorization header that is not a usable token: malformed, unknown, "
    "expired or revoked, or its account deactivated.",
)
THROTTLED = OpenApiResponse(
    ErrorSerializer,
    description="Over the rate limit: anonymous clients per address (API_ANON_RATE, "
    "120/min by default), tokens per account (API_TOKEN_RATE, 1200/min). Retry-After "
    "says when to try again.",
)
RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    OpenApiTypes.INT,
    OpenApiParameter.HEADER,
    required=True,
    description="Seconds to wait before the next request.",
    response=[429],
)


def responses(ok, *, not_found, parameters=()):
    """The answers of an operation: 200 with ``ok``; 400 naming one of ``parameters``
    (if it has any); 404 saying ``not_found``; 401 and 429, which any request may get."""
    answers = {200: ok}
    if parameters:
        answers[400] = bad_parameters(parameters)
    answers[401] = UNAUTHORIZED
    answers[404] = OpenApiResponse(ErrorSerializer, description=not_found)
    answers[429] = THROTTLED
    return answers
