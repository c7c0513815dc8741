"""Existing webhooks and deliveries in the Standard Webhooks form.

A secret becomes "whsec_" and the base64 of its own bytes: the HMAC key stays the same,
so the receiver needs no new secret, only the whsec_ form (shown in the admin) for a
Standard Webhooks library. Each delivery gets its own webhook-id, and its payload the
{"type", "timestamp", "data"} shape, so a pending one or one sent again is sent as new
ones are.
"""

import base64
import uuid

from django.db import migrations

BATCH = 500


def forwards(apps, schema_editor):
    Webhook = apps.get_model("api", "Webhook")
    Delivery = apps.get_model("api", "Delivery")
    hooks = list(Webhook.objects.exclude(secret__startswith="whsec_"))
    for hook in hooks:
        hook.secret = "whsec_" + base64.b64encode(hook.secret.encode()).decode()
    Webhook.objects.bulk_update(hooks, ["secret"], batch_size=BATCH)
    deliveries = []
    for delivery in Delivery.objects.iterator(chunk_size=BATCH):
        delivery.message_id = uuid.uuid4()
        data = {k: v for k, v in delivery.payload.items() if k not in {"event", "type"}}
        when = delivery.scheduled_for or delivery.created_at
        delivery.payload = {"type": delivery.event, "timestamp": when.isoformat(), "data": data}
        deliveries.append(delivery)
    Delivery.objects.bulk_update(deliveries, ["message_id", "payload"], batch_size=BATCH)


def backwards(apps, schema_editor):
    Webhook = apps.get_model("api", "Webhook")
    Delivery = apps.get_model("api", "Delivery")
    hooks = list(Webhook.objects.filter(secret__startswith="whsec_"))
    for hook in hooks:
        hook.secret = base64.b64decode(hook.secret.removeprefix("whsec_")).decode("latin-1")
    Webhook.objects.bulk_update(hooks, ["secret"], batch_size=BATCH)
    deliveries = []
    for delivery in Delivery.objects.iterator(chunk_size=BATCH):
        delivery.payload = {"event": delivery.event, **delivery.payload.get("data", {})}
        deliveries.append(delivery)
    Delivery.objects.bulk_update(deliveries, ["payload"], batch_size=BATCH)


class Migration(migrations.Migration):
    dependencies = [
        ("api", "0002_standard_webhooks_fields"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
