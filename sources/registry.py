"""Which URLs to check: sources knows no article, so the app that cites URLs registers
a function returning them (news does: the source URLs of its published articles), as
Django's sitemaps ask their users for ``items()``."""

_providers = []


def provide_urls(function):
    """Register ``function()``, returning an iterable of URLs to keep checked."""
    if function not in _providers:
        _providers.append(function)
    return function


def cited_urls():
    """Every URL some registered provider cites, sorted, without blanks."""
    return sorted({url for provider in _providers for url in provider() if url})
