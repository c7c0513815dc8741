"""The image library in the admin: upload with the safety checks of images.uploads,
alt text, credit and licence, a focal point set by clicking the picture, and where each
image is used."""

import mimetypes

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.http import FileResponse, Http404, HttpResponseNotAllowed, JsonResponse
from django.shortcuts import get_object_or_404
from django.template.defaultfilters import filesizeformat
from django.urls import path, reverse
from django.utils.cache import patch_cache_control
from django.utils.html import format_html, format_html_join

from images.models import Image
from images.renditions import SOCIAL_SIZES, page_renditions, social_rendition
from images.uploads import ACCEPTED_NAMES, check_upload, max_upload_bytes
from maintenance.disks import no_space_left
from news.models import Article
from news.rules import MIN_LEAD_IMAGE_WIDTH

ACCEPT = "image/jpeg,image/png,image/webp,image/avif,image/gif"


BEING_MADE = (
    "Its renditions are being made (a few seconds; reload to see them). Until then "
    "readers see the articles that use it without it, and link previews show the "
    "article's title card: never a broken picture."
)

NO_SPACE_LEFT = (
    "The server has no space left on its disk; nothing was saved. Your words are kept "
    "below: ask whoever runs Skillo to free some space, then choose the picture again "
    "and save."
)


class ImageForm(forms.ModelForm):
    # Set by ImageAdmin for the second look at a submission whose save found the disk full.
    no_space_left = False

    upload = forms.FileField(
        label="Picture",
        widget=forms.FileInput(attrs={"accept": ACCEPT}),
        help_text=(
            f"{ACCEPTED_NAMES}, at most {filesizeformat(max_upload_bytes())}; an animated "
            "GIF shows its first frame. Lead images must be at least 1,200 pixels wide."
        ),
    )

    class Meta:
        model = Image
        fields = ["alt_text", "decorative", "caption", "credit", "licence", "focal_x", "focal_y"]
        widgets = {
            "focal_x": forms.NumberInput(attrs={"step": "0.01", "min": "0", "max": "1"}),
            "focal_y": forms.NumberInput(attrs={"step": "0.01", "min": "0", "max": "1"}),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            # The file is the image's identity: a new picture is a new library entry.
            del self.fields["upload"]

    def clean_upload(self):
        file = self.cleaned_data["upload"]
        self.checked_upload = check_upload(file)
        existing = Image.objects.filter(sha256=self.checked_upload.sha256).first()
        if existing:
            raise ValidationError(
                format_html(
                    'This picture is already in the library: <a href="{}">{}</a>. Use that one.',
                    reverse("admin:images_image_change", args=[existing.pk]),
                    existing,
                ),
                code="duplicate",
            )
        return file

    def clean(self):
        cleaned = super().clean()
        if self.no_space_left:
            raise ValidationError(NO_SPACE_LEFT, code="no_space")
        return cleaned

    def save(self, commit=True):
        if "upload" in self.fields:
            self.instance.take(self.cleaned_data["upload"], self.checked_upload)
        return super().save(commit)


class BodyImageForm(ImageForm):
    """The article body's drop, paste and insert dialog: a picture already in the library
    is not an error there but the one to insert (``existing``)."""

    existing = None

    class Meta(ImageForm.Meta):
        fields = ["alt_text", "decorative", "caption", "credit", "licence"]

    def clean_upload(self):
        file = self.cleaned_data["upload"]
        self.checked_upload = check_upload(file)
        self.existing = Image.objects.filter(sha256=self.checked_upload.sha256).first()
        return file


def labelled_errors(form):
    """A form's errors as sentences that say where: "Alt text: Describe the picture..."."""
    lines = []
    for name, errors in form.errors.items():
        label = form.fields[name].label if name in form.fields else ""
        for error in errors:
            lines.append(f"{label}: {error}" if label else error)
    return lines


def picked(image, **extra):
    """What the body's image dialog needs of a library image."""
    if image.renditions_ready:
        thumb = page_renditions(image, "jpg")[0].url
    else:
        thumb = reverse("admin:images_image_original", args=[image.pk])
    return {
        "key": image.key,
        "markdown": f"![](image:{image.key})",
        "label": str(image),
        "alt": image.alt,
        "decorative": image.decorative,
        "width": image.width,
        "height": image.height,
        "thumb": thumb,
        **extra,
    }


PICK_LIMIT = 24


class UsageFilter(admin.SimpleListFilter):
    title = "use as lead image"
    parameter_name = "used"

    def lookups(self, request, model_admin):
        return [("yes", "A lead image"), ("no", "Not a lead image")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(usage__gt=0)
        if self.value() == "no":
            return queryset.filter(usage=0)
        return queryset


@admin.register(Image)
class ImageAdmin(admin.ModelAdmin):
    form = ImageForm
    list_display = ["thumbnail", "__str__", "credit", "licence", "dimensions", "usage_count"]
    list_display_links = ["thumbnail", "__str__"]
    list_filter = ["licence", "decorative", UsageFilter, "uploaded_at"]
    search_fields = ["alt_text", "caption", "credit", "original_name"]
    list_per_page = 50
    readonly_fields = ["focal_point_picker", "crops", "placement", "used_in", "file_facts"]

    class Media:
        js = ["editorial/focal-point.js"]
        css = {"all": ["editorial/images.css"]}

    def get_search_results(self, request, queryset, search_term):
        queryset, duplicates = super().get_search_results(request, queryset, search_term)
        if (
            request.GET.get("field_name") in {"lead_image", "social_image"}
            and request.GET.get("model_name") == "article"
        ):
            # The article form's lead and social image pickers offer only what its save
            # accepts.
            queryset = queryset.filter(width__gte=MIN_LEAD_IMAGE_WIDTH)
        return queryset, duplicates

    def get_fieldsets(self, request, obj=None):
        words = ["alt_text", "decorative", "caption", "credit", "licence"]
        if obj is None:
            return [(None, {"fields": ["upload", *words]})]
        return [
            (None, {"fields": ["focal_point_picker", *words]}),
            (
                "Focal point",
                {
                    "fields": [("focal_x", "focal_y"), "crops"],
                    "description": "Crops for link previews and search results keep this "
                    "point in frame. Click the picture above to set it.",
                },
            ),
            ("Where it is used", {"fields": ["placement", "used_in", "file_facts"]}),
        ]

    def get_queryset(self, request):
        # Meta.ordering does not apply to a grouped query: ordered again, or the
        # autocomplete's pages would be unordered.
        return (
            super()
            .get_queryset(request)
            .annotate(usage=Count("lead_of"))
            .order_by("-uploaded_at", "-pk")
        )

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except Exception as error:
            if request.method != "POST" or not no_space_left(error):
                raise
        # The save was rolled back, and Image.save removed the files it wrote. The form
        # is shown again with what the editor typed, and the cause as its error.
        request.skillo_no_space_left = True
        return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if getattr(request, "skillo_no_space_left", False):
            form = type(form.__name__, (form,), {"no_space_left": True})
        return form

    def save_model(self, request, obj, form, change):
        if not change:
            obj.uploaded_by = request.user
        super().save_model(request, obj, form, change)
        if not obj.crops_ready:
            messages.info(request, f"“{obj}”: {BEING_MADE}")

    def get_urls(self):
        return [
            path(
                "<path:object_id>/original/",
                self.admin_site.admin_view(self.original_view),
                name="images_image_original",
            ),
            path(
                "body-upload/",
                self.admin_site.admin_view(self.body_upload_view),
                name="images_image_body_upload",
            ),
            path("pick/", self.admin_site.admin_view(self.pick_view), name="images_image_pick"),
            *super().get_urls(),
        ]

    def body_upload_view(self, request):
        """Upload a picture dropped or pasted onto an article's body (or chosen in its
        dialog) into the library, with the words the dialog asked for; JSON for the
        dialog: the reference to insert, or each problem in a sentence."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        if not self.has_add_permission(request):
            return JsonResponse(
                {"errors": ["You may not add pictures to the library; ask an editor."]},
                status=403,
            )
        form = BodyImageForm(request.POST, request.FILES)
        valid = form.is_valid()
        if form.existing is not None:
            return JsonResponse(picked(form.existing, existing=True))
        if not valid:
            return JsonResponse({"errors": labelled_errors(form)}, status=400)
        try:
            with transaction.atomic():
                image = form.save(commit=False)
                image.uploaded_by = request.user
                image.save()
        except IntegrityError:
            # The same picture dropped twice at once: the first one in is the one.
            existing = Image.objects.filter(sha256=form.checked_upload.sha256).first()
            if existing is None:
                raise
            return JsonResponse(picked(existing, existing=True))
        except Exception as error:
            if not no_space_left(error):
                raise
            return JsonResponse({"errors": [NO_SPACE_LEFT]}, status=507)
        return JsonResponse(picked(image, existing=False), status=201)

    def pick_view(self, request):
        """The library's pictures matching ``q`` (the newest first), for the body's dialog."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        images = Image.objects.search(request.GET.get("q", ""))[:PICK_LIMIT]
        return JsonResponse({"results": [picked(image) for image in images]})

    def original_view(self, request, object_id):
        """The uploaded file itself, to the library's users only (it may hold the
        photographer's GPS position): what the admin shows while renditions are made."""
        image = get_object_or_404(Image, pk=object_id)
        if not self.has_view_permission(request, image):
            raise PermissionDenied
        try:
            file = image.file.open("rb")
        except (FileNotFoundError, OSError) as error:
            raise Http404("The original is missing from the storage.") from error
        content_type, _ = mimetypes.guess_type(image.file.name)
        response = FileResponse(file, content_type=content_type or "application/octet-stream")
        patch_cache_control(response, private=True, max_age=3600)
        return response

    def _original_url(self, image):
        return reverse("admin:images_image_original", args=[image.pk])

    @admin.display(description="")
    def thumbnail(self, image):
        if not image.renditions_ready:
            return format_html(
                '<img class="image-thumb" src="{}" alt=""><span class="image-state">'
                "Renditions being made</span>",
                self._original_url(image),
            )
        small = page_renditions(image, "jpg")[0]
        return format_html(
            '<img class="image-thumb" src="{}" width="{}" height="{}" alt="">',
            small.url,
            small.width,
            small.height,
        )

    @admin.display(description="size")
    def dimensions(self, image):
        return f"{image.width:,} × {image.height:,}"

    @admin.display(description="lead image of", ordering="usage")
    def usage_count(self, image):
        return image.usage

    @admin.display(description="Picture")
    def focal_point_picker(self, image):
        if image.renditions_ready:
            preview = next(
                (r for r in page_renditions(image, "jpg") if r.width >= 800),
                page_renditions(image, "jpg")[-1],
            )
            src, width, height, state = preview.url, preview.width, preview.height, ""
        else:
            src, width, height = self._original_url(image), image.width, image.height
            state = format_html('<p class="image-state">{}</p>', BEING_MADE)
        return format_html(
            '{}<span class="focal-picker" data-focal-x="id_focal_x" data-focal-y="id_focal_y">'
            '<img src="{}" width="{}" height="{}" alt="{}">'
            '<span class="focal-picker__marker" aria-hidden="true"></span></span>',
            state,
            src,
            width,
            height,
            image.alt,
        )

    @admin.display(description="Crops")
    def crops(self, image):
        if not image.crops_ready:
            return format_html(
                '<p class="image-state">{}</p>',
                "The crops around this focal point are being made; reload in a few seconds "
                "to see them.",
            )
        return format_html(
            '<div class="image-crops">{}</div>',
            format_html_join(
                "",
                '<figure><img src="{}" width="{}" height="{}" alt=""><figcaption>{}'
                "</figcaption></figure>",
                (
                    (r.url, r.width // 6, r.height // 6, label)
                    for r, label in (
                        (social_rendition(image, name), LABELS[name]) for name in SOCIAL_SIZES
                    )
                ),
            ),
        )

    @admin.display(description="Shown in")
    def used_in(self, image):
        articles = Article.objects.showing_image(image).order_by("-published_at")
        if not articles:
            return "No article yet."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "",
                '<li><a href="{}">{}</a></li>',
                ((reverse("admin:news_article_change", args=[a.pk]), a.title) for a in articles),
            ),
        )

    @admin.display(description="In an article's text")
    def placement(self, image):
        return format_html(
            '<code class="image-placement">![](image:{})</code><div class="help">Paste this '
            "line into an article's body to show the picture there, with its alt text and "
            'caption; <code>![other alt text](image:{} "Other caption")</code> gives that '
            "place words of its own.</div>",
            image.key,
            image.key,
        )

    @admin.display(description="File")
    def file_facts(self, image):
        return (
            f"{image.format}, {image.width:,} × {image.height:,} pixels, "
            f"{filesizeformat(image.file_size)}; uploaded as “{image.original_name}”"
        )


LABELS = {
    "card": "Link previews (1200 × 630)",
    "16x9": "Search, 16:9",
    "4x3": "Search, 4:3",
    "1x1": "Search, 1:1",
}
