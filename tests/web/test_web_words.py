"""Words at the table (issue 21, item 8): phrases that agree with anyone at the
table, no seña in the palette, no "mirón" for a seated newcomer, no emoji
repeated as its own subtitle, ends said by their number ("al 5", "al doble 6"),
"1 punto" in the singular, the viajera told for any target, an English browser
in English, and "Nosotros" first in the header from every seat.

The catalogue checks read the server's data; the page checks push frames of
protocol version 2 through the fake websocket of tests/webfake.py (Chromium at
1280 and 360 px). Screenshots go to artifacts/.
"""

# ruff: noqa: F811  (the browser fixtures are imported from test_web_static and requested by name)
from __future__ import annotations

import re
from typing import Any

import pytest
from tablesim import Sim
from test_server_neighbours import FEMININE, MASCULINE
from test_table_core import refused
from test_web_static import (  # noqa: F401  (browser, base_url, server are fixtures)
    SEATS,
    assert_no_hscroll,
    base_url,
    base_view,
    browser,
    match_over_view,
    server,
    shot,
    tranque_view,
)
from webfake import FAKE_WS, events_frame, push, said_frame, sync_frame, table_state, welcome_frame

from capicua.standings.achievements import BY_ID as ACHIEVEMENTS
from capicua.standings.levels import LEVELS
from capicua.table import protocol
from capicua.table.phrases import PHRASES, catalogue
from capicua.table.protocol import Code

# A phrase that tells a partner something of the speaker's hand ("¡Qué data más fea!").
HAND_TALK = re.compile(r"\b(data|fichas?|llevo|tengo|gorda|mano|hand|tiles?|holding|hold)\b", re.IGNORECASE)


# --------------------------------------------------------------------------- the catalogues


def test_player_phrases_agree_with_anyone_at_the_table() -> None:
    """Guests' genders are not known: no phrase says "caballeros" to three women, or "compañero"."""
    for pid, (es, en) in PHRASES.items():
        for words in (MASCULINE, FEMININE):
            assert not words.search(es) and not words.search(en), (pid, es, en)


def test_the_palette_holds_no_sena_and_the_server_refuses_the_old_one() -> None:
    for pid, (es, en) in PHRASES.items():
        assert not HAND_TALK.search(es) and not HAND_TALK.search(en), (pid, es, en)
    assert "data_fea" not in {p["id"] for p in catalogue()}
    sim = Sim()
    sim.join(1, "p_ana", "Ana")
    refused(sim, 1, protocol.Say("data_fea"), Code.MALFORMED)


def test_the_hand_check_can_fail() -> None:
    assert HAND_TALK.search("¡Qué data más fea!") and HAND_TALK.search("What an ugly hand!")
    assert MASCULINE.search("¡Buenas, caballeros!") and MASCULINE.search("Buena, compañero.")


def test_an_emoji_is_not_its_own_subtitle() -> None:
    emoji = {pid: p for pid, p in PHRASES.items() if pid.startswith("emoji_")}
    assert emoji
    for pid, (es, en) in emoji.items():
        assert es and en != es, pid


def test_a_seated_newcomer_is_not_a_miron() -> None:
    assert LEVELS[0].number == 0 and "mir" not in LEVELS[0].name.lower()


def test_the_viajera_is_told_for_any_target() -> None:
    viajera = ACHIEVEMENTS["viajera"]
    for text in (viajera.description, viajera.description_en):
        assert not re.search(r"\b(cien|100|hundred)\b", text, re.IGNORECASE), text


# --------------------------------------------------------------------------- the page


def open_at(browser, base_url: str, *, seat: int = 0, view: dict[str, Any] | None = None, width: int = 1280,
            height: int = 800, locale: str | None = None, lang: str | None = None):
    """The table page as `seat`, synced to `view`; `locale` is the browser's language, `lang` a choice it kept."""
    args: dict[str, Any] = {"viewport": {"width": width, "height": height}}
    if locale:
        args["locale"] = locale
    ctx = browser.new_context(**args)
    ctx.add_init_script(FAKE_WS)
    if lang:
        ctx.add_init_script(f"localStorage.setItem('capicua.lang', '{lang}')")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(f"{base_url}/t/t_test")
    page.wait_for_function("window.__sent && window.__sent.length > 0")
    push(page, welcome_frame(seat, table_state(SEATS)))
    push(page, sync_frame(17, view if view is not None else base_view(seat=seat, turn=1)))
    page.wait_for_function("document.body.dataset.phase !== 'loading'")
    return ctx, page


def ticker(page) -> str:
    return str(page.locator("#ticker").inner_text())


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
def test_the_ticker_names_the_end_by_its_number(browser, base_url, width, height):
    # The board: 5-3 in the centre, the left line 5-6, 6-6 (a double 6 open), the right line 3-1 (a 1 open).
    ctx, page = open_at(browser, base_url, width=width, height=height, view=base_view(turn=1, legal=[]))
    try:
        after = base_view(turn=2, legal=[], counts=[7, 5, 7, 7], arms={"left": [[5, 6], [6, 6]], "right": [[3, 1], [1, 7]]},
                          ends=[{"end": "left", "value": 6, "double": True, "outcome": 6}, {"end": "right", "value": 7, "double": False, "outcome": 7}],
                          last={"seat": 1, "tile": [1, 7], "end": "right"})
        push(page, events_frame(18, [{"kind": "play", "seat": 1, "tile": [7, 1], "end": "right"}], after))
        page.wait_for_function("document.querySelector('#ticker').textContent.includes('Pancho')", timeout=5000)
        assert ticker(page) == "Pancho juega el 7-1 al 1.", ticker(page)
        later = dict(after, turn=3, counts=[7, 5, 6, 7], arms={"left": [[5, 6], [6, 6], [6, 4]], "right": [[3, 1], [1, 7]]},
                     ends=[{"end": "left", "value": 4, "double": False, "outcome": 4}, {"end": "right", "value": 7, "double": False, "outcome": 7}],
                     last={"seat": 2, "tile": [6, 4], "end": "left"})
        push(page, events_frame(19, [{"kind": "play", "seat": 2, "tile": [6, 4], "end": "left"}], later))
        page.wait_for_function("document.querySelector('#ticker').textContent.includes('Cuca')", timeout=5000)
        assert ticker(page) == "Cuca juega el 6-4 al doble 6.", ticker(page)
        page.click('[data-testid="lang-toggle"]')
        assert "on the double 6" in ticker(page), ticker(page)
        for text in (ticker(page), page.locator("#announcer").inner_text()):
            assert not re.search(r"izquierda|derecha|\bleft\b|\bright\b", text), text
        assert_no_hscroll(page, width)
        shot(page, f"words-ticker-{width}.png")
        assert page.errors == []
    finally:
        ctx.close()


def test_one_point_is_singular(browser, base_url):
    v = tranque_view()
    v["result"] = dict(v["result"], pip_totals=[30, 1, 6, 24], points=1, team=1, seat=1)
    ctx, page = open_at(browser, base_url, view=v)
    try:
        page.locator('[data-testid="libreta"]').wait_for(state="visible", timeout=5000)
        seat_pips = page.locator('.seat[data-seat="1"] .seat-pips').inner_text()
        assert seat_pips == "1 punto", seat_pips
        total = page.locator('#result .rh[data-seat="1"] .rh-total').inner_text()
        assert total == "1 punto", total
        assert page.locator('#result .rh[data-seat="2"] .rh-total').inner_text() == "6 puntos"
        page.locator('[data-testid="lang-toggle"]').dispatch_event("click")  # the sheet's backdrop covers the top bar
        assert page.locator('#result .rh[data-seat="1"] .rh-total').inner_text() == "1 pip"
        assert page.errors == []
    finally:
        ctx.close()
    # A spectator hears "Mano para Este–Oeste: 1 punto." (not "1 puntos").
    watch = base_view(seat=None, turn=1, legal=[])
    watch.pop("hand")
    ctx, page = open_at(browser, base_url, seat=None, view=watch)  # type: ignore[arg-type]
    try:
        over = tranque_view()
        over.update(seat=None, result=dict(over["result"], points=1, team=1, seat=1))
        over.pop("hand")
        push(page, events_frame(18, [{"kind": "hand_end", "result_kind": "tranque", "seat": 1, "team": 1, "points": 1,
                                      "pip_totals": [30, 1, 6, 24]}], over))
        page.wait_for_function("document.querySelector('#ticker').textContent.includes('Mano para')", timeout=5000)
        assert ticker(page) == "Mano para Este–Oeste: 1 punto.", ticker(page)
    finally:
        ctx.close()


def test_an_emoji_bubble_has_no_subtitle(browser, base_url):
    ctx, page = open_at(browser, base_url)
    try:
        es, en = PHRASES["emoji_risa"]
        push(page, said_frame(17, 2, es, en, name="Cuca", phrase="emoji_risa", by="player"))
        bubble = page.locator('[data-testid="chat-bubble"][data-seat="2"]')
        bubble.wait_for(timeout=5000)
        assert bubble.locator(".bubble-es").inner_text() == f"Cuca: {es}"
        assert bubble.locator(".bubble-en").count() == 0
        es, en = PHRASES["hola"]
        push(page, said_frame(18, 3, es, en, name="Chucho", phrase="hola", by="player"))
        words = page.locator('[data-testid="chat-bubble"][data-seat="3"]')
        words.wait_for(timeout=5000)
        assert words.locator(".bubble-en").inner_text() == en
    finally:
        ctx.close()


@pytest.mark.parametrize("locale,lang,expected", [
    ("en-US", None, "en"),  # an English browser, no choice made: English
    ("en-GB", "es", "es"),  # the player chose Spanish: kept
    ("es-ES", None, "es"),
    ("fr-FR", None, "es"),  # neither of ours: the barrio's Spanish
])
def test_an_english_browser_starts_in_english(browser, base_url, locale, lang, expected):
    ctx, page = open_at(browser, base_url, locale=locale, lang=lang)
    try:
        assert page.evaluate("document.documentElement.lang") == expected
        toggle = page.locator('[data-testid="lang-toggle"]').first.inner_text()
        assert toggle == ("ES" if expected == "en" else "EN")
        libreta = page.locator("#libreta-btn .btn-label").inner_text()
        assert libreta == ("Score sheet" if expected == "en" else "La libreta"), libreta
        if lang:
            return  # its init script chooses again on every load
        # A choice made now is kept over the browser's language.
        page.click('[data-testid="lang-toggle"]')
        page.reload()
        page.wait_for_function("window.__sent && window.__sent.length > 0")
        assert page.evaluate("document.documentElement.lang") == ("es" if expected == "en" else "en")
    finally:
        ctx.close()


@pytest.mark.parametrize("width,height", [(1280, 800), (360, 740)])
@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_nosotros_comes_first_from_every_seat(browser, base_url, seat, width, height):
    v = match_over_view() if seat == 1 else base_view(seat=seat, turn=(seat + 1) % 4, legal=[])
    v["seat"] = seat
    ctx, page = open_at(browser, base_url, seat=seat, view=v, width=width, height=height)
    try:
        names = page.locator('[data-testid="scores"] .score-name').all_inner_texts()
        points = page.locator('[data-testid="scores"] .score-pts').all_inner_texts()
        mine = seat % 2
        assert names == ["Nosotros", "Ellos"], names
        assert points == [str(v["scores"][mine]), str(v["scores"][1 - mine])], points
        if seat == 1:
            # The match is over: the sheet and the final line say us first too.
            page.locator('[data-testid="match-over"]').wait_for(state="visible", timeout=5000)
            heads = page.locator("#sheet thead th").all_inner_texts()
            assert heads[1:] == ["Nosotros", "Ellos"], heads
            final = page.locator('[data-testid="match-over"] .final').inner_text()
            assert final == "Resultado final: Nosotros 0 – Ellos 104", final
            shot(page, f"words-nosotros-seat1-{width}.png")
        assert_no_hscroll(page, width)
        assert page.errors == []
    finally:
        ctx.close()
