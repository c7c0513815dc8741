"""Whole-page cache with exact purges. Knows nothing of the apps whose pages it keeps:
they mark their views with ``cached_page``, name what each page shows with
``depends_on`` and say what changed with ``purge`` (see docs/caching.md)."""
