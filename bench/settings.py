"""Production settings for bench/, served over plain http on 127.0.0.1 only.

Everything else (whitenoise with hashed, compressed static files; DEBUG off; the page
cache, on unless PAGE_CACHE=0; CACHE_URL and DATABASE_URL) is skillo.settings.production.
"""

import os

# settings_production checks these when it loads. The bench never leaves loopback, so a
# fixed key is good enough, whatever the environment holds.
BENCH_SECRET_KEY = "bench-only-" + "k" * 60
os.environ["SECRET_KEY"] = BENCH_SECRET_KEY
os.environ["ALLOWED_HOSTS"] = "127.0.0.1"
os.environ["SITE_URL"] = "http://127.0.0.1"
os.environ["LOCAL_TRIAL"] = "true"

from skillo.settings.production import *  # noqa: E402, F403

SECRET_KEY = BENCH_SECRET_KEY
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "bench.urls"
# The benchmarks seed synthetic articles (manage.py seed_synthetic).
INSTALLED_APPS = [*INSTALLED_APPS, "devdata"]  # noqa: F405

# Plain http on loopback: no redirect to https, no HSTS, cookies allowed without TLS.
SECURE_SSL_REDIRECT = False
SECURE_HSTS_SECONDS = 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = False
SECURE_HSTS_PRELOAD = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False

# With DEBUG off Django only mails errors (to nobody here): print them, so that a page
# failing under load shows its traceback in the server log.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}
