import mimetypes

from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.utils.cache import patch_cache_control

# Only what pages link to: renditions and cards, stripped of metadata. The originals stay
# unpublished (a photographer's GPS position may be in them).
PUBLIC_FOLDERS = ("renditions/", "cards/")
YEAR = 365 * 24 * 60 * 60


def media(request, name):
    """Serve a rendition or card from the default storage when this server serves media
    itself (MEDIA_URL is a path here). Their names change with their content, so a
    browser or proxy may keep them for a year without asking again."""
    if not name.startswith(PUBLIC_FOLDERS) or ".." in name.split("/"):
        raise Http404("No such file.")
    try:
        file = default_storage.open(name, "rb")
    except (FileNotFoundError, OSError) as error:
        raise Http404("No such file.") from error
    content_type, _ = mimetypes.guess_type(name)
    response = FileResponse(file, content_type=content_type or "application/octet-stream")
    patch_cache_control(response, public=True, max_age=YEAR, immutable=True)
    return response
