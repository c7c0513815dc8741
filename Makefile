# Skillo: `make run` serves the site with demo content, `make test` runs every check.
SHELL := /bin/bash
PYTHON_VERSION := $(shell cat .python-version)
PYENV_ROOT ?= $(shell pyenv root 2>/dev/null || echo $(HOME)/.pyenv)
BASE_PYTHON ?= $(PYENV_ROOT)/versions/$(PYTHON_VERSION)/bin/python
VENV := .venv
PY := $(VENV)/bin/python
AXE_VERSION := 4.14.1
AXE_CORE := $(VENV)/axe/node_modules/axe-core/axe.min.js

.PHONY: run test lint check test-sqlite test-postgres chromium clean

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

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

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

$(AXE_CORE):
	npm install --silent --no-save --no-package-lock --no-audit --no-fund \
	  --prefix $(VENV)/axe axe-core@$(AXE_VERSION)

# The whole suite on SQLite, browser tests included; then everything but the browser
# tests again on PostgreSQL.
test-sqlite: $(VENV)/.installed check chromium $(AXE_CORE)
	AXE_CORE=$(AXE_CORE) $(VENV)/bin/pytest

test-postgres: $(VENV)/.installed check
	tests/with-postgres.sh $(VENV)/bin/pytest -m "not browser"

test: lint test-sqlite test-postgres

clean:
	rm -rf $(VENV) staticfiles
