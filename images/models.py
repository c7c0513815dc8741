from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.storage import default_storage
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.utils.text import Truncator

from .renditions import all_renditions, focus_code, rendition_prefix
from .uploads import ACCEPTED_FORMATS, Upload, same_content


class Licence(models.TextChoices):
    OWN = "own", "Skillo's own (made or photographed by Skillo)"
    PRESS_KIT = "press-kit", "Press kit (the company's media use terms)"
    CC_BY = "cc-by-4.0", "CC BY 4.0"
    CC_BY_SA = "cc-by-sa-4.0", "CC BY-SA 4.0"
    CC0 = "cc0", "CC0 / public domain"
    PERMISSION = "permission", "Used with the owner's permission"
    SCREENSHOT = "screenshot", "Screenshot (quoted for reporting)"


class ImageQuerySet(models.QuerySet):
    def search(self, text):
        query = models.Q()
        for word in text.split():
            query &= (
                models.Q(alt_text__icontains=word)
                | models.Q(caption__icontains=word)
                | models.Q(credit__icontains=word)
                | models.Q(original_name__icontains=word)
            )
        return self.filter(query)


KEY_LENGTH = 16


def original_path(image, filename):
    # Files are named by their content; the first two hex digits keep folders small.
    return f"originals/{image.sha256[:2]}/{filename}"


def remove_files(sha256, storage=default_storage):
    """Remove the original and renditions of the picture with this hash: for an upload
    that did not become a library entry, so that nothing of it is left behind."""
    for prefix in (f"originals/{sha256[:2]}/{sha256}", rendition_prefix(sha256)):
        folder, start = prefix.rsplit("/", 1)
        try:
            names = storage.listdir(folder)[1]
        except FileNotFoundError:
            continue
        for name in names:
            if name.startswith(start):
                storage.delete(f"{folder}/{name}")


class Image(models.Model):
    """One picture in the library, reused by any number of articles. Its file never
    changes once uploaded (the name is made from its content); its words and focal point
    can."""

    file = models.FileField(upload_to=original_path, max_length=200, editable=False)
    sha256 = models.CharField(max_length=64, unique=True, editable=False)
    format = models.CharField(max_length=10, editable=False)
    width = models.PositiveIntegerField(editable=False)
    height = models.PositiveIntegerField(editable=False)
    file_size = models.PositiveIntegerField(editable=False)
    original_name = models.CharField(max_length=255, blank=True, editable=False)

    alt_text = models.CharField(
        "alt text",
        max_length=250,
        blank=True,
        help_text=(
            "What the picture shows, for readers who cannot see it (screen readers, "
            "slow connections). Not a caption: leave out “image of”."
        ),
    )
    decorative = models.BooleanField(
        default=False,
        help_text="Tick only if the picture adds nothing to the text; it then has no alt text.",
    )
    caption = models.CharField(max_length=300, blank=True)
    credit = models.CharField(
        max_length=200, help_text="Who made it, as it must appear: “Photo: Jane Doe / Acme”."
    )
    licence = models.CharField(max_length=20, choices=Licence.choices)
    focal_x = models.FloatField(
        "focal point (across)",
        default=0.5,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="0 is the left edge, 1 the right edge.",
    )
    focal_y = models.FloatField(
        "focal point (down)",
        default=0.5,
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        help_text="0 is the top edge, 1 the bottom edge.",
    )
    uploaded_at = models.DateTimeField(auto_now_add=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(auto_now=True)
    # The focal point (focus_code) whose renditions are all in storage, written by the
    # task that makes them (images.tasks); blank until the first are made. Pages show
    # the picture only once there are files to send: a reader never meets a broken image.
    renditions_made_for = models.CharField(max_length=8, blank=True, editable=False)

    objects = ImageQuerySet.as_manager()

    class Meta:
        ordering = ["-uploaded_at", "-pk"]

    def __str__(self):
        words = self.alt_text or self.caption or self.original_name or f"image {self.pk}"
        return Truncator(words).chars(60)

    def save(self, *args, **kwargs):
        adding = self._state.adding
        try:
            # The row and its file are one: a failure of either (a full disk) leaves
            # neither. Its renditions are queued in this transaction (images.signals).
            with transaction.atomic():
                super().save(*args, **kwargs)
        except Exception:
            # Unless the failure was another upload of the same picture, saved first.
            if adding and self.sha256 and not Image.objects.filter(sha256=self.sha256).exists():
                remove_files(self.sha256)
            raise

    def clean(self):
        if self.decorative and self.alt_text.strip():
            raise ValidationError(
                {
                    "alt_text": "A decorative image has no alt text: remove it, or untick "
                    "“decorative” if the picture tells the reader something."
                }
            )
        if not self.decorative and not self.alt_text.strip():
            raise ValidationError(
                {
                    "alt_text": "Describe the picture for readers who cannot see it, or tick "
                    "“decorative” if it adds nothing to the text."
                }
            )

    @property
    def renditions_ready(self):
        """Whether the page renditions are made (they do not depend on the focal point)."""
        return bool(self.renditions_made_for)

    @property
    def crops_ready(self):
        """Whether the crops around the current focal point are made."""
        return self.renditions_made_for == focus_code(self)

    @property
    def alt(self):
        return "" if self.decorative else self.alt_text

    @property
    def key(self):
        """How files name the image (plain-text articles, the site backup): the start of
        its hash, enough to tell any two pictures apart."""
        return self.sha256[:KEY_LENGTH]

    @property
    def licence_is_open(self):
        # Creative Commons licences require naming the licence next to the credit.
        return self.licence in (Licence.CC_BY, Licence.CC_BY_SA)

    @property
    def megapixels(self):
        return self.width * self.height / 1_000_000

    def take(self, file, upload: Upload):
        """Fill the file fields from a checked upload (see uploads.check_upload). The
        original is named by its content: when the storage has a file of that name with
        these very bytes (left by an upload or restore that never committed), it is the
        same file and is used as it is; a file of that name with other bytes (cut short
        by a killed process) that no image uses is replaced. Otherwise the storage would
        save a copy under a name with a random suffix, no longer the content's."""
        self.sha256 = upload.sha256
        self.format = upload.format
        self.width = upload.width
        self.height = upload.height
        self.file_size = upload.size
        self.original_name = (getattr(file, "name", "") or "")[:255]
        name = self.original_file_name()
        storage = self.file.storage
        if storage.exists(name):
            if same_content(storage, name, upload.sha256):
                self.file = name
                return
            if not Image.objects.filter(file=name).exists():
                storage.delete(name)
        file.name = f"{upload.sha256}.{upload.extension}"
        self.file = file

    def original_file_name(self):
        """Where the storage keeps the original: named by its content."""
        return original_path(self, f"{self.sha256}.{ACCEPTED_FORMATS[self.format]}")

    def stored_files(self):
        """The storage names of every file the library keeps for this image: the original
        and its renditions."""
        return [self.original_file_name(), *(r.name for r in all_renditions(self))]
