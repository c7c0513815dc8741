from django.core.mail import send_mail
from django.tasks import task


@task(queue_name="urgent")
def send_workflow_mail(subject, body, addresses):
    """The e-mail of a workflow step (editorial.workflow.tell), queued with the save: a
    mail server that is down delays it (the worker tries again), never loses it."""
    send_mail(subject, body, None, addresses)
