"""The image library's background work: renditions are made by a worker, not in the
editor's request."""

from django.db import transaction
from django.tasks import task

from .models import Image
from .renditions import ensure_renditions, focus_code


@task
def make_renditions(image_id):
    """Make the missing renditions of one image, then mark them made for the focal point
    they were cropped around. Safe to run twice: made files are left as they are. An
    image deleted meanwhile ends the task as failed at once (DoesNotExist)."""
    image = Image.objects.get(pk=image_id)
    made = ensure_renditions(image)
    focus = focus_code(image)
    with transaction.atomic():
        current = Image.objects.select_for_update().get(pk=image_id)
        # Moved again while these were made: the task that move queued marks its own.
        if focus_code(current) == focus and current.renditions_made_for != focus:
            current.renditions_made_for = focus
            # A save, so that the pages showing the image are purged (news.signals).
            current.save(update_fields=["renditions_made_for", "updated_at"])
    return made
