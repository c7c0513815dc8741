"""/metrics/: Skillo's Prometheus metrics (metrics.registry) and the task queue's state,
for the addresses in METRICS_ALLOWED_ADDRESSES only (loopback by default). Anyone else
gets the site's 404: the figures are the operators', and their address is no secret
worth confirming. The reader's address is taken as the login lockouts take it
(skillo.proxy), so a page fetched through Varnish counts as its reader's."""

import ipaddress
import os

from django.conf import settings
from django.http import Http404, HttpResponse
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from background.status import queue_status

from .proxy import client_address


class QueueCollector:
    """The task queues as they are at the scrape, read from the database, by queue."""

    GAUGES = {
        "queued": ("skillo_tasks_queued", "Tasks waiting in the queue."),
        "oldest_queued_seconds": (
            "skillo_tasks_oldest_queued_seconds", "Age of the oldest task waiting to run.",
        ),
        "failed": ("skillo_tasks_failed", "Tasks that failed for good."),
        "workers": ("skillo_task_workers", "Workers seen in the last minute."),
    }  # fmt: skip

    def collect(self):
        queues = queue_status()["queues"]
        for key, (name, documentation) in self.GAUGES.items():
            gauge = GaugeMetricFamily(name, documentation, labels=["queue"])
            for queue, status in queues.items():
                gauge.add_metric([queue], status[key])
            yield gauge


def allowed(address):
    try:
        address = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(net) for net in settings.METRICS_ALLOWED_ADDRESSES)


@require_GET
def metrics(request):
    if not allowed(client_address(request)):
        raise Http404("No such page.")
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        MultiProcessCollector(registry)  # every process's counts, added up
    else:
        registry = REGISTRY
    output = generate_latest(registry)
    queue = CollectorRegistry()
    queue.register(QueueCollector())
    response = HttpResponse(output + generate_latest(queue), content_type=CONTENT_TYPE_LATEST)
    add_never_cache_headers(response)
    return response
