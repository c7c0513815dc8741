import functools

from .fragments import site_parts


def navigation(request):
    # A callable, which templates call where base.html first shows a part (the admin
    # never does); called once.
    return {"site_parts": functools.cache(lambda: site_parts(request))}
