"""One lead story on the home page, held by a constraint (one_lead_story) instead of the
form's check, which two editors choosing at the same moment both passed.

Existing duplicates are resolved first: the lead readers see now stays the lead (the
first, in the pins' order, whose time has not run out and whose article is public; else
the last pinned), and every other lead becomes a feature, still pinned, as the form does
when a lead is replaced. Once that commits, the home page's remembered choices are made
again.
"""

from django.db import migrations, models, transaction
from django.db.models import Q
from django.utils import timezone

from news.dependencies import FRONT
from news.models import public_rule
from pagecache import purges


def one_lead(apps, schema_editor):
    FrontPin = apps.get_model("news", "FrontPin")
    leads = FrontPin.objects.filter(lead=True)
    if leads.count() < 2:
        return
    now = timezone.now()
    public = {f"article__{lookup}": value for lookup, value in public_rule(now).items()}
    shown = (
        leads.filter(Q(until__isnull=True) | Q(until__gt=now), **public)
        .order_by("position", "-pinned_at", "-pk")
        .first()
    )
    kept = shown or leads.order_by("-pinned_at", "-pk").first()
    leads.exclude(pk=kept.pk).update(lead=False)
    transaction.on_commit(lambda: purges.purge({FRONT()}), using=schema_editor.connection.alias)


class Migration(migrations.Migration):
    dependencies = [
        ("news", "0028_site_identity"),
        ("pagecache", "0003_varnish_release"),
    ]

    operations = [
        migrations.RunPython(one_lead, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="frontpin",
            name="lead",
            field=models.BooleanField(
                default=False,
                help_text="Shown first and largest; one at a time.",
                verbose_name="lead story",
            ),
        ),
        migrations.AddConstraint(
            model_name="frontpin",
            constraint=models.UniqueConstraint(
                condition=models.Q(("lead", True)), fields=("lead",), name="one_lead_story"
            ),
        ),
    ]
