from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("readership", "0005_folded_batch"),
    ]

    operations = [
        # A view counted at most once per visitor, article and hour: the hours counted so
        # far today. Rows from before have none, so a reader's next view this hour counts
        # once more.
        migrations.AddField(
            model_name="dayvisitor",
            name="hours",
            field=models.BigIntegerField(default=0),
        ),
        # "Most read" ranks readers. The list stored keeps its views as its readers until
        # the ranking changes (no page shows them; the next refresh ranks by readers).
        migrations.RenameField(model_name="mostread", old_name="views", new_name="readers"),
    ]
