from django.tasks import task

from .delivery import BATCH, send_due


@task(queue_name="remote")
def send_due_webhooks():
    """Send the webhook deliveries that are due. Queued with each change that makes
    some, and every minute (settings.SKILLO_PERIODIC_TASKS) for retries and scheduled
    publications; safe to run twice at once (each delivery is claimed)."""
    tried = send_due()
    if tried >= BATCH:  # more may be waiting: the next batch in a task of its own
        send_due_webhooks.enqueue()
    return tried
