"""Fast-paced animation (issue 21, item 10): when moves come faster than they
can be shown (neighbours with no delay, automatic passes, chains of draws),
nothing is shown before the tile it follows has landed, and nothing piles up
over the seats' names.

A driven table: a whole hand of the real engine, every seat choosing at once
(seeded), sent to the page as the server batches it (a move and what follows
it automatically), each frame a few milliseconds after the last — far faster
than the page's effects. The page is sampled by a MutationObserver on every
change: which board tiles are still in the air (hidden, waiting for their
flight), which stamps are at each seat, which open-end badges show, where
each stamp sits once it has landed. Chromium at 1280 and 360 px; screenshots
go to artifacts/.
"""

# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)
from __future__ import annotations

import json
import random
from typing import Any

import pytest
from test_web_static import base_url, browser, server, shot  # noqa: F401  (fixtures)
from webfake import (
    FAKE_WS,
    events_frame,
    human,
    neighbour,
    push,
    sync_frame,
    table_state,
    welcome_frame,
)

from capicua.engine import Match, make_rules

WAIT_MS = 120_000  # a guard against a page that never gets there, not a timed assertion
SAMPLER = """
(() => {
  const rec = window.__fx = { banners: [], maxStack: 0, overNames: [], earlyBadges: [] };
  const box = (e) => e.getBoundingClientRect();
  const overlap = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const inAir = () => [...document.querySelectorAll('[data-testid="board"] .line .tile')]
    .filter((g) => g.style.visibility === 'hidden').map((g) => g.dataset.key);
  // The tile that made an end what its badge says: the last on its line, else where the line starts.
  function maker(badge) {
    const tiles = [...document.querySelectorAll(`[data-testid="board"] .line .tile[data-arm="${badge.dataset.end}"]`)];
    tiles.sort((x, y) => Number(x.dataset.index) - Number(y.dataset.index));
    if (tiles.length) return tiles[tiles.length - 1].dataset.key;
    const centre = document.querySelector('[data-testid="board"] .line .tile[data-center="true"]');
    return centre ? centre.dataset.key : null;
  }
  function sample() {
    for (const seat of document.querySelectorAll('[data-testid="seat"]')) {
      const n = seat.querySelectorAll('.sbanner:not(.sbanner--out)').length;
      rec.maxStack = Math.max(rec.maxStack, n);
    }
    const air = new Set(inAir());
    for (const badge of document.querySelectorAll('[data-testid="board"] .end-badge')) {
      if (getComputedStyle(badge).visibility === 'hidden') continue;
      const key = maker(badge);
      if (air.has(key)) rec.earlyBadges.push({ end: badge.dataset.end, value: badge.dataset.value, key });
    }
  }
  new MutationObserver((muts) => {
    for (const m of muts) for (const n of m.addedNodes) {
      if (n.nodeType !== 1 || !n.matches('[data-testid="banner"]')) continue;
      rec.banners.push({ kind: n.dataset.kind, seat: n.dataset.seat ?? null, inAir: inAir(),
                         flying: document.querySelectorAll('[data-testid="flyer"][data-kind="play"]').length });
      if (!n.classList.contains('sbanner')) continue;
      setTimeout(() => {  // once its stamp has landed (its entrance starts at twice its size)
        if (!n.isConnected || n.classList.contains('sbanner--out')) return;
        for (const name of document.querySelectorAll('[data-testid="seat-name"]')) {
          if (overlap(box(n), box(name))) rec.overNames.push({ kind: n.dataset.kind, seat: n.dataset.seat, name: name.textContent });
        }
      }, 420);
    }
    sample();
  }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class'] });
})();
"""


def driven_hand(preset: str, seed: str, seat: int | None) -> tuple[dict[str, Any], list[dict[str, Any]], list[dict[str, Any]]]:
    """A hand of the real engine, every move chosen at once: the view before it (for `seat`,
    None for a watcher), its frames as the server batches them, and its events in order."""
    m = Match(make_rules(preset), seed)
    rng = random.Random(seed)
    before = json.loads(json.dumps(m.view(seat)))
    frames: list[dict[str, Any]] = []
    events: list[dict[str, Any]] = []
    seq = 1

    def batch(evs: list[dict[str, Any]]) -> None:
        nonlocal seq
        evs = [dict(e, by="auto") if e["kind"] in ("pass", "draw") else e for e in evs]
        frames.append(events_frame(seq, evs, json.loads(json.dumps(m.view(seat)))))
        seq += len(evs)
        events.extend(evs)

    batch(m.start_hand(frozenset({seat} if seat is not None else set())))
    while m.phase in ("play", "redeal_question"):
        turn = m.turn
        assert turn is not None
        batch(m.apply(turn, rng.choice(m.legal_moves())))
    return before, frames, events


def played_before(events: list[dict[str, Any]], index: int) -> set[str]:
    return {"-".join(map(str, sorted(e["tile"]))) for e in events[:index] if e["kind"] == "play"}


@pytest.mark.parametrize("preset,seed,seat,width,height", [
    ("all-fives", "fast-s1", None, 1280, 800),  # a watcher: scores (+10), chains of draws, passes
    ("cubano", "fast-s2", 0, 360, 740),  # a player on a phone: automatic passes, the hand's end
])
def test_fast_moves_land_before_their_stamps_and_never_pile_over_names(browser, base_url, preset, seed, seat, width, height):
    before, frames, events = driven_hand(preset, seed, seat)
    kinds = {e["kind"] for e in events}
    assert "pass" in kinds or "draw" in kinds
    seats = [human(0, "Ana") if seat == 0 else neighbour(0, "Mima", "mima"), neighbour(1, "Pancho", "pancho"),
             neighbour(2, "Cuca", "cuca"), neighbour(3, "Chucho", "chucho")]
    ctx = browser.new_context(viewport={"width": width, "height": height})
    ctx.add_init_script(FAKE_WS)
    ctx.add_init_script(SAMPLER)
    try:
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{base_url}/t/t_test" + ("?mirar=1" if seat is None else ""))
        page.wait_for_function("window.__sent && window.__sent.length > 0")
        push(page, welcome_frame(seat, table_state(seats, preset=preset)))
        push(page, sync_frame(0, before))
        # The whole hand, a frame every 3 ms: every move arrives within the first one's animation.
        page.evaluate("(fs) => fs.forEach((f, i) => setTimeout(() => window.__push(f), 1 + 3 * i))", frames)
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=WAIT_MS)
        rec = page.evaluate("window.__fx")
        counts = {k: sum(1 for e in events if e["kind"] == k) for k in sorted(kinds)}
        print(f"\n{preset} at {width} px: {len(frames)} frames, events {counts}, banners {len(rec['banners'])}")
        # Every stamp and banner is shown, each after every tile played before its event has landed.
        seen: dict[str, int] = {}
        for b in rec["banners"]:
            kind = b["kind"]
            if kind == "hand":
                continue
            at = [i for i, e in enumerate(events) if e["kind"] == kind]
            n = seen.get(kind, 0)
            seen[kind] = n + 1
            assert n < len(at), f"a {kind} banner with no {kind} event"
            early = set(b["inAir"]) & played_before(events, at[n])
            assert not early, f"{kind} at seat {b['seat']} shown while {sorted(early)} was still in the air"
            assert b["flying"] == 0, f"{kind} at seat {b['seat']} shown while a tile was flying"
        for kind in ("pass", "score", "draw", "domino", "tranque", "capicua"):
            assert seen.get(kind, 0) == counts.get(kind, 0), (kind, seen, counts)
        # One stamp at a seat at a time, never over a seat's name.
        assert rec["maxStack"] <= 1, rec["maxStack"]
        assert rec["overNames"] == [], rec["overNames"][:5]
        # An open end's number shows once the tile that made it has landed, not while it flies in.
        assert rec["earlyBadges"] == [], rec["earlyBadges"][:5]
        shot(page, f"fast-{preset}-{width}.png")
        assert errors == []
    finally:
        ctx.close()
