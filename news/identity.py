"""The site's identity: its public address (SITE_URL) and the authority of its feeds'
permanent ids (FEED_ID_AUTHORITY).

Once anything has been published, readers' feed apps hold the ids and fediverse servers
follow accounts at that address: changing either makes every article new again in the
feed apps and leaves every follower following nothing. So the identity is recorded at
each migrate while nothing is public, and kept from the first publication on; a system
check (which migrate runs first, so `make serve` stops there) refuses a change after
it, and `manage.py site_identity --accept` records a deliberate move.
"""

from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import Error, Tags, register
from django.db import DatabaseError, connections, router
from django.http.request import split_domain_port, validate_host

from .models import Article, SiteIdentity
from .paths import absolute, origin  # noqa: F401 (absolute: the site's addresses, here with its identity)


def current():
    return {
        "site_url": origin(),
        "feed_id_authority": settings.SKILLO_FEED_ID_AUTHORITY,
    }


def has_published(using="default"):
    """Whether anything has ever been public: a published article, past its time."""
    return Article.objects.using(using).published().exists()


def record(using="default", accept=False):
    """Keep the current identity while nothing is public (or when ``accept``)."""
    stored = SiteIdentity.objects.using(using).first()
    if stored is None:
        SiteIdentity.objects.using(using).create(**current())
    elif accept or not has_published(using):
        SiteIdentity.objects.using(using).filter(pk=stored.pk).update(**current())


def record_after_migrate(sender, using="default", **kwargs):
    # Not after a migrate back to before the table (a migration's test, a rollback).
    if router.allow_migrate_model(using, SiteIdentity) and exists(using):
        record(using)


def exists(using):
    return SiteIdentity._meta.db_table in connections[using].introspection.table_names()


@register(Tags.compatibility)
def unchanged(app_configs=None, databases=None, **kwargs):
    """An error for each part of the identity changed since the first publication."""
    using = "default"
    try:
        if not exists(using):
            return []  # a database not yet migrated: nothing published either
        stored = SiteIdentity.objects.using(using).first()
        if stored is None or not has_published(using):
            return []
    except DatabaseError:
        return []  # no database to compare with (collectstatic on a build machine)
    now = current()
    names = {"site_url": "SITE_URL", "feed_id_authority": "FEED_ID_AUTHORITY"}
    return [
        Error(
            f"{names[field]} is {now[field]!r}, but the site published as "
            f"{getattr(stored, field)!r}: feed readers would see every article again as "
            f"new, and fediverse followers would be following an address that no longer "
            f"answers.",
            hint=f"Set {names[field]}={getattr(stored, field)} again; if the site has "
            f"moved for good, run manage.py site_identity --accept.",
            id=f"skillo.E00{index}",
        )
        for index, field in enumerate(names, start=2)
        if getattr(stored, field) != now[field]
    ]


@register(Tags.security, deploy=True)
def public_address(app_configs=None, **kwargs):
    """check --deploy: a local trial's address is no deployment's."""
    if not settings.SKILLO_LOCAL_TRIAL:
        return []
    return [
        Error(
            f"LOCAL_TRIAL is on: SITE_URL ({settings.SKILLO_SITE_URL}) may be this "
            f"machine's own address, which makes feed ids, fediverse accounts and e-mailed "
            f"links that nobody else can reach.",
            hint="Set SITE_URL to the site's public https address and unset LOCAL_TRIAL.",
            id="skillo.E004",
        )
    ]


@register(Tags.security, deploy=True)
def site_host_allowed(app_configs=None, **kwargs):
    """check --deploy: a SITE_URL whose host ALLOWED_HOSTS lacks gives every reader the
    400 page."""
    host, _ = split_domain_port(urlsplit(settings.SKILLO_SITE_URL).netloc)
    if not host or validate_host(host, settings.ALLOWED_HOSTS):
        return []
    return [
        Error(
            f"SITE_URL's host {host!r} is not in ALLOWED_HOSTS "
            f"({', '.join(settings.ALLOWED_HOSTS)}): every reader would get the 400 page.",
            hint=f"Add {host} to ALLOWED_HOSTS, or leave ALLOWED_HOSTS unset: it is then "
            "SITE_URL's host.",
            id="skillo.E017",
        )
    ]
