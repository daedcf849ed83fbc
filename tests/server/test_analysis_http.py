"""GET /api/analysis/{table_id}/{match_number} on a live server: pending while the
hand that just ended is being analysed, then ready with the same analysis the
pure function gives, computed in the bot pool; coded errors for the rest."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

from conftest import drive

from capicua.bots import analysis
from capicua.server.analyst import choices
from capicua.store import analyses as stored
from capicua.table.log import read_log


class GatedPool(Executor):
    """The bot pool, but nothing starts before ``gate`` opens (so the test sees
    the analysis pending for certain)."""

    def __init__(self, pool: Executor, gate: threading.Event) -> None:
        self.pool = pool
        self.gate = gate
        self.waiter = ThreadPoolExecutor(max_workers=1)
        self.jobs = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.jobs += 1

        def later() -> Any:
            self.gate.wait(120)
            return self.pool.submit(fn, *args, **kwargs).result()

        return self.waiter.submit(later)


def hand_ended(f: dict[str, Any]) -> bool:
    return f.get("type") == "events" and any(e["event"]["kind"] == "hand_end" for e in f["events"])


def test_analysis_is_pending_then_ready_after_a_hand(live_server: Any, bot_pool: Any) -> None:
    srv = live_server()
    table, token = srv.table_with_seed("an-live-1")
    gate = threading.Event()
    gated = GatedPool(bot_pool, gate)
    srv.app.state.deps.analyst.executor = gated
    assert srv.get(f"/api/analysis/{table}/1").json() == {"status": "ready", "hands": []}  # nothing ended yet

    c = srv.client()
    assert c.hello(table, token)["type"] == "welcome"
    drive(c, hand_ended)
    # The shell told the analyst in the step that ended the hand, before its frames went out.
    assert (table, 1, 1) in srv.app.state.deps.analyst.queued
    pending = srv.get(f"/api/analysis/{table}/1")
    assert pending.status_code == 200 and pending.json() == {"status": "pending", "hands": []}

    gate.set()
    start = time.monotonic()
    body: dict[str, Any] = {}
    for _ in range(600):  # a guard against a hang, not a timed assertion
        body = srv.get(f"/api/analysis/{table}/1").json()
        if body["status"] == "ready":
            break
        time.sleep(0.05)
    print(f"ready {time.monotonic() - start:.2f} s after the pool was free; {gated.jobs} jobs")
    assert body["status"] == "ready"
    inputs = stored.inputs(srv.app.state.deps.store, table, 1)
    assert inputs is not None and inputs.record is not None
    by = [b for _, b in choices(read_log(inputs.entries), 1)[1]]
    want = analysis.analyse_hand(inputs.record, 1, [0], table=table, match=1, chosen_by=by)
    assert body["hands"] == want
    assert want[0]["decisions"] and gated.jobs == 1  # the whole hand is one job of the analysis pool
    c.close()


def test_analysis_refusals_are_coded(live_server: Any) -> None:
    srv = live_server()
    table, _ = srv.table_with_seed("an-live-2")
    cases = {
        "/api/analysis/t_nosuchtable/1": (404, "unknown_table"),
        f"/api/analysis/{table}/2": (404, "unknown_match"),
        f"/api/analysis/{table}/uno": (400, "malformed"),
        f"/api/analysis/{table}/0": (400, "malformed"),
        f"/api/analysis/{table}/%C2%B2": (400, "malformed"),
        "/api/analysis/t%20bad/1": (404, "unknown_table"),
    }
    for path, (status, code) in cases.items():
        r = srv.get(path)
        assert (r.status_code, r.json()["error"]["code"]) == (status, code), path
        assert "Traceback" not in r.text
