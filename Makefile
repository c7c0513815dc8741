# Skillo: `make run` serves the site with demo content, `make test` runs every check.
SHELL := /bin/bash
PYTHON_VERSION := $(shell cat .python-version)
PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
BASE_PYTHON ?= $(PYENV_ROOT)/versions/$(PYTHON_VERSION)/bin/python
VENV := .venv
PY := $(VENV)/bin/python
AXE_VERSION := 4.14.1
AXE_CORE := $(VENV)/axe/node_modules/axe-core/axe.min.js
# The Nu Html Checker (the W3C's validator), from the npm registry; it runs on Java.
VNU_VERSION := 26.9.27
VNU_JAR := $(VENV)/vnu/node_modules/vnu-jar/build/dist/vnu.jar
# Fedify, the fediverse framework the interoperability test checks Skillo against (npm;
# 1.5 runs on Node 20, 2.x needs Node 22).
FEDIFY_VERSION := 1.5.0
FEDIFY_MODULE := $(VENV)/fedify/node_modules/@fedify/fedify/esm/mod.js

# Python's cache of compiled modules (__pycache__, which git ignores) stays on even where
# the environment turns it off (PYTHONDONTWRITEBYTECODE=1, as on these machines): without
# it every process compiles the project again, and pytest rewrites every test module's
# asserts again (6 s of CPU per pytest run, of make test's six; a little in each of the
# hundreds of servers and commands the tests start).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run serve deploy test lint check test-sqlite test-browser test-postgres chromium redis java varnish clean
.PHONY: test-run-postgres test-run-postgres-servers test-run-sqlite test-run-sqlite-servers
.PHONY: test-run-grid test-run-browser

$(VENV)/.installed: pyproject.toml
	@"$(BASE_PYTHON)" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null || { \
	  echo "Python $(PYTHON_VERSION) not found at $(BASE_PYTHON)."; \
	  echo "Install it (pyenv install $(PYTHON_VERSION)) or run: make BASE_PYTHON=/path/to/python3.12"; \
	  exit 1; }
	"$(BASE_PYTHON)" -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

run: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py collectstatic --noinput --verbosity 0
	$(PY) manage.py load_demo
	@echo
	@echo "  Skillo is starting on http://127.0.0.1:8000/"
	@echo "  Log in to the admin at http://127.0.0.1:8000/admin/ (local accounts only):"
	@echo "    writer / writer   writes and edits drafts"
	@echo "    editor / editor   also publishes, schedules, unpublishes and deletes"
	@echo "    admin  / admin    everything"
	@echo "  Background workers run beside it, TASK_WORKERS ($(TASK_WORKERS)); Ctrl-C stops all."
	@echo
	@metrics=$$(mktemp -d); export PROMETHEUS_MULTIPROC_DIR="$$metrics"; \
	$(PY) manage.py run_workers --workers $(TASK_WORKERS) & worker=$$!; \
	trap 'kill -TERM $$worker 2>/dev/null; wait $$worker; rm -rf "$$metrics"' EXIT; \
	$(PY) manage.py runserver 127.0.0.1:8000

# The production configuration on this machine: gunicorn, hashed and compressed static
# files, DEBUG off. DATABASE_URL and CACHE_URL pick PostgreSQL and Redis; without them
# (a local trial only), SQLite and a cache folder the machine's processes share.
# ACCESS_LOG=- logs each request to stdout (a reverse proxy in front usually logs them). SITE_URL names the
# site's public address; without it, a local trial at http://SERVE_BIND (LOCAL_TRIAL).
# make serve VARNISH=1: Varnish (deploy/varnish/skillo.vcl) on SERVE_BIND in front of
# gunicorn on VARNISH_BACKEND_BIND, the app purging it by key (VARNISH_PURGE_URLS);
# Ctrl-C stops both (deploy/varnish/serve.sh; docs/caching.md, "Varnish in front"). With
# or without Varnish, serve.sh starts gunicorn again when its master dies.
SERVE_BIND ?= 127.0.0.1:8000
# Background task workers beside the app server, by queue (manage.py run_workers; more
# can run on other machines sharing the database: docs/operations.md, "Background work").
TASK_WORKERS ?= urgent:1,default:1,remote:1
VARNISH ?=
VARNISH_BACKEND_BIND ?= 127.0.0.1:8001
# Where make serve leaves its processes' ids for make deploy: a folder per address, so
# that several make serve of one checkout (on other ports) keep theirs apart.
SERVE_RUN ?= .run/$(subst :,_,$(SERVE_BIND))
# The production settings, as make serve and make deploy run them.
PRODUCTION_ENV = export DJANGO_SETTINGS_MODULE=skillo.settings.production \
	  SECURE_SSL_REDIRECT="$${SECURE_SSL_REDIRECT:-false}"; \
	if [ -z "$${SITE_URL:-}" ]; then \
	  export SITE_URL="http://$(SERVE_BIND)" LOCAL_TRIAL=true; \
	  echo "No SITE_URL: a local trial at $$SITE_URL (docs/operations.md, \"The site's address\")"; \
	fi; \
	if [ -z "$${SECRET_KEY:-}" ] && [[ "$${LOCAL_TRIAL,,}" =~ ^(1|true|yes|on)$$ ]]; then \
	  export SECRET_KEY="$$($(PY) -c 'import secrets; print(secrets.token_urlsafe(60))')"; \
	  echo "No SECRET_KEY: a throwaway key for this trial; its sessions and links end with it"; \
	fi
serve: $(VENV)/.installed $(if $(VARNISH),varnish)
	@$(PRODUCTION_ENV); \
	bind=$(SERVE_BIND); \
	if [ -n "$(VARNISH)" ]; then \
	  bind=$(VARNISH_BACKEND_BIND); \
	  export VARNISH_PURGE_URLS="$${VARNISH_PURGE_URLS:-http://$(SERVE_BIND)}" \
	    TRUSTED_PROXY_COUNT="$${TRUSTED_PROXY_COUNT:-1}"; \
	else \
	  export VARNISH_PURGE_URLS="$${VARNISH_PURGE_URLS-}"; \
	fi; \
	$(PY) manage.py migrate --noinput \
	  || { echo "make serve stopped: manage.py migrate failed (above)." >&2; exit 1; }; \
	$(PY) manage.py collectstatic_if_changed --verbosity 0 \
	  || { echo "make serve stopped: manage.py collectstatic failed (above)." >&2; exit 1; }; \
	workers=$${WEB_CONCURRENCY:-$$((2 * $$(nproc) + 1))}; \
	run=$(abspath $(SERVE_RUN)); mkdir -p "$$run"; \
	echo "Skillo (production settings) on http://$$bind/ with $$workers worker processes"; \
	gunicorn=($(VENV)/bin/gunicorn skillo.wsgi:application --bind $$bind \
	  --workers $$workers --no-control-socket --pid "$$run/gunicorn.pid" \
	  $${ACCESS_LOG:+--access-logfile "$$ACCESS_LOG"}); \
	echo "and background task workers $(TASK_WORKERS) (TASK_WORKERS)"; \
	metrics=$$(mktemp -d); export PROMETHEUS_MULTIPROC_DIR="$$metrics"; \
	$(PY) manage.py run_workers --workers $(TASK_WORKERS) & echo $$! > "$$run/workers.pid"; \
	trap 'kill -TERM $$(jobs -p) 2>/dev/null; wait; rm -rf "$$metrics" "$$run"' EXIT; \
	deploy/varnish/serve.sh $(if $(VARNISH),$(SERVE_BIND),-) $$bind "$${gunicorn[@]}"

# The code now in this checkout (after a git pull, say) put in service by the make serve
# running from it (the same SERVE_BIND and environment), which keeps serving: its
# packages, the migrations (written so that the running version works on the new schema:
# docs/operations.md, "Deploying"), the static files, then gunicorn's graceful reload
# (HUP: processes on the new code start, the old ones finish their requests) and new task
# workers (the old ones finish their task). A failed step stops it; the old code serves on.
deploy: $(VENV)/.installed
	@$(PRODUCTION_ENV); \
	run=$(abspath $(SERVE_RUN)); \
	for name in gunicorn workers; do \
	  kill -0 "$$(cat "$$run/$$name.pid" 2>/dev/null)" 2>/dev/null || { \
	    echo "make deploy: no make serve running on $(SERVE_BIND) from here ($$run/$$name.pid)." >&2; \
	    exit 1; }; \
	done; \
	$(PY) manage.py migrate --noinput \
	  || { echo "make deploy stopped: manage.py migrate failed (above); the running code serves on." >&2; exit 1; }; \
	$(PY) manage.py collectstatic_if_changed --verbosity 0 \
	  || { echo "make deploy stopped: manage.py collectstatic failed (above); the running code serves on." >&2; exit 1; }; \
	kill -HUP "$$(cat "$$run/gunicorn.pid")" "$$(cat "$$run/workers.pid")"; \
	echo "make deploy: gunicorn and the task workers are starting on the new code; the old processes finish what they are doing."

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache

check: $(VENV)/.installed
	$(PY) manage.py check --fail-level WARNING
	$(PY) manage.py makemigrations --check --dry-run
	$(PY) manage.py collectstatic --noinput --verbosity 0

# Browser tests use Debian's Chromium (Playwright's own browser download does not work
# offline) and axe-core from the npm registry.
chromium:
	@command -v chromium >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "Install Chromium first: sudo apt-get install -y chromium"; exit 1; fi; }

# The page-cache and Redis queue tests start a real redis-server (Debian's package) on 127.0.0.1.
redis:
	@command -v redis-server >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else echo "Install Redis first: sudo apt-get install -y redis-server"; exit 1; fi; }

# The Varnish tests (tests/varnish) and make serve VARNISH=1: Debian's varnish and the
# xkey module (purges by key) from varnish-modules.
varnish:
	@{ command -v varnishd || test -x /usr/sbin/varnishd; } >/dev/null \
	  && ls /usr/lib/*/varnish/vmods/libvmod_xkey.so >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq varnish varnish-modules >/dev/null; \
	  else echo "Install Varnish first: sudo apt-get install -y varnish varnish-modules"; exit 1; fi; }

# The HTML checker needs Java: Debian's default-jre-headless.
java:
	@command -v java >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless >/dev/null; \
	  else echo "Install Java first: sudo apt-get install -y default-jre-headless"; exit 1; fi; }

$(VNU_JAR):
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/vnu vnu-jar@$(VNU_VERSION)

# Lighthouse for bench/lighthouse.py (not for make test: its scores are a benchmark's).
LIGHTHOUSE_VERSION := 12.8.2
.PHONY: lighthouse
lighthouse: $(VENV)/lighthouse/node_modules/.bin/lighthouse
$(VENV)/lighthouse/node_modules/.bin/lighthouse:
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/lighthouse lighthouse@$(LIGHTHOUSE_VERSION)

$(FEDIFY_MODULE):
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/fedify @fedify/fedify@$(FEDIFY_VERSION)

$(AXE_CORE):
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/axe axe-core@$(AXE_VERSION)

# make test: lint and the Django checks, then six pytest runs side by side on the two
# cores, each one's output printed whole when it ends; make test fails if any fails.
# The whole suite runs on SQLite, and on a throwaway PostgreSQL cluster (with-postgres.sh)
# what can behave differently there: all but the browser tests and those marked
# sqlite_only (tests/conftest.py says which: tests that use no database, and most of the
# hostile-input grid, of which a sample runs). Each is cut in parts that take turns while
# others wait on their servers:
#   postgres, sqlite                   all but the parts below,
#   postgres-servers, sqlite-servers   tests starting servers and processes of their own
#                                      (the deployed tier, tests/deployed, with its own
#                                      PostgreSQL: in postgres-servers only),
#   grid                               the hostile-input grid on SQLite, in full,
#   browser                            the browser tests (Chromium), on SQLite;
# and BALANCE, tests taken from postgres and sqlite to postgres-servers and grid, whose
# work is done sooner: the runs then end close together, not one alone on a core at the
# end (each prints what it cost: TIMED below).
# So every test runs at least once, the database-dependent ones on both databases.
# The runs share one copy of the static files as production collects them (a minute of
# CPU to compress; tests/conftest.py, production_static), removed when they end.
# make test-sqlite (one process, browser tests included), test-browser and test-postgres
# run one pass each.
TEST_JOBS ?= 6
HOSTILE_GRID := tests/test_hostile_input.py
SERVER_TESTS := tests/test_background_workers.py tests/test_concurrent_editors.py tests/test_killed_backups.py \
  tests/test_newsletter_workers.py tests/test_outage.py tests/test_readership_redis.py \
  tests/test_pagecache_servers.py tests/test_release.py tests/test_settings.py \
  tests/test_sqlite_serving.py tests/test_ratelimit_servers.py tests/fediverse/test_slow_keys_servers.py \
  tests/varnish tests/members/test_varnish.py tests/deployed tests/test_replicas.py \
  tests/test_object_storage_machines.py
BALANCE := tests/api tests/fediverse
# Each run ends with its slowest tests: where make test's ten minutes go.
DURATIONS ?= --durations=15 --durations-min=5
PYTEST_POSTGRES := tests/with-postgres.sh $(VENV)/bin/pytest $(DURATIONS) -m "not browser and not sqlite_only"
PYTEST_SQLITE := VNU_JAR=$(VNU_JAR) FEDIFY_MODULE=$(CURDIR)/$(FEDIFY_MODULE) $(VENV)/bin/pytest $(DURATIONS) -m "not browser"
PYTEST_BROWSER := AXE_CORE=$(AXE_CORE) SKILLO_TEST_DATABASE_FILE=$(CURDIR)/$(VENV)/browser-tests.sqlite3 \
  $(VENV)/bin/pytest $(DURATIONS) -m browser

test: lint check chromium redis java varnish $(AXE_CORE) $(VNU_JAR) $(FEDIFY_MODULE)
	@echo "Six test runs side by side (each shown when it ends)."
	@shared=$$(mktemp -d); trap 'rm -rf "$$shared"' EXIT; \
	SKILLO_TEST_PRODUCTION_STATIC=$$shared/static \
	$(MAKE) --no-print-directory --jobs=$(TEST_JOBS) --output-sync=target --keep-going \
	  test-run-postgres test-run-sqlite test-run-postgres-servers test-run-sqlite-servers \
	  test-run-grid test-run-browser

test-sqlite: $(VENV)/.installed check chromium redis java varnish $(AXE_CORE) $(VNU_JAR) $(FEDIFY_MODULE)
	AXE_CORE=$(AXE_CORE) VNU_JAR=$(VNU_JAR) FEDIFY_MODULE=$(CURDIR)/$(FEDIFY_MODULE) SKILLO_TEST_DATABASE_FILE=$(CURDIR)/$(VENV)/tests.sqlite3 \
	  $(VENV)/bin/pytest

test-browser: $(VENV)/.installed check chromium $(AXE_CORE)
	$(PYTEST_BROWSER)

test-postgres: $(VENV)/.installed check redis
	$(PYTEST_POSTGRES)

# The runs alone, for make test (which has made their prerequisites first).
# Each run says what it cost: its time and the CPU it and the processes it waited for
# used (bash's time), the figure that adds up to make test's time on two cores.
TIMED = TIMEFORMAT="$@: %0R s, %0U s of user and %0S s of system CPU"; time
test-run-postgres:
	$(TIMED) $(PYTEST_POSTGRES) $(addprefix --ignore=,$(SERVER_TESTS) $(BALANCE))
test-run-postgres-servers:
	$(TIMED) $(PYTEST_POSTGRES) $(SERVER_TESTS) $(BALANCE)
test-run-sqlite:
	$(TIMED) $(PYTEST_SQLITE) $(addprefix --ignore=,$(HOSTILE_GRID) $(SERVER_TESTS) $(BALANCE))
# Worker processes must see the suite's database: a file, not SQLite in memory.
test-run-sqlite-servers:
	$(TIMED) env SKILLO_TEST_DATABASE_FILE=$(CURDIR)/$(VENV)/server-tests.sqlite3 $(PYTEST_SQLITE) \
	  -m "not browser and not deployed" $(SERVER_TESTS)
test-run-grid:
	$(TIMED) $(PYTEST_SQLITE) $(addprefix --ignore=,$(SERVER_TESTS)) $(HOSTILE_GRID) $(BALANCE)
test-run-browser:
	$(TIMED) $(PYTEST_BROWSER)

clean:
	rm -rf $(VENV) staticfiles
