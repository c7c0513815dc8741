from django.db import migrations, models


def mark_made(apps, schema_editor):
    # Until now renditions were made in the upload's own request: every image saved
    # before this has them, cropped around its focal point as it is now.
    Image = apps.get_model("images", "Image")
    for image in Image.objects.only("focal_x", "focal_y").iterator(chunk_size=500):
        Image.objects.filter(pk=image.pk).update(
            renditions_made_for=f"{round(image.focal_x * 100):02d}{round(image.focal_y * 100):02d}"
        )


class Migration(migrations.Migration):
    dependencies = [("images", "0001_initial")]

    operations = [
        migrations.AddField(
            model_name="image",
            name="renditions_made_for",
            field=models.CharField(blank=True, editable=False, max_length=8),
        ),
        migrations.RunPython(mark_made, migrations.RunPython.noop),
    ]
