"""/metrics/ (issue 28): Prometheus metrics for the operators' addresses only, counting
requests, the page cache, purges and background tasks."""

import re

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import Client
from prometheus_client import REGISTRY

from tests import background_tasks as tasks

from .factories import ArticleFactory

pytestmark = pytest.mark.django_db


def scrape(client=None, **headers):
    response = (client or Client()).get("/metrics/", **headers)
    return response


def value(text, name, **labels):
    """The sample ``name{labels}`` of a scrape, 0 when absent."""
    wanted = ",".join(f'{key}="{val}"' for key, val in sorted(labels.items()))
    for line in text.splitlines():
        match = re.fullmatch(r"([a-z_]+)(?:\{(.*)\})? (\S+)", line)
        if match and match[1] == name and ",".join(sorted((match[2] or "").split(","))) == wanted:
            return float(match[3])
    return 0.0


def test_loopback_reads_the_metrics_as_prometheus_text():
    response = scrape()
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    assert "no-cache" in response["Cache-Control"]
    assert "skillo_http_requests_total" in response.content.decode()


def test_another_address_gets_the_sites_404():
    assert scrape(REMOTE_ADDR="203.0.113.9").status_code == 404


def test_a_reader_through_a_trusted_proxy_is_refused(settings):
    settings.TRUSTED_PROXY_COUNT = 1  # Varnish on the same machine
    assert scrape(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9").status_code == 404


def test_a_configured_network_may_read_them(settings):
    settings.METRICS_ALLOWED_ADDRESSES = ["10.0.0.0/8"]
    assert scrape(REMOTE_ADDR="10.1.2.3").status_code == 200
    assert scrape(REMOTE_ADDR="127.0.0.1").status_code == 404


def test_requests_are_counted_by_view_and_status(client):
    before = value(
        scrape().content.decode(), "skillo_http_requests_total", view="news:index", status="200"
    )
    client.get("/")
    after = value(
        scrape().content.decode(), "skillo_http_requests_total", view="news:index", status="200"
    )
    assert after == before + 1


@pytest.mark.page_cache
def test_page_cache_hits_and_misses_are_counted(client):
    # Read in this process, not scraped: a scrape is a lookup of its own.
    def lookups(result):
        return REGISTRY.get_sample_value("skillo_page_cache_lookups_total", {"result": result}) or 0

    article = ArticleFactory()
    hits, misses = lookups("hit"), lookups("miss")
    client.get(article.get_absolute_url())  # a miss, then kept
    client.get(article.get_absolute_url())  # a hit
    assert (lookups("hit"), lookups("miss")) == (hits + 1, misses + 1)
    served = REGISTRY.get_sample_value(
        "skillo_http_requests_total", {"view": "page-cache", "status": "200"}
    )
    assert served >= 1


def test_the_queue_and_task_outcomes_are_in_the_metrics(settings):
    settings.SKILLO_TASK_MAX_ATTEMPTS = 1
    before = scrape().content.decode()
    tasks.always_fails.enqueue()
    tasks.record.enqueue("waiting")
    assert value(scrape().content.decode(), "skillo_tasks_queued", queue="default") == 2
    tasks.run_queued()
    after = scrape().content.decode()
    name, failing = "skillo_tasks_total", "tests.background_tasks.always_fails"
    assert (
        value(after, name, task=failing, outcome="failed")
        == value(before, name, task=failing, outcome="failed") + 1
    )
    assert value(after, "skillo_tasks_failed", queue="default") == 1
    assert value(after, "skillo_tasks_queued", queue="default") == 0


def test_an_allowed_address_that_does_not_parse_stops_the_start(settings):
    settings.METRICS_ALLOWED_ADDRESSES = ["127.0.0.1", "prometheus.internal"]
    with pytest.raises(SystemCheckError, match=r"'prometheus\.internal' is not an address"):
        call_command("check")
