"""What the HTTP routes are wired to: one typed object, :class:`Deps`.

Every route module exposes ``routes(deps) -> list[BaseRoute]`` and
:mod:`capicua.server.routes` lists them; the composition root
(:mod:`capicua.server.app`) builds one :class:`Deps` per app. The routes are made
with the app, but the services they use (the store, the tables, the guests…) are
opened when the app starts and closed when it stops (its lifespan), so a handler
reads ``deps.tables`` when a request comes, never when its route is made.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from capicua.server.gateway.limits import Budgets, ClientAddresses, HttpLimits, LocalBudgets
from capicua.server.ports import EventLog, MatchRecords

if TYPE_CHECKING:
    from capicua.server.analyst import Analyst
    from capicua.server.gateway.identity import Guests
    from capicua.server.gateway.sockets import Sockets
    from capicua.server.http.replay import Replays
    from capicua.server.http.static import WebAssets
    from capicua.server.registry import Tables
    from capicua.server.runtime.drain import Drain
    from capicua.store import Store


class Deps:
    """The app's parts as the routes see them.

    Given when the app is made: ``assets`` (the web folder as served), ``limits``
    (the HTTP budgets, counted in ``budgets`` while the app lives) and
    ``body_timeout`` (seconds for a request body to arrive). Set by the lifespan
    when the app starts (reading one before raises :class:`AttributeError`):
    the services below, and ``health``, the state of each part besides the store
    (the bot pools: ``ok`` or ``restarting``)."""

    store: Store
    log: EventLog  # the tables' stored logs (and whether the store can be written)
    records: MatchRecords  # their matches' records
    tables: Tables
    guests: Guests
    analyst: Analyst
    replays: Replays
    sockets: Sockets
    health: Callable[[], dict[str, str]]
    # Readiness (GET /readyz): this process's name in the cluster, its drain, and the
    # checks of what it needs to take traffic (the store; Redis when it uses one).
    node_id: str
    drain: Drain
    ready_checks: dict[str, Callable[[], Awaitable[bool]]]

    def __init__(self, assets: WebAssets, limits: HttpLimits, body_timeout: float) -> None:
        self.assets = assets
        self.limits = limits
        self.body_timeout = body_timeout
        # Counted in this process; in Redis once the app starts in cluster mode (capicua.server.app).
        self.budgets: Budgets = LocalBudgets(limits)
        # Whose address a request is counted on: behind trusted proxies, their X-Forwarded-For.
        self.addresses = ClientAddresses()
