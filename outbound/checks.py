"""``manage.py check --deploy`` warns while the rule for outgoing requests is lifted."""

from django.conf import settings
from django.core.checks import Tags, Warning, register


@register(Tags.security, deploy=True)
def private_addresses_allowed(app_configs, **kwargs):
    if not settings.SKILLO_ALLOW_PRIVATE_ADDRESSES:
        return []
    return [
        Warning(
            "ALLOW_PRIVATE_ADDRESSES is on: webhooks and source checks may reach this "
            "machine and its private network.",
            hint="Unset it once the local receiver has been tried.",
            id="skillo.W001",
        )
    ]
