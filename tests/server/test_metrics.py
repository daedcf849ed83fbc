"""``GET /metrics`` (capicua.server.metrics): Prometheus's text format, from the process's
own registry, with the tables it owns, its sockets, the intents they sent and the time
to the frame that answered each; the balancer does not forward it."""

from __future__ import annotations

from typing import Any

import httpx
from conftest import WSClient
from prometheus_client.parser import text_string_to_metric_families


def _samples(base: str) -> dict[str, float]:
    r = httpx.get(base + "/metrics", timeout=10)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    return {s.name: s.value for family in text_string_to_metric_families(r.text) for s in family.samples}


def test_metrics_count_tables_sockets_and_intents(live_server: Any) -> None:
    srv = live_server()
    before = _samples(srv.base)
    t = srv.new_table()
    c = WSClient(srv.ws_url)
    try:
        c.hello(t["table_id"], t["token"])
        c.settle()  # a ping is no intent: the page's keep-alive is not counted
        c.send({"type": "say", "seq": c.seq, "phrase": "agua"})
        c.until(lambda f: f["type"] == "said")
        after = _samples(srv.base)
        assert after["capicua_tables_owned"] >= 1 and after["capicua_sockets"] == 1
        assert after["capicua_intents_total"] == before["capicua_intents_total"] + 1
        waited = after["capicua_intent_frame_seconds_count"] - before["capicua_intent_frame_seconds_count"]
        assert waited == 1
        for name in ("capicua_appends_total", "capicua_fenced_appends_total", "capicua_lease_takeovers_total",
                     "capicua_bot_queue_depth", "capicua_bot_wait_seconds_count", "capicua_store_errors_total",
                     "capicua_redis_errors_total", "capicua_connections_refused_total"):
            assert name in after, name
    finally:
        c.close()


def test_the_balancer_does_not_forward_metrics(tmp_path: Any) -> None:
    from haproxyserver import HaproxyServer
    from serveprocess import ServeProcess

    server = ServeProcess(tmp_path, ["--data-dir", str(tmp_path / "data")])
    balancer = HaproxyServer([server.port])
    try:
        assert httpx.get(server.base + "/metrics", timeout=10).status_code == 200
        assert httpx.get(balancer.base + "/metrics", timeout=10).status_code == 404
    finally:
        balancer.close()
        server.stop()
