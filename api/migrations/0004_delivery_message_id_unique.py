import uuid

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0003_standard_webhooks_data"),
    ]

    operations = [
        migrations.AlterField(
            model_name="delivery",
            name="message_id",
            field=models.UUIDField(default=uuid.uuid4, editable=False, unique=True),
        ),
    ]
