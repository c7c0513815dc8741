"""Whether a request asks for ActivityStreams rather than a page."""

ACTIVITY_TYPES = {"application/activity+json", "application/ld+json"}


def quality(value):
    """{media type: q} of an Accept header."""
    found = {}
    for part in value.split(","):
        media, *params = (piece.strip() for piece in part.split(";"))
        q = 1.0
        for param in params:
            name, _, number = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(number)
                except ValueError:
                    q = 0.0
        if media:
            found[media.lower()] = max(q, found.get(media.lower(), 0.0))
    return found


def wants_activity(request):
    accept = request.META.get("HTTP_ACCEPT", "")
    if "json" not in accept:
        return False
    found = quality(accept)
    activity = max((found.get(media, 0.0) for media in ACTIVITY_TYPES), default=0.0)
    html = max(found.get("text/html", 0.0), found.get("*/*", 0.0))
    return activity > 0 and activity >= html
