import ipaddress

from django.conf import settings
from django.core.checks import Error


def allowed_addresses(app_configs, **kwargs):
    """Every METRICS_ALLOWED_ADDRESSES entry an address or network, said at start-up
    rather than as a 500 at each scrape."""
    errors = []
    for entry in settings.METRICS_ALLOWED_ADDRESSES:
        try:
            ipaddress.ip_network(entry)
        except ValueError as error:
            errors.append(
                Error(
                    f"METRICS_ALLOWED_ADDRESSES: {entry!r} is not an address or network ({error}).",
                    hint="Write addresses or networks, comma-separated: 127.0.0.1, 10.0.0.0/8.",
                    id="skillo.E101",
                )
            )
    return errors
