from django.core.management.base import BaseCommand, CommandError

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
        missing = []
        for pk in Image.objects.order_by("pk").values_list("pk", flat=True).iterator():
            try:
                made += make_renditions.call(pk)
            except FileNotFoundError:
                # An original not copied to this storage: the others are still made.
                missing.append(pk)
                continue
            images += 1
        self.stdout.write(self.style.SUCCESS(f"Made {made} rendition(s) for {images} image(s)."))
        if missing:
            raise CommandError(
                f"{len(missing)} image(s) have no original in the storage, so no renditions "
                f"(ids {', '.join(map(str, missing))}): copy their originals/ files there "
                "and run make_renditions again."
            )
