"""What a cached page is built from, named once for the page and for its purges.

An app declares its kinds of dependency (``ARTICLE = Dependency("article")``) and uses
the same object on both sides: a view says what its page shows (``depends_on(request,
ARTICLE(12))``) and a purge says what changed (``purge({ARTICLE(12)})``), so the two can
never disagree on a key.
"""

import functools
import hashlib


class Dependency:
    """A kind of thing pages depend on; calling it names one such thing as a cache key.

    ``Dependency("nav")()`` is the key ``nav``; ``Dependency("article")(12)`` is
    ``article:12``. With ``hashed=True`` the value is hashed (titles hold spaces and may
    be long, which cache keys must not).
    """

    def __init__(self, name, hashed=False, doc=""):
        self.name = name
        self.hashed = hashed
        self.__doc__ = doc

    def __call__(self, value=None):
        if value is None:
            return self.name
        if self.hashed:
            value = hashlib.md5(str(value).encode(), usedforsecurity=False).hexdigest()[:16]
        return f"{self.name}:{value}"

    def __repr__(self):
        return f"Dependency({self.name!r})"

    def each(self, values):
        return {self(value) for value in values}


# Every cached page depends on it: content that comes due by itself (a scheduled
# publication) and bulk changes no signal reports purge it (pagecache.purges).
SCHEDULE = Dependency("schedule")


def cached_page(*dependencies, parameters=None):
    """Mark a view as a public page kept whole for anonymous readers.

    ``dependencies`` are what every page of the view shows; the view adds the rest
    (the articles and topics of this one page) with ``depends_on``. Works on a view
    class, a view function and a callable object (a feed).

    ``parameters``: the query parameters that change the response (an API's filters and
    cursor), each kept apart in the cache; by default only the page number, so that
    made-up parameters (``?utm_source=``) neither split nor flood the cache.
    """
    keys = tuple(dependency() for dependency in dependencies)

    def mark(view):
        if isinstance(view, type):
            view.page_dependencies = keys
            if parameters is not None:
                view.page_parameters = tuple(parameters)
            return view

        # A new function, so that a library's view (the sitemaps) is not changed for
        # its other uses.
        @functools.wraps(view)
        def page(*args, **kwargs):
            return view(*args, **kwargs)

        page.page_dependencies = keys
        if parameters is not None:
            page.page_parameters = tuple(parameters)
        return page

    return mark


def view_attribute(view, name):
    """A mark cached_page left on ``view``: on the function or object, or on the class
    of a class-based view."""
    found = getattr(view, name, None)
    if found is None:
        found = getattr(getattr(view, "view_class", None), name, None)
    return found


def page_dependencies(request):
    """The dependencies declared for the view that answered ``request``, or None if it
    is not a cached page."""
    match = getattr(request, "resolver_match", None)
    if match is None:
        return None
    return view_attribute(match.func, "page_dependencies")


def depends_on(request, *keys):
    """Record that the page being built for ``request`` shows what ``keys`` name."""
    deps = getattr(request, "_page_deps", None)
    if deps is not None:
        deps.update(keys)
