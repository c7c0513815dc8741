"""A CPU budget for reading hostile documents: seconds of this process's CPU time
(time.process_time), not of the clock, so a busy machine does not make it fail; and
enforced as it runs (a profiling timer), so a parser that would take hours fails the
test in seconds. Normal documents take milliseconds."""

import signal
import time
from contextlib import contextmanager

import pytest

# Generous: the parsers read a document at its size limit in about a second of CPU; a
# backtracking regular expression over one takes hours.
BUDGET = 20.0


class OverBudget(Exception):
    pass


@contextmanager
def cpu_budget(what, seconds=BUDGET):
    def over(signum, frame):
        raise OverBudget(f"{what}: more than {seconds} s of CPU")

    previous = signal.signal(signal.SIGPROF, over)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    start = time.process_time()
    try:
        yield
    except OverBudget as error:
        pytest.fail(str(error))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    used = time.process_time() - start
    assert used < seconds, f"{what}: {used:.1f} s of CPU"
