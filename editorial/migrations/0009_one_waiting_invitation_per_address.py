"""One invitation waiting per address, held by a constraint
(one_waiting_invitation_per_address): a double click on "Save" sent two e-mails with two
links, each good for an account.

Existing duplicates are resolved first: of the invitations to one address not yet used,
the newest stays (it works the longest, and its e-mail is the last the person got) and
the others are deleted, their links answering as unknown ones do.
"""

from django.db import migrations, models
from django.db.models.functions import Lower


def one_waiting(apps, schema_editor):
    Invitation = apps.get_model("editorial", "Invitation")
    waiting = Invitation.objects.filter(accepted_at__isnull=True).annotate(address=Lower("email"))
    kept = {}
    for pk, address in waiting.order_by("-created_at", "-pk").values_list("pk", "address"):
        kept.setdefault(address, pk)
    waiting.exclude(pk__in=kept.values()).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("editorial", "0008_invitations"),
    ]

    operations = [
        migrations.RunPython(one_waiting, migrations.RunPython.noop),
        migrations.AddConstraint(
            model_name="invitation",
            constraint=models.UniqueConstraint(
                Lower("email"),
                condition=models.Q(("accepted_at__isnull", True)),
                name="one_waiting_invitation_per_address",
            ),
        ),
    ]
