"""Waiting in tests: look again and again until something holds or a deadline passes,
never a fixed sleep (CI runs on two busy cores)."""

import time

import pytest


def poll(check, timeout, interval=0.02):
    """Call ``check`` until it returns something true; that, or None after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(interval)


def until(check, what, timeout=60):
    """What ``check`` returned once it held; the test fails naming ``what`` after
    ``timeout`` seconds."""
    found = poll(check, timeout, interval=0.05)
    if not found:
        pytest.fail(f"gave up waiting after {timeout} s: {what}")
    return found
