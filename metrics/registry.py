"""Skillo's Prometheus metrics (prometheus-client), counted where things happen.

Under gunicorn and the task workers, each process counts in files of its own in
PROMETHEUS_MULTIPROC_DIR (make serve sets it) and a scrape adds them up
(skillo.metrics); without it, one process counts in memory."""

from prometheus_client import Counter, Histogram

REQUESTS = Counter(
    "skillo_http_requests", "Requests answered, by view and status.", ["view", "status"]
)
LATENCY = Histogram(
    "skillo_http_request_duration_seconds",
    "Time to answer, by view.",
    ["view"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
)
PAGE_CACHE = Counter(
    "skillo_page_cache_lookups", "Whole-page cache lookups, by result.", ["result"]
)
PURGED_KEYS = Counter("skillo_page_cache_purged_keys", "Dependency keys purged.")
VARNISH_PURGES = Counter(
    "skillo_varnish_purges", "Purge requests sent to Varnish, by outcome.", ["outcome"]
)
TASKS = Counter("skillo_tasks", "Background task runs, by task and outcome.", ["task", "outcome"])
