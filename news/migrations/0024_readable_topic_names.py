"""Topics named by their slug get a readable name.

Until the demo content's Tags lines gave names ("Programming languages"), they gave slugs
("programming-languages"), and taggit keeps the first spelling it is given as the name:
a site loaded then still shows "programming-languages" wherever a reader sees its
topics. Each topic whose name is exactly its slug is named as its own articles spell its
words most often (news.slugs.spelled_name): "PostgreSQL", "PyTorch", "Release". The slug,
and so every address, stays. A topic is left as it is when another one already has the
new name (in any case): the two are for an editor to merge. Running it again changes
nothing, since no renamed topic's name is its slug any more.
"""

from django.db import migrations, transaction
from django.db.models import F

from news.slugs import spelled_name
from pagecache import purges
from pagecache.dependencies import SCHEDULE


def name_topics(apps, schema_editor):
    Tag = apps.get_model("news", "Tag")
    Article = apps.get_model("news", "Article")
    renamed = 0
    for tag in Tag.objects.filter(name=F("slug")).order_by("pk"):
        texts = [
            text
            for row in Article.objects.filter(tagged_items__tag=tag).values_list(
                "title", "summary", "body_text"
            )
            for text in row
        ]
        name = spelled_name(tag.slug, texts)
        if name == tag.name or Tag.objects.filter(name__iexact=name).exclude(pk=tag.pk).exists():
            continue
        tag.name = name
        tag.save(update_fields=["name"])
        renamed += 1
    if renamed:
        # Historical models send no signals: once this commits, every kept page,
        # fragment and remembered list of topics is made again (the purge waits in the
        # database while the cache is down).
        transaction.on_commit(
            lambda: purges.purge({SCHEDULE()}), using=schema_editor.connection.alias
        )


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0023_remove_article_cards"),
        ("pagecache", "0003_varnish_release"),
    ]

    operations = [migrations.RunPython(name_topics, migrations.RunPython.noop)]
