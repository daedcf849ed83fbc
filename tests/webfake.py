"""The fake websocket the page's browser tests drive, and the frames they push through it.

``FAKE_WS`` is an init script (``BrowserContext.add_init_script``): it replaces
``window.WebSocket`` with a class that records what the page sends
(``window.__sent``) and lets the test deliver frames (``window.__push``) or drop
the socket (``window.__drop``). Nothing test-only ships in the page itself.

The frames are built by the server's own builders (capicua.table.protocol)
and the TABLE's seats by the server's own ``Seat.public``, so a test pushes
exactly the shapes of protocol version 2 and follows them when they change.
"""

from __future__ import annotations

from typing import Any

from capicua.engine import make_rules
from capicua.table import protocol
from capicua.table.protocol import Code
from capicua.table.seating import BOT, HUMAN, Seat

FAKE_WS = """
(() => {
  window.__sent = [];
  window.__sockets = [];
  class FakeWS {
    constructor(url) {
      this.url = url; this.readyState = 0;
      this.onopen = null; this.onmessage = null; this.onclose = null; this.onerror = null;
      window.__sockets.push(this);
      setTimeout(() => { this.readyState = 1; if (this.onopen) this.onopen({ type: 'open' }); }, 5);
    }
    send(data) { window.__sent.push(JSON.parse(data)); }
    close() {
      if (this.readyState === 3) return;
      this.readyState = 3;
      setTimeout(() => { if (this.onclose) this.onclose({ code: 1000 }); }, 0);
    }
  }
  FakeWS.CONNECTING = 0; FakeWS.OPEN = 1; FakeWS.CLOSING = 2; FakeWS.CLOSED = 3;
  window.WebSocket = FakeWS;
  window.__push = (obj) => {
    const s = window.__sockets[window.__sockets.length - 1];
    s.onmessage({ data: JSON.stringify(obj) });
  };
  window.__drop = () => {
    const s = window.__sockets[window.__sockets.length - 1];
    s.readyState = 3;
    if (s.onclose) s.onclose({ code: 1006 });
  };
  localStorage.setItem('capicua.token', 'tok123');  // this browser's one guest token (capicua/web/js/guest.js)
})();
"""

TABLE_ID = "t_test"


# --------------------------------------------------------------------------- the TABLE


def human(seat: int, name: str, connected: bool = True) -> dict[str, Any]:
    """A player's seat as every client sees it."""
    return Seat(seat, HUMAN, name, online=connected).public()


def neighbour(seat: int, name: str, character: str | None, level: str = "medio") -> dict[str, Any]:
    """A neighbour's (bot's) seat as every client sees it: its character's tagline and avatar too."""
    return Seat(seat, BOT, name, level=level, character=character).public()


def table_state(
    seats: list[dict[str, Any]], preset: str = "cubano", options: dict[str, Any] | None = None, **changes: Any
) -> dict[str, Any]:
    """The TABLE of ``welcome`` and ``table`` frames (TableCore.table_state): a public
    table being played, with no host, watchers or turn timer unless ``changes`` say so."""
    table: dict[str, Any] = {
        "id": TABLE_ID,
        "preset": preset,
        "rules": make_rules(preset, **(options or {})).describe(),
        "private": False,
        "status": "playing",
        "host_seat": None,
        "seats": seats,
        "watchers": 0,
        "settings": {"grace": 30, "turn_timer": 0},
        "match_number": 1,
        "deadline": None,
    }
    unknown = set(changes) - set(table)
    assert not unknown, f"not a TABLE field: {unknown}"
    table.update(changes)
    return table


# --------------------------------------------------------------------------- frames


def welcome_frame(seat: int | None, table: dict[str, Any]) -> dict[str, Any]:
    return protocol.welcome_frame(seat, table)


def sync_frame(seq: int, view: dict[str, Any]) -> dict[str, Any]:
    return protocol.sync_frame(seq, view)


def events_frame(first_seq: int, events: list[dict[str, Any]], view: dict[str, Any], replayed: bool = False) -> dict[str, Any]:
    """One change of the table: ``events`` numbered from ``first_seq``, and the view after all of them."""
    assert events, "a change has at least one event"
    return protocol.batch_frame(list(enumerate(events, start=first_seq)), view, replayed)


def table_frame(seq: int, table: dict[str, Any]) -> dict[str, Any]:
    return protocol.table_frame(seq, table)


def said_frame(seq: int, seat: int, es: str, en: str, *, name: str, phrase: str, by: str = "neighbour") -> dict[str, Any]:
    """Something said at the table; for a neighbour (``by="neighbour"``) ``phrase`` is the moment."""
    return protocol.said_frame(seq, seat, phrase, es, en, by, name)


def paused_frame(paused: bool) -> dict[str, Any]:
    return protocol.paused_frame(paused)


def error_frame(code: str, message: str, seq: int | None) -> dict[str, Any]:
    """An error frame; a code the server does not have (yet) stands for one of a newer server."""
    known = code in {c.value for c in Code}
    frame = protocol.error_frame(Code(code) if known else Code.INTERNAL, message, seq)
    if not known:
        frame["code"] = code
    return frame


# --------------------------------------------------------------------------- the page's socket


def push(page: Any, frame: dict[str, Any]) -> None:
    """Deliver ``frame`` to the page, as its socket's next message."""
    page.evaluate("(f) => window.__push(f)", frame)


def push_together(page: Any, frames: list[dict[str, Any]]) -> None:
    """Deliver ``frames`` one after the other in one task (they arrive together)."""
    page.evaluate("(fs) => fs.forEach((f) => window.__push(f))", frames)


def sent(page: Any) -> list[dict[str, Any]]:
    """Every frame the page has sent, in order."""
    frames: list[dict[str, Any]] = page.evaluate("window.__sent")
    return frames
