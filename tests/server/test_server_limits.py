"""capicua.server.gateway.limits with a fake clock: sliding windows, one window per
client in bounded memory, socket counts, the client key, the bounded cache."""

from __future__ import annotations

from capicua.server.gateway.limits import (
    BoundedCache,
    ClientWindows,
    SlidingWindow,
    SocketCounts,
    client_key,
    retry_after,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_sliding_window_says_how_long_to_wait() -> None:
    clock = FakeClock()
    w = SlidingWindow(2, 10.0, clock)
    assert w.take() is None
    clock.now += 4
    assert w.take() is None
    assert w.take() == 6.0  # the first event leaves the window in 6 s
    clock.now += 6
    assert w.take() is None  # now it has
    assert not w.allow()
    clock.now += 100
    assert w.idle()


def test_each_client_has_its_own_window_and_the_clients_are_bounded() -> None:
    clock = FakeClock()
    windows = ClientWindows(1, 60.0, max_clients=3, clock=clock)
    assert windows.take("a") is None and windows.take("b") is None
    assert windows.take("a") == 60.0 and windows.take("b") == 60.0
    windows.take("c")
    windows.take("d")  # a fourth client pushes out the least recently used one ("a")
    assert len(windows.windows) == 3 and "a" not in windows.windows
    clock.now += 61  # every window is idle now: a new client drops them all first
    windows.take("e")
    assert list(windows.windows) == ["e"]


def test_socket_counts_refuse_over_the_cap_and_forget_empty_keys() -> None:
    counts = SocketCounts(2)
    assert counts.add("x") and counts.add("x") and not counts.add("x")
    assert counts.add("y")
    counts.remove("x")
    assert counts.add("x")
    for _ in range(2):
        counts.remove("x")
    counts.remove("y")
    assert counts.counts == {}


def test_the_client_key() -> None:
    assert client_key(("203.0.113.7", 5000)) == "203.0.113.7"
    # An IPv6 client can use any address of its /64: they count as one.
    assert client_key(("2001:db8:1:2::1", 1)) == client_key(("2001:db8:1:2:ffff::9", 2)) == "2001:db8:1:2::/64"
    assert client_key(("2001:db8:1:3::1", 1)) != client_key(("2001:db8:1:2::1", 1))
    assert client_key(("::ffff:203.0.113.7", 1)) == "203.0.113.7"
    assert client_key(None) == "unknown" and client_key(("", 0)) == "unknown"
    assert client_key(("unix-socket-name", 0)) == "unix-socket-name"


def test_retry_after_is_whole_seconds_at_least_one() -> None:
    assert retry_after(0.0) == "1" and retry_after(0.2) == "1" and retry_after(59.01) == "60"


def test_the_bounded_cache_drops_the_least_recently_used() -> None:
    cache = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert cache.get("b") is None and cache.get("a") == 1 and cache.get("c") == 3
