"""Settings every configuration shares, read from environment variables.

With nothing set they make a development configuration: DEBUG on, a throwaway secret
key and SQLite in the project folder (skillo.settings.development). Production
(skillo.settings.production) builds on them and refuses to start without real values.
"""

import hashlib
import os
import tempfile
from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent.parent

# What env_bool reads as on and off; anything else stops the start, naming the variable.
TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}


def env_bool(name, default):
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    word = value.strip().lower()
    if word not in TRUE | FALSE:
        # A typo ("ture", "flase") would otherwise turn a setting off without a word.
        raise ImproperlyConfigured(
            f"{name}: {value!r} is neither true nor false (use true or false)"
        )
    return word in TRUE


def env_int(name, default):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(
            f"{name}: {value!r} is not a whole number (like {default})"
        ) from None


def env_float(name, default):
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return float(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name}: {value!r} is not a number (like {default})") from None


def env_time_zone(name, default):
    value = os.environ.get(name, "").strip() or default
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(
            f"{name}: {value!r} is not a time zone of the tz database (like UTC or Europe/Paris)"
        ) from None
    return value


def env_list(name, default):
    value = os.environ.get(name, "")
    return [item.strip() for item in value.split(",") if item.strip()] or default


def provider_rates(value):
    """ "gmail.com,googlemail.com=20000 yahoo.com=5000": [(("gmail.com",
    "googlemail.com"), 20000), (("yahoo.com",), 5000)]."""
    rates, seen = [], set()
    for item in value.split():
        domains, _, rate = item.partition("=")
        names = tuple(name.strip().lower() for name in domains.split(",") if name.strip())
        if not names or not rate.isdigit() or int(rate) < 1 or seen & set(names):
            raise ImproperlyConfigured(
                f"NEWSLETTER_MAX_PER_HOUR_AT: {item!r} is not DOMAIN[,DOMAIN...]=PER_HOUR "
                "(a whole number of at least 1, each domain once), e.g. "
                "gmail.com,googlemail.com=20000"
            )
        seen.update(names)
        rates.append((names, int(rate)))
    return rates


DEBUG = env_bool("DEBUG", True)

# Only good for a developer's laptop; production settings demand a real one.
SECRET_KEY = os.environ.get("SECRET_KEY") or "django-insecure-skillo-development-only"

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "editorial.apps.NewsroomAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "taggit",
    "reversion",
    "reversion_compare",
    "axes",
    "django_tasks_db",
    "outbound",
    "background",
    "metrics",
    "ratelimits",
    "pagecache",
    "maintenance",
    "sources",
    "embeds",
    "people",
    "news",
    "images",
    "search",
    "editorial",
    "textfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "api",
    "newsletters",
    "readership",
    "fediverse",
    "releases",
    "live",
    "members",
    "anymail",
]

MIDDLEWARE = [
    # Outermost: every request counted and timed, the page cache's answers too.
    "metrics.middleware.RequestMetricsMiddleware",
    # /health/live/, for probes that name this server by its address, not the site's.
    "background.middleware.LivenessMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Readers' page-view beacons, answered at once (with the security headers above):
    # they need nothing below.
    "readership.middleware.BeaconMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Public responses the page cache does not send compressed itself (misses it does not
    # keep, search results, 404s): Brotli or gzip. Never private ones (BREACH).
    "pagecache.encoding.CompressionMiddleware",
    # A fediverse server asking an article's, author's or topic's address (or the home
    # page's) for ActivityStreams gets it here, before the page cache; every answer on
    # those addresses varies by Accept.
    "fediverse.negotiation.NegotiationMiddleware",
    # Whole public pages for anonymous readers; a hit skips everything below it, so the
    # stored response already carries the headers the middleware below adds.
    "pagecache.middleware.PageCacheMiddleware",
    # Readers' public pages read from a replica (with DATABASE_REPLICA_URLS; else it
    # removes itself): below the page cache, so that a hit asks no database at all.
    "skillo.replicas.ReplicaReadsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Around django-axes' lockout page, to say when to try again.
    "skillo.lockout.LockoutRetryAfterMiddleware",
    # Last, as django-axes asks: it turns a lockout into a 429 page.
    "axes.middleware.AxesMiddleware",
]

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# Admin login lockout: ten wrong passwords for one account from one address lock that
# pair out for a quarter of an hour (the right password included).
AXES_FAILURE_LIMIT = env_int("AXES_FAILURE_LIMIT", 10)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("AXES_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "lockout.html"
# Behind reverse proxies, how many of them append to X-Forwarded-For: lockouts then
# follow the reader's address rather than the proxy's. With 0 (no proxy) the header is
# ignored, since a client can write anything in it.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)
AXES_CLIENT_IP_CALLABLE = "skillo.proxy.client_address"
# An expired or missing CSRF token gets the site's 403 page, saying what to do.
CSRF_FAILURE_VIEW = "skillo.errors.csrf_failure"
# Staff are the only accounts; a refused or missing ?next= lands them in the admin.
LOGIN_URL = "admin:login"
LOGIN_REDIRECT_URL = "admin:index"

# No inline scripts or styles anywhere, the admin included; JSON-LD is a data block,
# which script-src does not govern.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
}
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

ROOT_URLCONF = "skillo.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "news.context_processors.navigation",
            ],
        },
    },
]

WSGI_APPLICATION = "skillo.wsgi.application"

try:
    DATABASES = {
        "default": dj_database_url.config(
            default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
            conn_max_age=env_int("CONN_MAX_AGE", 0),
            # A kept connection is tested before a request reuses it, so one broken by a
            # database restart is replaced instead of failing that request (skillo.outage).
            conn_health_checks=True,
        )
    }
except ValueError as error:
    # Not the address itself: it may hold the database's password.
    scheme = os.environ.get("DATABASE_URL", "").partition("://")[0]
    raise ImproperlyConfigured(
        f"DATABASE_URL: cannot be read as a database address ({type(error).__name__}, "
        f"scheme {scheme!r}); use sqlite:////path/to/db.sqlite3 or "
        "postgres://user:password@host:5432/name"
    ) from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # SQLite serving several processes (docs/operations.md, "SQLite or PostgreSQL"):
    # - write-ahead logging: readers never wait for a writer, nor a writer for readers;
    # - transactions take the write lock when they begin (IMMEDIATE), so a save that
    #   reads and then writes waits its turn instead of failing with "database is
    #   locked" halfway, which no busy timeout can retry;
    # - the busy timeout: how long a write waits for another to finish before the
    #   editor is told the database was busy (skillo.outage);
    # - synchronous=FULL: a save acknowledged to an editor survives a power cut too
    #   (NORMAL would only survive a crash of the process); at a newsroom's rate of
    #   writes its cost, one fsync per commit, is not felt;
    # - a page cache of SQLITE_CACHE_MB per connection instead of SQLite's 2 MB: with
    #   the connection kept (CONN_MAX_AGE, on in production), the pages a request reads
    #   stay in the process for the next, instead of being read from the file again.
    cache_kib = env_int("SQLITE_CACHE_MB", 64) * 1024
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env_float("SQLITE_BUSY_TIMEOUT", 20.0),
            "init_command": (
                f"PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-{cache_kib};"
            ),
        }
    )
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # A stopped or hung server fails a request within seconds (a 503, skillo.outage)
    # instead of holding a worker; ?connect_timeout= in DATABASE_URL overrides it.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("connect_timeout", 3)

# Read replicas of that PostgreSQL (comma-separated URLs like DATABASE_URL): readers'
# public pages read from one that has replayed the last change that purged pages, and
# everything else from the primary (skillo.replicas, docs/scaling.md).
for number, url in enumerate(env_list("DATABASE_REPLICA_URLS", []), start=1):
    try:
        replica = dj_database_url.parse(
            url, conn_max_age=env_int("CONN_MAX_AGE", 0), conn_health_checks=True
        )
    except ValueError:
        replica = {}
    engines = {replica.get("ENGINE"), DATABASES["default"]["ENGINE"]}
    if engines != {"django.db.backends.postgresql"}:
        raise ImproperlyConfigured(
            f"DATABASE_REPLICA_URLS: address {number} is not a PostgreSQL address "
            "(postgres://user:password@host:5432/name), or DATABASE_URL is not one: "
            "replicas are PostgreSQL's streaming replicas of DATABASE_URL"
        )
    # A replica that does not answer within a second is left for the primary.
    replica.setdefault("OPTIONS", {}).setdefault("connect_timeout", 1)
    # Tests read the test database through the replica (Django's test mirror).
    DATABASES[f"replica{number}"] = {**replica, "TEST": {"MIRROR": "default"}}
DATABASE_ROUTERS = ["skillo.replicas.ReplicaRouter"] if len(DATABASES) > 1 else []


def cache_from_url(url):
    """``file:///folder`` (the default: a folder per database in the temporary folder),
    ``redis://host:port/db``, ``locmem://`` (one process's own) or ``dummy://``."""
    scheme, _, location = url.partition("://")
    if scheme in {"redis", "rediss", "unix"}:
        # A short socket timeout so a Redis outage slows nothing down: the site then
        # serves pages uncached (the pagecache app) instead of waiting on it.
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": os.environ.get("CACHE_KEY_PREFIX", "skillo"),
            "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
        }
    if scheme == "file" and location.startswith("/"):
        return {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": location,
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    if scheme == "dummy":
        return {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}
    if scheme == "locmem":
        return {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": location,
            # Django's default, 300, is a few pages' fragments and tokens.
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    raise ImproperlyConfigured(
        f"CACHE_URL: unsupported cache {url!r} (use redis://host:6379/1, "
        "file:///absolute/folder, locmem:// or dummy://)"
    )


def machine_cache_url():
    """The processes of one machine serving one database (make run's server and worker,
    make serve's) share a cache in a folder, so that a purge one makes reaches the others;
    several machines share Redis instead (CACHE_URL)."""
    database = DATABASES["default"]
    identity = "|".join(str(database.get(part, "")) for part in ("ENGINE", "NAME", "HOST", "PORT"))
    digest = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return f"file://{Path(tempfile.gettempdir()) / f'skillo-cache-{digest}'}"


CACHES = {"default": cache_from_url(os.environ.get("CACHE_URL") or machine_cache_url())}
# What several app servers can share: every purge reaches every page kept.
SHARED_CACHES = {
    "django.core.cache.backends.redis.RedisCache",
    "django.core.cache.backends.dummy.DummyCache",
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# The site's one language code: the pages' lang, the feeds', JSON-LD's inLanguage.
LANGUAGE_CODE = "en"
TIME_ZONE = env_time_zone("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(os.environ.get("STATIC_ROOT", BASE_DIR / "staticfiles"))
# Files browsers ask for at the site's root (/favicon.ico, /apple-touch-icon.png),
# served by WhiteNoise from there.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
# Uploaded images (the images app) go through the default storage only: this machine's
# MEDIA_ROOT, or an S3 bucket (below). Their addresses are under MEDIA_URL: a path, the
# app's own media view (images.views), or a full URL (the bucket's public address, a CDN).
MEDIA_URL = os.environ.get("MEDIA_URL", "/media/")
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
if MEDIA_URL.startswith(("https://", "http://")):
    # Pictures from the object storage's own address.
    _media_origin = "/".join(MEDIA_URL.split("/")[:3])
    SECURE_CSP["img-src"] = [*SECURE_CSP["img-src"], _media_origin]
IMAGE_MAX_UPLOAD_BYTES = 25 * 1024 * 1024
# A picture of more pixels is refused before it is decoded (a "decompression bomb" is a
# small file that unpacks into gigabytes); 50 megapixels is beyond any camera's JPEG.
IMAGE_MAX_PIXELS = 50_000_000
# AVIF speed 8 of 0-10: about 5x faster than libavif's default for 5% more bytes, so an
# upload's renditions take about a second.
IMAGE_AVIF_SPEED = 8
IMAGE_AVIF_QUALITY = 58
IMAGE_JPEG_QUALITY = 80


def media_storage(environ):
    """The media storage the environment asks for: S3-compatible object storage (AWS S3,
    Cloudflare R2, MinIO, Ceph) when MEDIA_S3_BUCKET names a bucket, so that every machine
    reads and writes the same files (django-storages); otherwise this machine's
    MEDIA_ROOT, which needs no other service. The keys are boto3's own:
    AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or the machine's role."""
    bucket = environ.get("MEDIA_S3_BUCKET", "")
    if not bucket:
        # Django's, writing each file whole or not at all (images/storage.py).
        return {"BACKEND": "images.storage.FileSystemStorage"}
    endpoint = environ.get("MEDIA_S3_ENDPOINT_URL", "")
    if endpoint and not endpoint.startswith(("https://", "http://")):
        # boto3 would refuse it only at the first upload or picture served.
        raise ImproperlyConfigured(
            f"MEDIA_S3_ENDPOINT_URL {endpoint!r} is not an address: write it with "
            "https://, e.g. https://ACCOUNT.r2.cloudflarestorage.com"
        )
    return {
        "BACKEND": "images.objectstorage.S3Storage",
        "OPTIONS": {
            "bucket_name": bucket,
            # Empty for AWS itself; the S3 API's address for R2, MinIO, Ceph and the rest.
            "endpoint_url": endpoint or None,
            "region_name": environ.get("MEDIA_S3_REGION") or None,
            # A prefix of the keys, for a bucket shared with other data.
            "location": environ.get("MEDIA_S3_PREFIX", "").strip("/"),
        },
    }


STORAGES = {
    "default": media_storage(os.environ),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

TAGGIT_CASE_INSENSITIVE = True

# The domain in the feeds' permanent ids (tag: URIs, RFC 4151): the site's own domain,
# set once before the first publication and never changed, or readers see every
# article again as new.
SKILLO_FEED_ID_AUTHORITY = os.environ.get("FEED_ID_AUTHORITY", "skillo.example")
# /.well-known/security.txt (RFC 9116) for whoever finds a vulnerability: where to
# report it (mailto: or https: addresses, comma-separated) and, optionally, the
# disclosure policy's address. No contact set, no file (404): a made-up contact would
# send reports nowhere.
SKILLO_SECURITY_CONTACTS = env_list("SECURITY_CONTACT", [])
SKILLO_SECURITY_POLICY = os.environ.get("SECURITY_POLICY", "")

# What the deployed code is called (say, its commit): named in every cache key of
# output, with the settings, so a deploy is seen at once (pagecache.release). Empty, the
# default: a digest of the project's files and installed packages, made at start-up.
SKILLO_RELEASE = os.environ.get("SKILLO_RELEASE", "")

# Whole-page cache for anonymous readers (the pagecache app): how long a CDN or proxy in
# front may keep a page, and whether Skillo keeps pages itself.
SKILLO_PAGE_CACHE = env_bool("PAGE_CACHE", True)
SKILLO_PAGE_CACHE_TIMEOUT = env_int("PAGE_CACHE_TIMEOUT", 3600)
SKILLO_CDN_MAX_AGE = env_int("CDN_MAX_AGE", 60)
# The response headers naming a cached page's dependency keys, for a cache in front that
# purges by key: `xkey` for Varnish (deploy/varnish), `Surrogate-Key` for Fastly,
# `Cache-Tag` for Cloudflare (comma-separated keys); several, comma-separated; "off": none.
SKILLO_SURROGATE_KEY_HEADERS = env_list("SURROGATE_KEY_HEADERS", ["xkey"])
# Varnish in front (docs/caching.md, "Varnish in front"): where purges go, comma-separated
# (http://127.0.0.1:6081,http://10.0.0.2:6081). Set empty, none are sent; not set at all
# (a manage.py command run by hand), the ones the app servers named when they started
# (pagecache.varnish.targets). Each Varnish must accept purges from this server (the
# purgers ACL, deploy/varnish).
SKILLO_VARNISH_PURGE_URLS = (
    env_list("VARNISH_PURGE_URLS", []) if "VARNISH_PURGE_URLS" in os.environ else None
)
# Seconds a purge waits for a Varnish before it is kept and sent again later.
SKILLO_VARNISH_PURGE_TIMEOUT = env_float("VARNISH_PURGE_TIMEOUT", 1.0)
# How long a Varnish that gets purges keeps a page (Surrogate-Control, read by the VCL
# and never passed on): it hears of every change, so it may keep pages longer than the
# CDN_MAX_AGE meant for caches that do not. Still capped by the next scheduled
# publication; sent only with VARNISH_PURGE_URLS set.
SKILLO_VARNISH_MAX_AGE = env_int("VARNISH_MAX_AGE", 3600)

# The content API (the api app, docs/api.md). Tokens only (no session: a browser's
# cookies never reach it); JSON only. Anonymous clients are limited per address, tokens
# per account, each over the whole site (api.throttling; counted in Redis when it is the
# cache and answers, else in the database). Answers from the page cache are not counted: they cost
# no query.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["api.auth.TokenAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    # DRF's rates in fixed windows, counted in the database while the cache is down
    # (api.throttling).
    "DEFAULT_THROTTLE_CLASSES": [
        "api.throttling.AnonRateThrottle",
        "api.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": os.environ.get("API_ANON_RATE", "120/min"),
        "user": os.environ.get("API_TOKEN_RATE", "1200/min"),
    },
    # The client's address as login lockouts see it (skillo/proxy.py): with no proxy the
    # forgeable X-Forwarded-For is ignored.
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "URL_FORMAT_OVERRIDE": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Skillo content API",
    "DESCRIPTION": "Published Skillo articles, topics and authors, read-only.",
    "VERSION": "1.0.0",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI from the site's own static files: the CSP allows no other origin.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # What Django's <slug:...> takes (django.urls.converters.SlugConverter): any other
    # value never reaches the view (the API's JSON 404, api.views.NotFoundView).
    "PATH_CONVERTER_OVERRIDES": {"slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"}},
}
# The site's public address: the host of the feeds' permanent ids (FEED_ID_AUTHORITY's
# default in production) and of the fediverse accounts, the links in newsletters and
# invitations, webhook payloads. Production settings require an https address that is
# not this machine (skillo.settings.production; LOCAL_TRIAL=true allows one, for a trial).
SKILLO_SITE_URL = os.environ.get("SITE_URL", "http://127.0.0.1:8000")
SKILLO_LOCAL_TRIAL = env_bool("LOCAL_TRIAL", False)


def site_url_problem(url, local_trial=False):
    """Why ``url`` cannot be the site's address (None if it can); ``local_trial`` allows
    this machine's own address, over http too."""
    from ipaddress import ip_address
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").rstrip(".").lower()
        parts.port  # noqa: B018 (raises on a port that is not a number)
    except ValueError:
        return f"{url!r} is not an address"
    if not url:
        return "it is not set"
    if parts.scheme not in {"http", "https"} or not host:
        return f"{url!r} is not an address like https://news.example.org"
    if parts.path not in {"", "/"} or parts.query or parts.fragment or parts.username:
        return f"{url!r} has more than a scheme and a host (https://news.example.org)"
    try:
        local = ip_address(host.strip("[]"))
        local = local.is_loopback or local.is_unspecified
    except ValueError:
        local = host == "localhost" or host.endswith(".localhost")
    if local and not local_trial:
        return f"{url!r} is this machine's own address, which nobody else can reach"
    if parts.scheme != "https" and not local:
        return f"{url!r} is not https"
    return None


# Skillo's own outgoing requests (webhooks, source checks) go to public addresses only,
# never to loopback, private or link-local ones (this machine and its network: the
# outbound app). On, they may, to try a receiver on the same machine or network;
# check --deploy warns while it is.
SKILLO_ALLOW_PRIVATE_ADDRESSES = env_bool("ALLOW_PRIVATE_ADDRESSES", False)
# Each remote host's budget, shared by every process (outbound.budget): a request that
# gets no answer backs its host off for BACKOFF_SECONDS, doubling while it stays silent,
# at most BACKOFF_MAX_SECONDS; and requests to one host take at most HOST_SECONDS a minute.
SKILLO_OUTBOUND_BACKOFF_SECONDS = env_int("OUTBOUND_BACKOFF_SECONDS", 60)
SKILLO_OUTBOUND_BACKOFF_MAX_SECONDS = env_int("OUTBOUND_BACKOFF_MAX_SECONDS", 3600)
SKILLO_OUTBOUND_HOST_SECONDS = env_int("OUTBOUND_HOST_SECONDS", 60)
# Seconds a minute the fediverse's key fetches may spend, in all, asking again hosts that
# did not answer last time: a flood naming many silent hosts holds the remote worker at
# most this long a minute once each host has had its first chance (fediverse.remote).
SKILLO_FEDIVERSE_RETRY_SECONDS = env_int("FEDIVERSE_RETRY_SECONDS", 20)

# The fediverse (the fediverse app; docs/fediverse.md). The site's actor is
# @SITE_NAME@HOST, HOST being SITE_URL's.
SKILLO_FEDIVERSE_SITE_NAME = os.environ.get("FEDIVERSE_SITE_NAME", "news")
SKILLO_FEDIVERSE_SITE_TITLE = os.environ.get("FEDIVERSE_SITE_TITLE", "Skillo")
SKILLO_FEDIVERSE_USER_AGENT = f"Skillo (+{SKILLO_SITE_URL})"
# A signed request's Date (or created time) must be this close to now, in seconds.
SKILLO_FEDIVERSE_SIGNATURE_WINDOW = env_int("FEDIVERSE_SIGNATURE_WINDOW", 300)
# Inboxes refuse bodies over this many bytes, and instances sending more activities a
# minute than this (per host name, to the whole site) get 429.
SKILLO_FEDIVERSE_MAX_ACTIVITY = env_int("FEDIVERSE_MAX_ACTIVITY", 256 * 1024)
SKILLO_FEDIVERSE_RATE_PER_MINUTE = env_int("FEDIVERSE_RATE_PER_MINUTE", 300)
# Activities kept for their key to be fetched in the background, per host (429 past it).
SKILLO_FEDIVERSE_PENDING_PER_HOST = env_int("FEDIVERSE_PENDING_PER_HOST", 100)
# A server failing this many deliveries in a row is backed off (hours, doubling, at most
# BACKOFF_DAYS); failing for GIVE_UP_DAYS it is no longer tried until heard from.
SKILLO_FEDIVERSE_INSTANCE_FAILURES = env_int("FEDIVERSE_INSTANCE_FAILURES", 10)
SKILLO_FEDIVERSE_BACKOFF_DAYS = env_int("FEDIVERSE_BACKOFF_DAYS", 2)
SKILLO_FEDIVERSE_GIVE_UP_DAYS = env_int("FEDIVERSE_GIVE_UP_DAYS", 7)

SKILLO_PAGE_SIZE = env_int("SKILLO_PAGE_SIZE", 20)
# Published articles whose facts were verified longer ago than this are queued for review.
SKILLO_FACTS_MAX_AGE_MONTHS = env_int("SKILLO_FACTS_MAX_AGE_MONTHS", 12)
# Whether a story is e-mailed to the newsletter's subscribers when it is published: the
# workflow bar's first choice ("Publish and send" or "Publish"), and the rule for stories
# published another way (bulk actions, imports). docs/operations.md.
SKILLO_EMAIL_STORIES_ON_PUBLISH = env_bool("EMAIL_STORIES_ON_PUBLISH", True)

# Background work (the background app): Django's tasks, queued in the project's own
# database (django-tasks-db), so that a task is queued in the transaction of the change
# that causes it and no other service is needed; run by `manage.py run_workers`, which
# `make run` and `make serve` start. Three queues, each with its own workers: "urgent" for
# what a person is waiting for (a sign-in link, a confirmation, an editor's mail);
# "default" for the site's own bulk work (newsletter batches, renditions, reindexing);
# "remote" for work that waits on other servers, which any of them may make slow
# (fediverse activities and deliveries, webhooks, feed reads, source checks, embeds), so
# that a flood of it holds neither of the others. A task names its queue
# (`@task(queue_name="remote")`); an unknown name fails at import.
TASKS = {
    "default": {
        "BACKEND": "django_tasks_db.DatabaseBackend",
        "QUEUES": ["urgent", "default", "remote"],
    }
}
# The workers run_workers keeps running, by queue: "urgent:1,default:2,remote:2".
SKILLO_TASK_WORKERS = os.environ.get("TASK_WORKERS", "urgent:1,default:1,remote:1")
# The Redis queue (TASKS_URL) is gone: a site still naming one may have tasks waiting
# there, which nothing would run, so it is told rather than started without them.
if os.environ.get("TASKS_URL"):
    raise ImproperlyConfigured(
        "TASKS_URL: tasks are queued in the database now; let the previous release's "
        "workers empty the Redis queue, then unset TASKS_URL (docs/operations.md)."
    )
# A failed task is tried again after 1, 2, 4... times this many seconds, this many times.
SKILLO_TASK_RETRY_DELAY = env_float("TASK_RETRY_DELAY", 30.0)
SKILLO_TASK_MAX_ATTEMPTS = env_int("TASK_MAX_ATTEMPTS", 5)
# A task whose worker has been silent this long (seconds) is taken to have lost it.
SKILLO_TASK_LEASE = env_int("TASK_LEASE", 60)
# How long (seconds) a task may run before it is stopped and tried again later; a task
# may declare its own (background.limits.time_limit).
SKILLO_TASK_TIME_LIMIT = env_int("TASK_TIME_LIMIT", 300)
# How long a stopping worker lets its running task finish.
SKILLO_TASK_SHUTDOWN_TIMEOUT = env_int("TASK_SHUTDOWN_TIMEOUT", 60)
# Tasks that ended well are forgotten after this many days (failed ones are kept).
SKILLO_TASK_RESULTS_DAYS = env_int("TASK_RESULTS_DAYS", 7)
# Queued by the workers when due (background.schedule): name -> (task, how often).
SKILLO_PERIODIC_TASKS = {
    "prune-task-results": ("background.tasks.prune_results", timedelta(days=1)),
    # Retries of webhook deliveries and announcements of scheduled publications (new
    # deliveries are sent by a task queued with them).
    "send-webhooks": ("api.tasks.send_due_webhooks", timedelta(minutes=1)),
    # The cited URLs that are due for a check (each is checked about weekly).
    "check-sources": ("sources.tasks.check_sources", timedelta(hours=1)),
    # SQLite's upkeep: the search index merged, the planner's statistics refreshed.
    "tidy-database": ("maintenance.tasks.tidy_database", timedelta(days=1)),
    # The newsletter's sign-up counts past their day, and sign-ups never confirmed.
    "forget-old-sign-ups": ("newsletters.tasks.forget_old_sign_ups", timedelta(days=1)),
    # The newsletter's daily and weekly digests, planned an hour before they are due.
    "plan-digests": ("newsletters.tasks.plan_digests", timedelta(minutes=15)),
    # Readership: the page views of the last minute folded into counts, and the salt and
    # visitor lists of days past deleted (readership.visitors).
    "fold-beacons": ("readership.tasks.fold_beacons", timedelta(minutes=1)),
    "forget-past-days": ("readership.tasks.forget_past_days", timedelta(hours=1)),
    # "Most read" on the site ranked again (its pages purged when it changed), and the
    # dashboard's figures of the last day, week and month worked out again.
    "refresh-figures": ("readership.tasks.refresh_figures", timedelta(minutes=5)),
    # The fediverse inboxes' record of signatures past replaying, and old deliveries.
    "fediverse-prune": ("fediverse.publishing.prune", timedelta(hours=1)),
    # Activities kept for their keys whose host has no task queued (one was lost).
    "fediverse-verify-kept": ("fediverse.inbox.verify_kept", timedelta(minutes=10)),
    # The rate limits' windows that have ended, where they are counted in the database.
    "forget-ended-rate-windows": ("ratelimits.tasks.forget_ended_windows", timedelta(hours=1)),
    # The release desk: the watched projects' sources that are due (each about every half
    # hour, a failing one later and later), new releases put on the desk as tips.
    "read-release-sources": ("releases.tasks.read_release_sources", timedelta(minutes=5)),
    # Members: sign-in links a day old (used or not) and ended sessions.
    "forget-member-links": ("members.tasks.forget_old_links_and_sessions", timedelta(days=1)),
}

# Logging: Django's defaults (with DEBUG on, its INFO lines on the console), less Django's
# own two lines for each task run (started, ended): the worker says one itself, and only
# at DEBUG (run_worker -v 2) for a periodic task that ended well (background.worker).
# Failures are still said, by both.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "loggers": {"django.tasks": {"level": "WARNING"}},
}

# Who may read /metrics/ (Prometheus): addresses or networks, comma-separated; the
# reader's address as skillo.proxy sees it behind TRUSTED_PROXY_COUNT proxies.
METRICS_ALLOWED_ADDRESSES = env_list("METRICS_ALLOWED_ADDRESSES", ["127.0.0.1", "::1"])

# E-mail: the editorial workflow tells editors and writers (editorial/workflow.py). SMTP
# from the environment; `make run` prints mails to the console (development settings).
MAILERS = {
    "default": {
        # Django's SMTP backend, each mail DKIM-signed and its Message-ID on the site's
        # domain (newsletters.backends).
        "BACKEND": os.environ.get("EMAIL_BACKEND", "newsletters.backends.EmailBackend"),
        "OPTIONS": {
            "host": os.environ.get("EMAIL_HOST", "localhost"),
            "port": env_int("EMAIL_PORT", 25),
            "username": os.environ.get("EMAIL_HOST_USER", ""),
            "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env_bool("EMAIL_USE_TLS", False),
            "timeout": 10,
        },
    }
}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Skillo newsroom <newsroom@localhost>")

# The newsletter (the newsletters app): who its e-mails come from, how long a
# confirmation link works, and how many sign-ups one address (mails a day) and one
# client address (form posts an hour: an office shares one) may make.
NEWSLETTER_FROM_EMAIL = os.environ.get("NEWSLETTER_FROM_EMAIL", DEFAULT_FROM_EMAIL)
NEWSLETTER_CONFIRM_HOURS = env_int("NEWSLETTER_CONFIRM_HOURS", 48)
NEWSLETTER_SIGNUPS_PER_ADDRESS = env_int("NEWSLETTER_SIGNUPS_PER_ADDRESS", 3)
NEWSLETTER_SIGNUPS_PER_CLIENT = env_int("NEWSLETTER_SIGNUPS_PER_CLIENT", 30)

# Members (the members app, docs/members.md): a sign-in link works once, for this many
# minutes; one address may ask for this many links an hour, one client address this many
# (an office shares one). A member's session lasts this many days, in a cookie of its
# own, sent to /account/ only (the cached public pages never see it).
MEMBER_LINK_MINUTES = env_int("MEMBER_LINK_MINUTES", 30)
MEMBER_LINKS_PER_ADDRESS = env_int("MEMBER_LINKS_PER_ADDRESS", 5)
MEMBER_LINKS_PER_CLIENT = env_int("MEMBER_LINKS_PER_CLIENT", 30)
MEMBER_SESSION_DAYS = env_int("MEMBER_SESSION_DAYS", 90)
MEMBER_COOKIE_NAME = os.environ.get("MEMBER_COOKIE_NAME", "member")
# Members' comments: at most this many an hour from one member and from one client
# address; a member's first comment only once they have been a member this many minutes.
# Whether a first comment waits for a moderator, and when comments close, are the
# editors' choice in the admin (Comment settings).
COMMENTS_PER_MEMBER = env_int("COMMENTS_PER_MEMBER", 10)
COMMENTS_PER_CLIENT = env_int("COMMENTS_PER_CLIENT", 30)
COMMENT_MIN_MEMBER_MINUTES = env_int("COMMENT_MIN_MEMBER_MINUTES", 10)
# Readers' reports of comments: at most this many an hour from one client address.
COMMENT_REPORTS_PER_CLIENT = env_int("COMMENT_REPORTS_PER_CLIENT", 20)

# Readership figures without cookies (readership/, docs/readership.md). READERSHIP=off
# sends no beacon and counts nothing. At most READERSHIP_PER_MINUTE views a minute are
# counted from one address on the whole site (an office or a campus shares one). Each
# process writes the views it has received in batches: when READERSHIP_BUFFER_SIZE have
# come or the oldest is READERSHIP_BUFFER_SECONDS old.
READERSHIP_COUNTING = env_bool("READERSHIP", True)
READERSHIP_PER_MINUTE = env_int("READERSHIP_PER_MINUTE", 600)
READERSHIP_BUFFER_SIZE = env_int("READERSHIP_BUFFER_SIZE", 200)
READERSHIP_BUFFER_SECONDS = env_float("READERSHIP_BUFFER_SECONDS", 5.0)
# "Most read" on the home page and beside articles: at most READERSHIP_MOST_READ_SIZE
# stories of the last day (the last week while a day has too few readers), shown only when
# READERSHIP_MOST_READ_MIN_ARTICLES of them have READERSHIP_MOST_READ_MIN_READERS readers.
READERSHIP_MOST_READ_SIZE = env_int("READERSHIP_MOST_READ_SIZE", 5)
READERSHIP_MOST_READ_MIN_READERS = env_int("READERSHIP_MOST_READ_MIN_READERS", 20)
READERSHIP_MOST_READ_MIN_ARTICLES = env_int("READERSHIP_MOST_READ_MIN_ARTICLES", 3)
# Sending: messages per batch (one SMTP connection each), and at most this many an hour
# over all batches (0: as fast as the workers go; a provider's limit otherwise).
# Digests: at this hour of the newsroom's time zone, weekly ones on this day (0 Monday).
NEWSLETTER_TIME_ZONE = env_time_zone("NEWSLETTER_TIME_ZONE", TIME_ZONE)
NEWSLETTER_DIGEST_HOUR = env_int("NEWSLETTER_DIGEST_HOUR", 7)
NEWSLETTER_WEEKLY_DAY = env_int("NEWSLETTER_WEEKLY_DAY", 0)
# Temporary delivery failures in a row that count as a bounce.
NEWSLETTER_SOFT_BOUNCES = env_int("NEWSLETTER_SOFT_BOUNCES", 3)
# A provider's API instead of SMTP: EMAIL_BACKEND=anymail.backends.postmark.EmailBackend
# (or amazon_ses, mailgun, resend, brevo...), its key in ANYMAIL_*; its bounce and
# complaint webhooks at /anymail/<provider>/tracking/, behind this user:password.
ANYMAIL = {
    key: value
    for key, value in {
        "WEBHOOK_SECRET": os.environ.get("ANYMAIL_WEBHOOK_SECRET", ""),
        "POSTMARK_SERVER_TOKEN": os.environ.get("POSTMARK_SERVER_TOKEN", ""),
        "MAILGUN_API_KEY": os.environ.get("MAILGUN_API_KEY", ""),
        "RESEND_API_KEY": os.environ.get("RESEND_API_KEY", ""),
        "BREVO_API_KEY": os.environ.get("BREVO_API_KEY", ""),
    }.items()
    if value
}
NEWSLETTER_BATCH_SIZE = env_int("NEWSLETTER_BATCH_SIZE", 200)
NEWSLETTER_MAX_PER_HOUR = env_int("NEWSLETTER_MAX_PER_HOUR", 0)
# The mailbox providers that take only so much an hour from one sender, each under its
# own limit as well as the one above: "gmail.com,googlemail.com=20000 yahoo.com=5000".
NEWSLETTER_MAX_PER_HOUR_AT = provider_rates(os.environ.get("NEWSLETTER_MAX_PER_HOUR_AT", ""))
# A mailto: for List-Unsubscribe beside the one-click URL, if one is read.
NEWSLETTER_UNSUBSCRIBE_MAILTO = os.environ.get("NEWSLETTER_UNSUBSCRIBE_MAILTO", "")
# DKIM signing of the newsletter over SMTP (dkimpy): a PEM RSA key; `manage.py
# dkim_record` prints the DNS record to publish at SELECTOR._domainkey.DOMAIN. The key
# itself in DKIM_PRIVATE_KEY (so that every machine has it from the environment, like the
# other secrets; "\n" may stand for its line breaks where a variable cannot hold them),
# or the name of a file holding it.
DKIM_DOMAIN = os.environ.get("DKIM_DOMAIN", "")
DKIM_SELECTOR = os.environ.get("DKIM_SELECTOR", "skillo")
DKIM_PRIVATE_KEY = os.environ.get("DKIM_PRIVATE_KEY", "").replace("\\n", "\n").strip()
DKIM_PRIVATE_KEY_FILE = os.environ.get("DKIM_PRIVATE_KEY_FILE", "")
if DKIM_PRIVATE_KEY and DKIM_PRIVATE_KEY_FILE:
    raise ImproperlyConfigured(
        "Set DKIM_PRIVATE_KEY (the key) or DKIM_PRIVATE_KEY_FILE (a file holding it), not both."
    )
