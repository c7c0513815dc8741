"""Writers choose their articles' authors; editors keep the authors' profiles."""

from django.db import migrations


def update_groups(apps, schema_editor):
    from editorial.roles import ensure_groups

    ensure_groups(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0002_editorial_groups"),
        ("people", "0001_initial"),
        ("news", "0014_article_authors"),
        ("images", "0001_initial"),
    ]

    operations = [migrations.RunPython(update_groups, migrations.RunPython.noop)]
