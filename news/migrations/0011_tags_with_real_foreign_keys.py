"""Tags move from taggit's generic tables to news.Tag and news.TaggedArticle (a real
foreign key to the article), keeping their ids, so that URLs, cache keys and revisions
stay valid. Revisions stored with taggit's TaggedItem are rewritten to the new model,
so comparing and restoring them keeps working."""

import json

import django.db.models.deletion
import taggit.managers
from django.db import migrations, models


def copy_tags(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    OldTag = apps.get_model("taggit", "Tag")
    OldItem = apps.get_model("taggit", "TaggedItem")
    Tag = apps.get_model("news", "Tag")
    TaggedArticle = apps.get_model("news", "TaggedArticle")
    Version = apps.get_model("reversion", "Version")
    db = schema_editor.connection.alias

    article_type = ContentType.objects.using(db).filter(app_label="news", model="article").first()
    if article_type is None:
        return  # a new database: nothing was ever tagged
    items = OldItem.objects.using(db).filter(content_type=article_type)
    Tag.objects.using(db).bulk_create(
        Tag(pk=tag.pk, name=tag.name, slug=tag.slug) for tag in OldTag.objects.using(db).all()
    )
    TaggedArticle.objects.using(db).bulk_create(
        (
            TaggedArticle(pk=item.pk, tag_id=item.tag_id, content_object_id=int(item.object_id))
            for item in items.iterator()
        ),
        batch_size=2000,
    )

    old_type = ContentType.objects.using(db).filter(app_label="taggit", model="taggeditem").first()
    if old_type is not None:
        new_type, _ = ContentType.objects.using(db).get_or_create(
            app_label="news", model="taggedarticle"
        )
        for version in Version.objects.using(db).filter(content_type=old_type).iterator():
            rows = json.loads(version.serialized_data)
            for row in rows:
                fields = row["fields"]
                row["model"] = "news.taggedarticle"
                row["fields"] = {"tag": fields["tag"], "content_object": int(fields["object_id"])}
            version.serialized_data = json.dumps(rows)
            version.content_type = new_type
            version.save(update_fields=["serialized_data", "content_type"])

    items.delete()
    OldTag.objects.using(db).filter(taggit_taggeditem_items__isnull=True).delete()
    # Rows were inserted with their ids: PostgreSQL's sequences must move past them.
    connection = schema_editor.connection
    from django.core.management.color import no_style

    for statement in connection.ops.sequence_reset_sql(no_style(), [Tag, TaggedArticle]):
        schema_editor.execute(statement, params=None)


def copy_tags_back(apps, schema_editor):
    ContentType = apps.get_model("contenttypes", "ContentType")
    OldTag = apps.get_model("taggit", "Tag")
    OldItem = apps.get_model("taggit", "TaggedItem")
    Tag = apps.get_model("news", "Tag")
    TaggedArticle = apps.get_model("news", "TaggedArticle")
    Version = apps.get_model("reversion", "Version")
    db = schema_editor.connection.alias

    article_type, _ = ContentType.objects.using(db).get_or_create(app_label="news", model="article")
    OldTag.objects.using(db).bulk_create(
        (OldTag(pk=tag.pk, name=tag.name, slug=tag.slug) for tag in Tag.objects.using(db).all()),
        ignore_conflicts=True,
    )
    OldItem.objects.using(db).bulk_create(
        OldItem(
            pk=item.pk, tag_id=item.tag_id, content_type=article_type,
            object_id=item.content_object_id,
        )
        for item in TaggedArticle.objects.using(db).iterator()
    )  # fmt: skip
    new_type = ContentType.objects.using(db).filter(app_label="news", model="taggedarticle").first()
    if new_type is not None:
        old_type, _ = ContentType.objects.using(db).get_or_create(
            app_label="taggit", model="taggeditem"
        )
        for version in Version.objects.using(db).filter(content_type=new_type).iterator():
            rows = json.loads(version.serialized_data)
            for row in rows:
                fields = row["fields"]
                row["model"] = "taggit.taggeditem"
                row["fields"] = {
                    "tag": fields["tag"],
                    "content_type": article_type.pk,
                    "object_id": fields["content_object"],
                }
            version.serialized_data = json.dumps(rows)
            version.content_type = old_type
            version.save(update_fields=["serialized_data", "content_type"])
    connection = schema_editor.connection
    from django.core.management.color import no_style

    for statement in connection.ops.sequence_reset_sql(no_style(), [OldTag, OldItem]):
        schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0010_facts_due_moves_to_editorial"),
        ("taggit", "0006_rename_taggeditem_content_type_object_id_taggit_tagg_content_8fc721_idx"),
        ("reversion", "0002_add_index_on_version_for_content_type_and_db"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.CreateModel(
            name="Tag",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=100, unique=True, verbose_name="name")),
                (
                    "slug",
                    models.SlugField(
                        allow_unicode=True, max_length=100, unique=True, verbose_name="slug"
                    ),
                ),
            ],
            options={
                "verbose_name": "tag",
                "verbose_name_plural": "tags",
                "ordering": ["name"],
            },
        ),
        migrations.RemoveField(
            model_name="article",
            name="tags",
        ),
        migrations.CreateModel(
            name="TaggedArticle",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "content_object",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tagged_items",
                        to="news.article",
                    ),
                ),
                (
                    "tag",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="tagged_articles",
                        to="news.tag",
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="article",
            name="tags",
            field=taggit.managers.TaggableManager(
                blank=True,
                help_text="A comma-separated list of tags.",
                through="news.TaggedArticle",
                to="news.Tag",
                verbose_name="Tags",
            ),
        ),
        migrations.AddIndex(
            model_name="taggedarticle",
            index=models.Index(fields=["tag", "content_object"], name="tagged_article_by_tag"),
        ),
        migrations.AddConstraint(
            model_name="taggedarticle",
            constraint=models.UniqueConstraint(
                fields=("content_object", "tag"), name="tagged_article_once"
            ),
        ),
        migrations.RunPython(copy_tags, copy_tags_back, elidable=False),
    ]
