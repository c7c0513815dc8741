"""One address, two documents: a reader's browser gets the page, a fediverse server
(``Accept: application/activity+json``) the ActivityStreams object, for an article's
page, an author's, a topic's and the home page (the site actor).

Sits just outside the page cache: an ActivityStreams request never reaches it, and
every answer on these addresses says ``Vary: Accept`` so that no cache in between
(Varnish: deploy/varnish/skillo.vcl) serves one to the other."""

import re

from django.utils.cache import patch_vary_headers

from .accept import wants_activity
from .views import object_for_page

NEGOTIATED = re.compile(r"^/(?:(articles|authors|tags)/([-a-zA-Z0-9_]+)/)?$")


class NegotiationMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        match = NEGOTIATED.match(request.path_info)
        if match is None:
            return self.get_response(request)
        if request.method in {"GET", "HEAD"} and wants_activity(request):
            response = object_for_page(request, match.group(1), match.group(2))
        else:
            response = self.get_response(request)
        patch_vary_headers(response, ["Accept"])
        return response
