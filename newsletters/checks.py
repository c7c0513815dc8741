"""``manage.py check --deploy``: a DKIM key configured but not there to read."""

import os

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def dkim_key_readable(app_configs=None, **kwargs):
    path = settings.DKIM_PRIVATE_KEY_FILE
    if not path or os.access(path, os.R_OK):
        return []
    return [
        Error(
            f"DKIM_PRIVATE_KEY_FILE {path} cannot be read: every newsletter would fail to "
            "be signed, and so to be sent.",
            hint="Put the PEM key there (readable by the app's user), or unset "
            "DKIM_PRIVATE_KEY_FILE to send unsigned.",
            id="skillo.E018",
        )
    ]
