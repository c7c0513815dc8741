"""Production settings: everything from the environment, nothing insecure by default."""

import os
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor

from .base import *  # noqa: F403
from .base import env_bool, env_int, env_list, site_url_problem

DEBUG = env_bool("DEBUG", False)

# Each refusal is one line naming the setting (manage.py and skillo.wsgi print it
# without a traceback: whoever runs the site reads it).
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    # Never made here: each app server would make its own, and a session, a form or an
    # e-mailed link made on one would be refused by the next.
    raise ImproperlyConfigured(
        "Set SECRET_KEY to a random string of at least 50 characters, the same on every app server."
    )
if SECRET_KEY.startswith("django-insecure"):
    # Whatever its length: the prefix is Django's mark for throwaway keys (startproject's,
    # this project's development settings), kept in the code where anybody reads them.
    raise ImproperlyConfigured(
        "SECRET_KEY starts with 'django-insecure', Django's prefix for development keys, "
        "which are published with the code that made them: set a random string of at "
        'least 50 characters made for this site (python -c "import secrets; '
        'print(secrets.token_urlsafe(50))").'
    )
if len(SECRET_KEY) < 50:
    raise ImproperlyConfigured(
        f"Set SECRET_KEY to a random string of at least 50 characters (it has {len(SECRET_KEY)})."
    )

# The site's public address is required: every feed id, fediverse account and link in
# an e-mail is made from it, and readers' apps keep them (see base.py).
SKILLO_SITE_URL = os.environ.get("SITE_URL", "").strip()
if problem := site_url_problem(SKILLO_SITE_URL, SKILLO_LOCAL_TRIAL):  # noqa: F405
    raise ImproperlyConfigured(
        f"SITE_URL must be the site's public https address (like https://news.example.org), "
        f"and {problem}. It makes the feeds' ids, the fediverse accounts and the links in "
        f"newsletters and invitations (LOCAL_TRIAL=true allows this machine's address, "
        f"for a trial nobody else reaches)."
    )
SKILLO_SITE_URL = SKILLO_SITE_URL.rstrip("/")
if CACHES["default"]["BACKEND"] not in SHARED_CACHES and not SKILLO_LOCAL_TRIAL:  # noqa: F405
    # Pages, fragments and their purges, rate limits and sign-in limits are kept in the
    # cache: one app server's own would serve pages another had purged.
    raise ImproperlyConfigured(
        "Set CACHE_URL to the Redis every app server shares (redis://host:6379/1): pages, "
        "their purges and the rate limits are kept there (LOCAL_TRIAL=true allows a cache "
        "of this machine's own, for a trial nobody else reaches)."
    )
_site_host = urlsplit(SKILLO_SITE_URL).hostname
# The feeds' permanent ids carry the site's host unless told otherwise; neither may
# change after the first publication (news.identity's check). A local trial keeps the
# development settings' (make run's database published under it; the trial's readers
# are its own).
SKILLO_FEED_ID_AUTHORITY = os.environ.get("FEED_ID_AUTHORITY") or (
    SKILLO_FEED_ID_AUTHORITY if SKILLO_LOCAL_TRIAL else _site_host  # noqa: F405
)
# The site's own host unless set (a local trial also answers on this machine's names):
# another default turned every reader away with a 400.
ALLOWED_HOSTS = env_list(
    "ALLOWED_HOSTS",
    [f"[{_site_host}]" if ":" in _site_host else _site_host]
    + (["127.0.0.1", "localhost", "[::1]"] if SKILLO_LOCAL_TRIAL else []),  # noqa: F405
)
SKILLO_FEDIVERSE_USER_AGENT = f"Skillo (+{SKILLO_SITE_URL})"

# Worker processes keep their database connection for a minute (tested before each
# reuse: skillo.outage) instead of opening one per request, which made SQLite parse the
# schema again and read every page from the file into an empty cache, and PostgreSQL
# start a server process.
# (runserver's thread per request would gain nothing: development keeps 0.)
if "CONN_MAX_AGE" not in os.environ:
    for database in DATABASES.values():  # noqa: F405 (the read replicas' too)
        database["CONN_MAX_AGE"] = 60

STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# Source maps (14 of the 25 MB collected, nearly all the API docs' bundles) are read only
# by a browser's developer tools: compressing them twice over was half of every
# collectstatic's minute of CPU, which make serve runs at each start.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map")
# Every page names static files by their hashed names ({% static %}), so the unhashed
# copies were never served, yet compressed all the same: half of what was left.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
# Preloading is the domain owner's commitment (every subdomain on https, for browsers'
# lists that take months to leave), so never the default; nor is check --deploy's
# warning that it is off (security.W021) a fault of the deployment.
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = ["security.W021"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True

# Each request's id in its X-Request-ID header and in what is logged about it
# (skillo.request_id): a reader's report of an error page finds its traceback.
MIDDLEWARE = ["skillo.request_id.RequestIdMiddleware", *MIDDLEWARE]  # noqa: F405
# On standard error (gunicorn's): each 500 with its traceback; a 503 (the database down)
# and each refused request (a Host header not allowed, a CSRF failure) in one line
# (skillo.request_id). Django's own defaults log none of them with DEBUG off.
LOGGING = {
    **LOGGING,  # noqa: F405
    "filters": {"request_id": {"()": "skillo.request_id.RequestIdFilter"}},
    "formatters": {
        "request": {
            "class": "skillo.request_id.LogFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s [request %(request_id)s] %(message)s",
        }
    },
    "handlers": {
        "stderr": {
            "class": "logging.StreamHandler",
            "filters": ["request_id"],
            "formatter": "request",
        }
    },
    "loggers": {
        **LOGGING["loggers"],  # noqa: F405
        "django.request": {"handlers": ["stderr"], "level": "ERROR"},
        "django.security": {"handlers": ["stderr"], "level": "WARNING"},
    },
}
