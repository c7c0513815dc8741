"""The three editorial roles were created here; the editorial app's migrations do it now
(editorial/migrations/0002_editorial_groups.py), so this one no longer does anything."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0003_workflow"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = []
