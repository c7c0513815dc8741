"""The purge log that carries purges between the processes of one machine when each
keeps its own cache (pagecache.purgelog). Two PurgeLog objects on one file stand for two
processes."""

import pytest

from pagecache import purgelog
from pagecache.purgelog import PurgeLog


class Process:
    def __init__(self, path):
        self.tokens, self.values, self.forgotten = {}, {}, 0
        self.log = PurgeLog(path, self.purge, self.values.__setitem__, self.forget)

    def purge(self, token, keys):
        self.tokens.update(dict.fromkeys(keys, token))

    def forget(self):
        self.forgotten += 1
        self.tokens.clear()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "purges.log"


def test_a_purge_in_one_process_reaches_the_other(path):
    a, b = Process(path), Process(path)
    a.log.purge("t1", {"article:1", "tag:2"})
    b.log.catch_up()
    assert b.tokens == {"article:1": "t1", "tag:2": "t1"}


def test_a_process_does_not_apply_its_own_purges_again(path):
    a = Process(path)
    a.log.purge("t1", {"article:1"})
    a.log.catch_up()
    assert a.tokens == {}


def test_shared_values_arrive_as_written(path):
    a, b = Process(path), Process(path)
    a.log.share("schedule:due", float("inf"))
    a.log.share("nav:tags", [[1, "Python", "python"]])
    b.log.catch_up()
    assert b.values == {"schedule:due": float("inf"), "nav:tags": [[1, "Python", "python"]]}


def test_a_new_process_starts_at_the_end(path):
    Process(path).log.purge("t1", {"article:1"})
    late = Process(path)
    late.log.catch_up()
    assert late.tokens == {}


def test_a_line_still_being_written_waits_for_its_end(path):
    a, b = Process(path), Process(path)
    with open(path, "ab") as log:
        log.write(b"P t1 article:1")
    b.log.catch_up()
    assert b.tokens == {}
    with open(path, "ab") as log:
        log.write(b" article:2\n")
    b.log.catch_up()
    assert b.tokens == {"article:1": "t1", "article:2": "t1"}
    assert a is not None


def test_after_rotation_every_process_forgets_everything(path, monkeypatch):
    a, b = Process(path), Process(path)
    b.tokens["page-built-earlier"] = "old"
    monkeypatch.setattr(purgelog, "MAX_BYTES", 10)
    a.log.purge("t1", {"article:1", "article:2"})
    a.log.purge("t2", {"article:3"})  # past MAX_BYTES: a new file
    b.log.catch_up()
    assert b.forgotten == 1
    assert b.tokens == {"article:3": "t2"}
