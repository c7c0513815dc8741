#!/usr/bin/env python
"""manage.py of the Wagtail reference site (bench/reference.py runs it in .venv-wagtail/)."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reference_site.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
