from django.db.models.signals import post_save
from django.dispatch import receiver

from .models import Image
from .tasks import make_renditions


@receiver(post_save, sender=Image)
def queue_renditions(sender, instance, raw=False, **kwargs):
    if not raw and not instance.crops_ready:
        # Made by a worker, not in the editor's request (1-3 s for a large picture);
        # queued in the save's transaction (Image.save), so never lost, and never made
        # for an upload that rolled back.
        make_renditions.enqueue(instance.pk)
