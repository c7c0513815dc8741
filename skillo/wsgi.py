import os
import sys

from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.production")

try:
    application = get_wsgi_application()
except ImproperlyConfigured as refused:
    # One line naming the setting (manage.py says the same), then exit status 3, which
    # gunicorn reads as "worker failed to boot" and stops instead of starting it again.
    print(f"Skillo cannot start: {refused}", file=sys.stderr, flush=True)
    sys.exit(3)
