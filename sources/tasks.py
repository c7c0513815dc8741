from io import StringIO

from django.core.management import call_command
from django.tasks import task

from background.limits import time_limit


@task(queue_name="remote")
@time_limit(1800)  # an hour apart: thousands of URLs, paced per host
def check_sources():
    """Check the cited URLs that are due (hourly, settings.SKILLO_PERIODIC_TASKS): each
    run checks only what is due, so a second run at once checks nothing. Returns its
    summary."""
    out = StringIO()
    call_command("check_sources", stdout=out)
    return out.getvalue().strip().splitlines()[-1:]
