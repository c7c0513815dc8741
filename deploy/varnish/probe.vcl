# Whether an app server process answers at all: included by a backend.vcl that lists
# several app servers (deploy/varnish/serve.sh writes one), each with
# `.probe = skillo_alive;`. With one app server there is no probe: the launcher (or
# systemd) restarts it, and a probe could only turn its slow answers into errors.

# The one place the probe's address is named: /health/live/, answered whatever the Host
# (background.middleware), so ALLOWED_HOSTS need not list the app servers' addresses.
probe skillo_alive {
    .request =
        "GET /health/live/ HTTP/1.1"
        "Host: 127.0.0.1"
        "X-Forwarded-Proto: https"
        "Connection: close";
    .expected_response = 200;
    # Patient: a process busy with a slow page (one sync worker) is not dead, and with
    # every backend sick readers get nothing but what is in grace. Sick after 4 failures
    # of the last 5 looks (about 8 s; requests meanwhile are retried on the next backend,
    # vcl_backend_error), healthy again after 2 good ones; healthy from the start.
    .interval = 2s;
    .timeout = 5s;
    .window = 5;
    .threshold = 2;
    .initial = 2;
}
