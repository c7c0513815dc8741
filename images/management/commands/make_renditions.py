from django.core.management.base import BaseCommand

from images.models import Image
from images.tasks import make_renditions


class Command(BaseCommand):
    help = (
        "Make every image's missing renditions here and now, without a worker (after "
        "moving media to another storage, or restoring originals by hand). Existing ones "
        "are left as they are."
    )

    def handle(self, *args, **options):
        made = images = 0
        for pk in Image.objects.order_by("pk").values_list("pk", flat=True).iterator():
            made += make_renditions.call(pk)
            images += 1
        self.stdout.write(self.style.SUCCESS(f"Made {made} rendition(s) for {images} image(s)."))
