from django.db import migrations, models

import api.models


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0001_initial"),
    ]

    operations = [
        migrations.AlterField(
            model_name="webhook",
            name="secret",
            field=models.CharField(
                default=api.models.new_secret,
                editable=False,
                help_text="Signs each delivery (Standard Webhooks, HMAC-SHA256): give it to the receiver, which verifies with it.",
                max_length=200,
            ),
        ),
        migrations.AddField(
            model_name="webhook",
            name="previous_secret",
            field=models.CharField(blank=True, editable=False, max_length=200),
        ),
        migrations.AddField(
            model_name="webhook",
            name="previous_secret_until",
            field=models.DateTimeField(
                blank=True,
                help_text="After a rotation, deliveries carry a signature with the old secret too until then, while the receiver switches. Empty it to stop at once.",
                null=True,
                verbose_name="previous secret signs until",
            ),
        ),
        # Null for now: 0003 gives each existing delivery its own, 0004 makes it unique.
        migrations.AddField(
            model_name="delivery",
            name="message_id",
            field=models.UUIDField(editable=False, null=True),
        ),
    ]
