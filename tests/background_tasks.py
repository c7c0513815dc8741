"""Tasks for the worker's tests, and a way to run what is queued. Each task leaves its
effect as a topic (a row every process sees), named after its argument, so a test can
count what ran."""

import signal
import time

from django.tasks import task

from background.limits import time_limit
from background.worker import Worker
from news.models import Article, Tag


@task
def record(name):
    Tag.objects.get_or_create(name=name)


@task
def flaky(name):
    """Fails its first try, works the next."""
    _, first = Tag.objects.get_or_create(name=f"{name}-tried")
    if first:
        raise ConnectionError("the receiver did not answer")
    Tag.objects.get_or_create(name=name)


@task
def always_fails():
    raise ConnectionError("the receiver did not answer")


@task
def fails_noting(name):
    """Always fails, leaving a topic per try named with the try's time (seconds)."""
    Tag.objects.create(name=f"{name} {time.time():.3f}")
    raise ConnectionError("the receiver did not answer")


@task(takes_context=True)
def note_attempt(context, name):
    """Leaves a topic naming the try it is."""
    Tag.objects.get_or_create(name=f"{name} try {context.attempt}")


@task
def about_article(pk):
    Tag.objects.get_or_create(name=Article.objects.get(pk=pk).slug)


@task
def slow(name, seconds):
    """Says it started, takes ``seconds``, then leaves its effect."""
    Tag.objects.get_or_create(name=f"{name}-started")
    time.sleep(seconds)
    Tag.objects.get_or_create(name=name)


@task
def held(name):
    """Says it started, then holds its worker until a topic "<name>-released" exists."""
    Tag.objects.get_or_create(name=f"{name}-started")
    while not Tag.objects.filter(name=f"{name}-released").exists():
        time.sleep(0.05)
    Tag.objects.get_or_create(name=name)


@task
def never_ends(name):
    Tag.objects.get_or_create(name=f"{name}-started")
    while True:
        time.sleep(0.1)


@task
@time_limit(1)
def never_ends_within_its_own_limit(name):
    never_ends.call(name)


@task
def stuck_where_no_signal_reaches(name):
    """As a C call that never returns to Python: the worker's alarm cannot end it."""
    Tag.objects.get_or_create(name=f"{name}-started")
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    time.sleep(3600)


def run_queued(worker=None):
    """Run every task that is due, in this process, as a worker would; how many ran."""
    worker = worker or Worker("test-worker", batch=True)
    ran = 0
    while worker.run_one():
        ran += 1
    return ran
