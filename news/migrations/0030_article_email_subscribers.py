import importlib

from django.db import migrations, models

import news.models

# SQLite appends the new column after the long texts: they go last again (see 0020);
# search 0008 reinstalls the index's triggers, which go with the rebuilt table.
big_columns_last = importlib.import_module("news.migrations.0020_sqlite_big_columns_last")

HELP = (
    "Whether the story is e-mailed to the newsletter's subscribers when it is published "
    "(once: a story is never e-mailed twice)."
)


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0029_one_lead_story"),
    ]

    operations = [
        # Every article so far was e-mailed on publication, whatever the site's default
        # is now: none is offered "send" again for a story its subscribers had.
        migrations.AddField(
            model_name="article",
            name="email_subscribers",
            field=models.BooleanField(
                default=True, editable=False, help_text=HELP, verbose_name="e-mail to subscribers"
            ),
        ),
        migrations.AlterField(
            model_name="article",
            name="email_subscribers",
            field=models.BooleanField(
                default=news.models.email_stories_by_default,
                editable=False,
                help_text=HELP,
                verbose_name="e-mail to subscribers",
            ),
        ),
        migrations.RunPython(big_columns_last.big_columns_last, migrations.RunPython.noop),
    ]
