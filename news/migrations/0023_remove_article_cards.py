"""Article cards and pages are no longer kept in the database: pages are rendered from
the ORM and templates, and kept whole by the page cache alone."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0022_kept_article_pages"),
    ]

    operations = [
        migrations.DeleteModel(name="ArticleCard"),
    ]
