"""The floor a page-cache hit is measured against over HTTP (bench/states.py): the same
production server and settings, but only the middleware Django's startproject writes,
in front of bench/urls.py's minimal view returning the page's bytes from memory."""

from bench._inprocess import startproject_middleware
from bench.settings import *  # noqa: F403

MIDDLEWARE = startproject_middleware()
