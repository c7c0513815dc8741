# Skillo: `make run` serves the site with demo content, `make test` runs every check.
SHELL := /bin/bash
PYTHON_VERSION := $(shell cat .python-version)
PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
BASE_PYTHON ?= $(PYENV_ROOT)/versions/$(PYTHON_VERSION)/bin/python
VENV := .venv
PY := $(VENV)/bin/python
AXE_VERSION := 4.14.1
AXE_CORE := $(VENV)/axe/node_modules/axe-core/axe.min.js

.PHONY: run serve test lint check test-sqlite test-postgres chromium redis clean

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
	@echo
	$(PY) manage.py runserver 127.0.0.1:8000

# The production configuration on this machine: gunicorn, hashed and compressed static
# files, DEBUG off. DATABASE_URL and CACHE_URL pick PostgreSQL and Redis; without them,
# SQLite and each process's own memory as the cache, the processes sharing their purges
# through the machine's purge log (pagecache/purgelog.py). ACCESS_LOG=- logs each request
# to stdout (a reverse proxy in front usually logs them already).
SERVE_BIND ?= 127.0.0.1:8000
serve: $(VENV)/.installed
	@test -s .secret-key || $(PY) -c 'import secrets; print(secrets.token_urlsafe(60))' > .secret-key
	@export DJANGO_SETTINGS_MODULE=skillo.settings.production \
	  SECRET_KEY="$${SECRET_KEY:-$$(cat .secret-key)}" \
	  ALLOWED_HOSTS="$${ALLOWED_HOSTS:-127.0.0.1,localhost}" \
	  SECURE_SSL_REDIRECT="$${SECURE_SSL_REDIRECT:-false}"; \
	$(PY) manage.py migrate --noinput && \
	$(PY) manage.py collectstatic --noinput --verbosity 0 && \
	workers=$${WEB_CONCURRENCY:-$$((2 * $$(nproc) + 1))}; \
	echo "Skillo (production settings) on http://$(SERVE_BIND)/ with $$workers worker processes"; \
	exec $(VENV)/bin/gunicorn skillo.wsgi:application --bind $(SERVE_BIND) \
	  --workers $$workers --no-control-socket $${ACCESS_LOG:+--access-logfile "$$ACCESS_LOG"}

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

# The page-cache tests start a real redis-server (Debian's package) on 127.0.0.1.
redis:
	@command -v redis-server >/dev/null || { \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	  else echo "Install Redis first: sudo apt-get install -y redis-server"; exit 1; fi; }

$(AXE_CORE):
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/axe axe-core@$(AXE_VERSION)

# The whole suite on SQLite, browser tests included; then everything but the browser
# tests again on PostgreSQL.
test-sqlite: $(VENV)/.installed check chromium redis $(AXE_CORE)
	AXE_CORE=$(AXE_CORE) $(VENV)/bin/pytest

test-postgres: $(VENV)/.installed check redis
	tests/with-postgres.sh $(VENV)/bin/pytest -m "not browser"

test: lint test-sqlite test-postgres

clean:
	rm -rf $(VENV) staticfiles
