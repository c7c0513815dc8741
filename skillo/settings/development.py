"""Development: the shared settings with their defaults, and the development data app
(synthetic articles for benchmarks) where factory-boy is installed (the dev and test
extras)."""

import importlib.util
import os

from .base import *  # noqa: F403

if importlib.util.find_spec("factory") is not None:
    INSTALLED_APPS = [*INSTALLED_APPS, "devdata"]  # noqa: F405

# Mails on the console of `make run`'s worker, decoded (a link prints whole), unless
# EMAIL_BACKEND says otherwise.
if "EMAIL_BACKEND" not in os.environ:
    MAILERS = {"default": {"BACKEND": "background.mail.EmailBackend"}}
