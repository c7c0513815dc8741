from django.http import HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django.views.generic import TemplateView

from news.dependencies import NAV
from pagecache.dependencies import cached_page

from . import beacons


# No cookie is read or set, so there is no session for a forged request to ride: the
# beacon needs no CSRF token (navigator.sendBeacon cannot send one anyway).
@csrf_exempt
@require_POST
@never_cache
def beacon(request):
    """One page view: always 204 at once, counted or not (nothing to probe)."""
    beacons.receive(request)
    return HttpResponse(status=204)


@cached_page(NAV)
class AboutFiguresView(TemplateView):
    template_name = "readership/about_figures.html"
