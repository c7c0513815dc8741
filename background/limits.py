"""How long a task may run, and how long to wait before trying again: one rule for the
task worker and for every app that keeps its own retries (webhook and fediverse
deliveries, source checks)."""

# Past this many doublings the wait stops growing: 2**20 days is already thousands of
# years, and a timedelta much longer than that overflows.
MOST_DOUBLINGS = 20


def backoff(first, tries, longest=None):
    """The wait after the ``tries``-th failure in a row: ``first`` after the first,
    doubled after each one more, at most ``longest``. ``first`` is a number of seconds
    or a timedelta; the answer is of the same kind."""
    wait = first * 2 ** min(max(tries - 1, 0), MOST_DOUBLINGS)
    return wait if longest is None else min(wait, longest)


def time_limit(seconds):
    """A task's own time limit in seconds, in place of SKILLO_TASK_TIME_LIMIT; under
    ``@task``::

        @task
        @time_limit(1800)
        def check_sources(): ...
    """

    def declare(function):
        function.time_limit = seconds
        return function

    return declare


def retries(attempts, first, longest):
    """A task's own retries in place of the settings' (SKILLO_TASK_MAX_ATTEMPTS tries,
    SKILLO_TASK_RETRY_DELAY doubled up to an hour), for work that must land soon after the
    server it reaches is back, however long that was down (a purge: until it lands,
    readers are served what an editor changed or withdrew); under ``@task``."""

    def declare(function):
        function.retries = (attempts, first, longest)
        return function

    return declare
