"""The server's bounds on what one client may ask of it.

- :class:`SlidingWindow`: at most ``limit`` events in any ``window`` seconds
  (a socket's frames).
- :class:`ClientWindows`: one sliding window per key (a client address, a
  guest), holding at most ``max_clients`` keys so that the limiter itself
  stays small.
- :class:`Budget`: several of those checked together (tables per guest and per
  address): an event is counted in each only when every one allows it.
- :class:`SocketCounts`: how many sockets a key (a client address, a seat)
  holds, refusing one over the cap.
- :class:`BoundedCache`: a least-recently-used cache of at most ``size`` values.
- :func:`client_key`: the address a limit is counted on. IPv6 clients get a
  /64 each (one household or host), since they can pick any address in it.
- :class:`ClientAddresses`: the client's address behind load balancers: the
  ``X-Forwarded-For`` of a connection from a trusted proxy, never of another.
- :class:`Budgets`: the HTTP budgets as the routes use them (async), counted in
  this process (:class:`LocalBudgets`) or, in cluster mode, in the Redis the
  processes share (:class:`capicua.server.adapters.redis_limits.RedisBudgets`),
  so that a limit holds however the balancer spreads a client's requests.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Clock = Callable[[], float]

# The defaults, and why (docs/protocol.md "Limits"). Cuban mobile data and park
# Wi-Fi put many people behind one address (carrier NAT): a limit of a person is
# counted per guest, and the per-address budget only stops a flood of new guests.
TABLES_PER_GUEST = (20, 600.0)  # a person opens a table every few minutes at most
TABLES_PER_ADDRESS = (300, 600.0)  # 15 busy guests' worth, or 100 people's few each, per address
GUESTS_PER_ADDRESS = (120, 600.0)  # new guests (a browser's first visit) per address
# "Llévate tu jugador": keys a player makes (a few phones, a retry or two), and keys made or
# used from one address (every try counts: a flood of guesses stops here, whatever it guesses).
KEYS_PER_GUEST = (6, 600.0)
KEYS_PER_ADDRESS = (60, 600.0)
SEARCHES_PER_GUEST = (30, 60.0)  # player searches (Gente): a person types a few names a minute
QUEUE_PER_GUEST = (12, 60.0)  # turns in the parque's queue (joined or left): a person's few tries a minute
SOCKETS_PER_GUEST = 16  # a guest's tabs at every table together (4 at one table)
SOCKETS_PER_ADDRESS = 256  # a hotspot's players and watchers
# Sockets that have not said hello yet, in the whole process: past this the oldest
# is closed, so silent sockets (a flood, or stalled clients) hold at most a tenth of
# the process's 10,000 connections and never lock out the pages and the API.
SILENT_SOCKETS = 1000


@dataclass(frozen=True)
class HttpLimits:
    """The HTTP API's budgets, each ``(events, seconds)``: tables opened per guest and
    per address, guests created per address."""

    tables_per_guest: tuple[int, float] = TABLES_PER_GUEST
    tables_per_address: tuple[int, float] = TABLES_PER_ADDRESS
    guests_per_address: tuple[int, float] = GUESTS_PER_ADDRESS
    keys_per_guest: tuple[int, float] = KEYS_PER_GUEST
    keys_per_address: tuple[int, float] = KEYS_PER_ADDRESS
    searches_per_guest: tuple[int, float] = SEARCHES_PER_GUEST
    queue_per_guest: tuple[int, float] = QUEUE_PER_GUEST


class SlidingWindow:
    """At most ``limit`` events in any ``window`` seconds."""

    def __init__(self, limit: int, window: float, clock: Clock = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.clock = clock
        self.times: deque[float] = deque()

    def _expire(self, now: float) -> None:
        while self.times and now - self.times[0] >= self.window:
            self.times.popleft()

    def wait(self) -> float | None:
        """``None`` when one more event is allowed now, else the seconds until one would be
        (nothing counted)."""
        now = self.clock()
        self._expire(now)
        if len(self.times) >= self.limit:
            return max(0.0, self.times[0] + self.window - now)
        return None

    def take(self) -> float | None:
        """Count one event now: ``None`` when allowed, else the seconds until one would be."""
        wait = self.wait()
        if wait is None:
            self.times.append(self.clock())
        return wait

    def allow(self) -> bool:
        return self.take() is None

    def idle(self) -> bool:
        self._expire(self.clock())
        return not self.times


class ClientWindows:
    """One :class:`SlidingWindow` per client, for at most ``max_clients`` clients.

    When a new client would exceed ``max_clients``, idle windows are dropped
    first, then the least recently used one (whose client then starts afresh:
    a bound on memory matters more than on a client that many others push out).
    """

    def __init__(self, limit: int, window: float, max_clients: int = 10_000, clock: Clock = time.monotonic) -> None:
        self.limit = limit
        self.window = window
        self.max_clients = max_clients
        self.clock = clock
        self.windows: OrderedDict[str, SlidingWindow] = OrderedDict()

    def _window(self, key: str) -> SlidingWindow:
        found = self.windows.get(key)
        if found is not None:
            self.windows.move_to_end(key)
            return found
        if len(self.windows) >= self.max_clients:
            for idle in [k for k, w in self.windows.items() if w.idle()]:
                del self.windows[idle]
            while len(self.windows) >= self.max_clients:
                self.windows.popitem(last=False)
        made = SlidingWindow(self.limit, self.window, self.clock)
        self.windows[key] = made
        return made

    def take(self, key: str) -> float | None:
        """Count one event of ``key``: ``None`` when allowed, else the seconds to wait."""
        return self._window(key).take()

    def wait(self, key: str) -> float | None:
        """The seconds ``key`` must wait for one more event (``None``: none), nothing counted."""
        found = self.windows.get(key)
        return None if found is None else found.wait()


@dataclass(frozen=True)
class Refusal:
    """Why a :class:`Budget` refused: the limit's words and the seconds to wait."""

    what: str
    wait: float


class Budget:
    """Named limits, each one :class:`ClientWindows`, checked together: :meth:`take`
    counts an event in every one of them only when each allows it, so a refused
    request costs no limit anything."""

    def __init__(self, clock: Clock = time.monotonic, **rates: tuple[int, float]) -> None:
        self.rates = rates
        self.windows = {name: ClientWindows(limit, window, clock=clock) for name, (limit, window) in rates.items()}

    def take(self, keys: dict[str, str]) -> Refusal | None:
        """Count one event of ``keys`` (limit name → key): ``None`` when every limit allows
        it, else the :class:`Refusal` of the one that waits longest (nothing counted)."""
        waits = [(w, name) for name, key in keys.items() if (w := self.windows[name].wait(key)) is not None]
        if waits:
            wait, name = max(waits)
            return Refusal(name, wait)
        for name, key in keys.items():
            self.windows[name].take(key)
        return None


class SocketCounts:
    """How many sockets each key holds, at most ``cap`` each."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.counts: dict[Hashable, int] = {}

    def add(self, key: Hashable) -> bool:
        """Count one more socket for ``key``; False (and nothing counted) at the cap."""
        held = self.counts.get(key, 0)
        if held >= self.cap:
            return False
        self.counts[key] = held + 1
        return True

    def remove(self, key: Hashable) -> None:
        held = self.counts.get(key, 0) - 1
        if held > 0:
            self.counts[key] = held
        else:
            self.counts.pop(key, None)


def client_key(client: Any) -> str:
    """The key limits are counted on for an ASGI ``client`` (``(host, port)`` or None)."""
    host = client[0] if client else None
    if not isinstance(host, str) or not host:
        return "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:  # a name, not an address (a test client, a unix socket): counted as it is
        return host[:64]
    if address.version == 6:
        mapped = address.ipv4_mapped
        if mapped is not None:
            return str(mapped)
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


class ClientAddresses:
    """The key a client's limits count on, seen through ``trusted`` proxies (addresses
    or networks: ``127.0.0.1``, ``10.0.0.0/8``).

    A connection from a trusted proxy is counted on the address the proxy names in a
    PROXY protocol header (:mod:`capicua.server.runtime.proxyproto`), or else on the
    address the proxies say (``X-Forwarded-For``, read from the right: the nearest hop
    that is not itself a trusted proxy is the client); a connection from anyone else on its own
    address, whatever headers it sends, since a client may write any
    ``X-Forwarded-For`` it likes."""

    def __init__(self, trusted: Iterable[str] = ()) -> None:
        self.trusted: tuple[Network, ...] = tuple(ipaddress.ip_network(t.strip(), strict=False) for t in trusted)
        # The connections whose trusted proxy named their client in a PROXY header
        # (capicua.server.runtime.proxyproto): the proxy's (host, port) → the client's host.
        self.proxied: dict[tuple[str, int], str] = {}

    def is_trusted(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if address.version == 6 and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return any(address in network for network in self.trusted)

    def key(self, client: Any, forwarded: Sequence[str] = ()) -> str:
        """The key of an ASGI ``client`` whose request said ``forwarded`` (its
        ``X-Forwarded-For`` headers, in order: ``request.headers.getlist(...)``)."""
        host = client[0] if client else None
        if not self.trusted or not isinstance(host, str) or not self.is_trusted(host):
            return client_key(client)
        said = self.proxied.get((host, client[1])) if self.proxied else None
        if said is not None:  # the proxy's PROXY header named it: what it sends in headers is not read
            return client_key((said, 0))
        hops = [hop.strip() for value in forwarded for hop in value.split(",") if hop.strip()]
        for hop in reversed(hops):
            if not self.is_trusted(hop):
                return client_key((hop, 0))
        return client_key((hops[0], 0)) if hops else client_key(client)


class Budgets(Protocol):
    """The HTTP budgets (:class:`HttpLimits`) as the routes count them."""

    limits: HttpLimits

    async def take(self, keys: dict[str, str]) -> Refusal | None:
        """As :meth:`Budget.take`: every limit of ``keys`` counted, or none and the refusal."""

    async def count(self, name: str, key: str) -> None:
        """Count one event of ``key`` in limit ``name``, whatever its budget says."""


def budget_rates(limits: HttpLimits) -> dict[str, tuple[int, float]]:
    return {"tables_per_guest": limits.tables_per_guest, "tables_per_address": limits.tables_per_address,
            "guests_per_address": limits.guests_per_address,
            "keys_per_guest": limits.keys_per_guest, "keys_per_address": limits.keys_per_address, "searches_per_guest": limits.searches_per_guest,
            "queue_per_guest": limits.queue_per_guest}


class LocalBudgets:
    """The budgets of one process (a :class:`Budget`): ``make run``, or a cluster without Redis."""

    def __init__(self, limits: HttpLimits, clock: Clock = time.monotonic) -> None:
        self.limits = limits
        self.budget = Budget(clock, **budget_rates(limits))

    async def take(self, keys: dict[str, str]) -> Refusal | None:
        return self.budget.take(keys)

    async def count(self, name: str, key: str) -> None:
        self.budget.windows[name].take(key)


def retry_after(seconds: float) -> str:
    """A ``Retry-After`` header value: whole seconds, at least one."""
    return str(max(1, math.ceil(seconds)))


class BoundedCache:
    """At most ``size`` values, the least recently used dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        found = self.items.get(key)
        if found is not None:
            self.items.move_to_end(key)
        return found

    def put(self, key: Hashable, value: Any) -> None:
        self.items[key] = value
        self.items.move_to_end(key)
        while len(self.items) > self.size:
            self.items.popitem(last=False)
