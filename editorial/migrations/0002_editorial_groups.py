"""The three editorial roles, on every install (safe to repeat: databases that had them
from news's migration 0004 are put right)."""

from django.db import migrations


def create_groups(apps, schema_editor):
    from editorial.roles import ensure_groups

    ensure_groups(apps)


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(
        name__in=["Writers", "Editors", "Admins"]
    ).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0001_facts_due"),
        ("news", "0011_tags_with_real_foreign_keys"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, remove_groups)]
