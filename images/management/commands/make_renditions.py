from django.core.management.base import BaseCommand

from images.models import Image
from images.renditions import ensure_renditions


class Command(BaseCommand):
    help = (
        "Make every image's missing renditions (after moving media to another storage, "
        "or restoring originals by hand). Existing ones are left as they are."
    )

    def handle(self, *args, **options):
        made = images = 0
        for image in Image.objects.order_by("pk").iterator(chunk_size=100):
            made += ensure_renditions(image)
            images += 1
        self.stdout.write(self.style.SUCCESS(f"Made {made} rendition(s) for {images} image(s)."))
