from django.db import migrations, models

import news.models

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
    ]
