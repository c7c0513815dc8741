"""Skillo's settings, one module per configuration.

- ``base``: what every configuration shares, from environment variables (docs/operations.md,
  "Environment variables");
- ``development``: ``manage.py``'s default, with development data (``seed_synthetic``);
- ``test``: the test suite's (fast password hashing);
- ``production``: ``skillo/wsgi.py``'s default; refuses to start without a real secret
  key and host names.
"""
