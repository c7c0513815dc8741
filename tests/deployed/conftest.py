"""The deployed tier: journeys of readers and editors on the production stack
(tests/deployed/stack.py) with two app machines behind one Varnish, started once per run
of these tests: every journey through Varnish reaches either machine.

It needs varnishd, redis-server and PostgreSQL's initdb; without them it skips, except in
CI (CI=true), where it fails: .ci/run installs them. It brings its own PostgreSQL, so it
runs once in make test, in the PostgreSQL servers' run (marked ``deployed``).
"""

import importlib.util
import shutil

import pytest

from tests.conftest import CI
from tests.deployed.stack import Deployment, copy_of_checkout
from tests.postgres_server import postgres_bin
from tests.varnish.servers import find_varnishd


def missing():
    needs = {
        "varnishd (apt-get install varnish varnish-modules)": find_varnishd(),
        "redis-server (apt-get install redis-server)": shutil.which("redis-server"),
        "initdb (apt-get install postgresql)": postgres_bin(),
        "moto (pip install -e '.[test]')": importlib.util.find_spec("moto"),
    }
    return [name for name, found in needs.items() if not found]


@pytest.fixture(scope="session")
def deployed(tmp_path_factory, production_static):
    absent = missing()
    if absent:
        message = f"the deployed tier needs {', '.join(absent)}"
        if CI:
            pytest.fail(message + " (.ci/run installs them)")
        pytest.skip(message)
    folder = tmp_path_factory.mktemp("deployed")
    second = copy_of_checkout(folder / "machine-b")
    deployment = Deployment(folder, production_static, second=second)
    try:
        yield deployment.start()
    finally:
        deployment.stop()
