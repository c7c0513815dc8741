#!/usr/bin/env python
import os
import sys


def main():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "skillo.settings.development")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018 (loads the settings, which check themselves)
    except ImproperlyConfigured as refused:
        # A setting's own words, in one line: whoever runs the site needs no traceback.
        sys.exit(f"Skillo cannot start: {refused}")
    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
