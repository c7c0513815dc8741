"""The media storage on S3-compatible object storage (settings: MEDIA_S3_BUCKET), shared
by every machine: django-storages' S3 backend, with addresses under MEDIA_URL.

django-storages gives each file the bucket's own address, signed for an hour by
default: a page kept in Varnish or a CDN for longer would show broken pictures, and a
private bucket's files could not be shown at all. Here a file's address is MEDIA_URL
and its name, as with Django's FileSystemStorage: by default the app's media view, which
reads the bucket and sends only renditions and cards (the originals, which may hold a
photographer's GPS position, stay private) with a year's caching, so Varnish asks for
each file once; or, MEDIA_URL a full URL, the bucket's public address or a CDN's.

Names are made from the files' content, so a second write of a name (two machines making
the same rendition) writes the same bytes: django-storages' default of overwriting is
kept, which spares a request per write that asks whether the name is taken."""

from urllib.parse import urljoin

from django.conf import settings
from django.utils.encoding import filepath_to_uri
from storages.backends import s3


class S3Storage(s3.S3Storage):
    def url(self, name, parameters=None, expire=None, http_method=None):
        return urljoin(settings.MEDIA_URL, filepath_to_uri(name))
