from django.utils.functional import SimpleLazyObject

from .fragments import site_parts


def navigation(request):
    # Lazy: read only where a page extends base.html (not in the admin).
    return {"site_parts": SimpleLazyObject(lambda: site_parts(request))}
