"""Issue 21, item 13, on the page: "Siguiente mano" counts down the wait between
hands when the table deals by itself (TABLE.deadline ``for: "next_hand"``), the
host of a private table who is ready gets "Repartir ya" (``deal_now``), and every
countdown starts from what the server had ``left`` (not in full after a reconnect)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import test_web_static as web
from test_web_static import SEATS, mid_view, open_table, shot, tranque_view
from webfake import push, sent, table_frame, table_state

server, base_url, browser = web.server, web.base_url, web.browser
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("web")]
SHOTS = Path("/work/shots/H1b")
AT = 1_700_000_000_000


def hand_over_table(host: bool, left: int) -> dict[str, Any]:
    return table_state(SEATS, private=host, host_seat=0 if host else None, settings={"grace": 30, "turn_timer": 15},
                       deadline={"for": "next_hand", "seat": None, "at": AT, "ms": 30_000, "left": left})


def keep(page: Any, name: str) -> None:
    shot(page, name)
    SHOTS.mkdir(parents=True, exist_ok=True)
    shutil.copy(web.ARTIFACTS / name, SHOTS / name)


@pytest.mark.parametrize("width", [1280, 360])
def test_next_hand_counts_down_and_the_host_may_deal_now(browser: Any, base_url: str, width: int) -> None:
    ctx, page = open_table(browser, base_url, width=width, height=800 if width > 400 else 740, view=tranque_view(),
                           table=hand_over_table(host=True, left=20_000))
    try:
        button = page.locator('[data-testid="next-hand"]')
        button.wait_for(state="visible", timeout=5000)
        ring = button.locator('[data-testid="next-countdown"]')
        assert 15 <= int(ring.get_attribute("data-seconds") or 0) <= 20  # from `left`, not the whole 30 s
        assert page.locator('[data-testid="deal-now"]').count() == 0 or page.locator('[data-testid="deal-now"]').is_hidden()
        keep(page, f"handover-countdown-{width}.png")
        button.click()
        assert {"type": "next_hand", "seq": 17} in sent(page)
        deal = page.locator('[data-testid="deal-now"]')
        deal.wait_for(state="visible", timeout=5000)
        assert deal.inner_text() == "Repartir ya"
        assert button.locator('[data-testid="next-countdown"]').is_visible()  # waiting, still counting
        web.assert_no_hscroll(page, width)
        keep(page, f"handover-host-deal-now-{width}.png")
        deal.click()
        assert {"type": "deal_now", "seq": 17} in sent(page)
        assert not page.errors  # type: ignore[attr-defined]
    finally:
        ctx.close()


def test_a_player_who_is_not_the_host_only_waits(browser: Any, base_url: str) -> None:
    ctx, page = open_table(browser, base_url, view=tranque_view(), table=hand_over_table(host=False, left=30_000))
    try:
        button = page.locator('[data-testid="next-hand"]')
        button.wait_for(state="visible", timeout=5000)
        button.click()
        page.wait_for_function("document.querySelector('[data-testid=next-hand]').disabled")
        assert page.locator('[data-testid="deal-now"]').count() == 0
        # Without a turn timer there is no countdown: the table waits for "Siguiente mano".
        push(page, table_frame(17, table_state(SEATS)))
        page.wait_for_function("!document.querySelector('[data-testid=next-countdown]')")
    finally:
        ctx.close()


def test_a_turn_countdown_starts_from_what_was_left(browser: Any, base_url: str) -> None:
    table = table_state(SEATS, settings={"grace": 30, "turn_timer": 15},
                        deadline={"for": "turn", "seat": 0, "at": AT, "ms": 15_000, "left": 6_000})
    ctx, page = open_table(browser, base_url, view=mid_view(), table=table)
    try:
        mine = page.locator('[data-testid="my-countdown"]')
        mine.wait_for(timeout=5000)
        assert int(mine.get_attribute("data-seconds") or 99) <= 6  # a reconnect mid-turn: 6 s left, not 15
    finally:
        ctx.close()
