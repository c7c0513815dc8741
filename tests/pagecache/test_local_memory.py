"""The local-memory cache (pagecache.backends): text kept as it is, everything else a copy
of what was stored, whatever is done to the value after."""

import pytest

from pagecache.backends import LocalMemoryCache


@pytest.fixture
def cache():
    backend = LocalMemoryCache("test-local-memory", {})
    yield backend
    backend.clear()


def test_a_list_changed_after_it_was_stored_is_read_as_it_was_stored(cache):
    cards = [1, 2]
    cache.set("cards", cards)
    cards.append(3)
    cache.get("cards").append(4)
    assert cache.get("cards") == [1, 2]
    assert cache.get_many(["cards"]) == {"cards": [1, 2]}


def test_text_values_read_back_alike_from_get_and_get_many(cache):
    cache.set_many({"token": "1764770000.000001:abc", "count": 3})
    cache.add("other", "x")
    assert cache.get("token") == "1764770000.000001:abc"
    assert cache.get_many(["token", "count", "other"]) == {
        "token": "1764770000.000001:abc",
        "count": 3,
        "other": "x",
    }


def test_counters_count_and_a_missing_one_is_an_error(cache):
    cache.set("views", 1)
    assert cache.incr("views", 2) == 3
    assert cache.get("views") == 3
    with pytest.raises(ValueError):
        cache.incr("missing")
