"""Compressed pages: Brotli where the client accepts it, else gzip.

A page kept in the cache is compressed once, when it is stored, and each hit sends the
copy the client accepts. ``CompressionMiddleware`` compresses the other public
responses (misses the cache does not keep, search results, 404s) as they go out.
Responses marked private (an editor's pages, the admin, anything with a CSRF token)
are never compressed: compressing secrets next to text an attacker can choose is what
BREACH exploits.
"""

import gzip
import re

import brotli
from django.utils.cache import patch_vary_headers

# Brotli's quality 5 makes an article page within 15% of quality 11's size in a tenth of
# the time: a miss must stay cheap.
BROTLI_QUALITY = 5
MIN_SIZE = 200
# Text, JSON and XML, whatever their vocabulary (RFC 6839's +json and +xml: feeds,
# ActivityStreams, WebFinger's JRD, the API's OpenAPI schema).
COMPRESSIBLE = re.compile(r"^(text/|application/([\w.-]+\+)?(json|xml)\b)")


QUALITY = re.compile(r"q=([0-9.]+)")


def compressible(response):
    return (
        not response.streaming
        and len(response.content) >= MIN_SIZE
        and not response.has_header("Content-Encoding")
        and COMPRESSIBLE.match(response.get("Content-Type", ""))
        and "private" not in response.get("Cache-Control", "")
        and not response.cookies
    )


def compress(content, encoding):
    if encoding == "br":
        return brotli.compress(content, quality=BROTLI_QUALITY)
    return gzip.compress(content, compresslevel=6, mtime=0)


def compressed_copies(content):
    """{encoding: bytes}: what a stored page keeps besides its plain content."""
    return {encoding: compress(content, encoding) for encoding in ("br", "gzip")}


def accepted_encoding(request):
    """'br', 'gzip' or None, from the request's Accept-Encoding (q=0 refuses)."""
    offered = {}
    for part in request.META.get("HTTP_ACCEPT_ENCODING", "").split(","):
        name, _, params = part.partition(";")
        quality = 1.0
        # Browsers send no weights: no pattern searched on every page-cache hit then.
        if params and (match := QUALITY.search(params)):
            try:
                quality = float(match.group(1))
            except ValueError:
                quality = 0.0
        offered[name.strip().lower()] = quality
    for encoding in ("br", "gzip"):
        if offered.get(encoding, offered.get("*", 0)) > 0:
            return encoding
    return None


def use_copy(response, encoding, data):
    """Send ``data``, ``response``'s content in ``encoding``; each encoding its own ETag."""
    response.content = data
    response["Content-Encoding"] = encoding
    response["Content-Length"] = str(len(data))
    if response.has_header("ETag"):
        response["ETag"] = response["ETag"].rstrip('"') + f'-{encoding}"'


class CompressionMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if response.has_header("Content-Encoding") or not compressible(response):
            return response
        patch_vary_headers(response, ["Accept-Encoding"])
        encoding = accepted_encoding(request)
        if encoding is not None:
            use_copy(response, encoding, compress(response.content, encoding))
        return response
