"""The release the Varnish servers in front were last told of (pagecache.varnish)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("pagecache", "0002_pending_purge_target"),
    ]

    operations = [
        migrations.CreateModel(
            name="Release",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=64)),
                ("since", models.DateTimeField(auto_now=True)),
            ],
        ),
    ]
