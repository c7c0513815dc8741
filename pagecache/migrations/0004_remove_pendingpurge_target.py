"""A Varnish's missed purges are a background task now (pagecache.varnish.purge_varnish),
not rows of PendingPurge re-sent by a thread in every app server process."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("pagecache", "0003_varnish_release"),
    ]

    operations = [
        # Rows kept for a Varnish go with the column: they would read as this site's own.
        migrations.RunSQL(
            "DELETE FROM pagecache_pendingpurge WHERE target <> ''", migrations.RunSQL.noop
        ),
        migrations.RemoveField(model_name="pendingpurge", name="target"),
    ]
