# Pending purges now belong to the pagecache app: carry over any not yet sent.

from django.db import migrations


def move_pending_purges(apps, schema_editor):
    Old = apps.get_model("news", "PendingPurge")
    New = apps.get_model("pagecache", "PendingPurge")
    New.objects.bulk_create(
        New(keys=purge.keys, created_at=purge.created_at) for purge in Old.objects.all()
    )


def move_them_back(apps, schema_editor):
    Old = apps.get_model("news", "PendingPurge")
    New = apps.get_model("pagecache", "PendingPurge")
    Old.objects.bulk_create(
        Old(keys=purge.keys, created_at=purge.created_at) for purge in New.objects.all()
    )


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0008_article_rules_in_the_model"),
        ("pagecache", "0001_pending_purge"),
    ]

    operations = [
        migrations.RunPython(move_pending_purges, move_them_back),
        migrations.DeleteModel(
            name="PendingPurge",
        ),
    ]
