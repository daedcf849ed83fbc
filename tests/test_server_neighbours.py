"""The neighbours: enough characters, lines for every moment, and no line that
gives away a tile (no numbers, no doubles: "señas" are cheating)."""

from __future__ import annotations

import random
import re

from capicua import neighbours
from capicua.server.tables import LEVEL_ORDER

NUMBERS = re.compile(
    r"\d|\b(cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|blanca|blancas|blanco|"
    r"doble|dobles|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"blank|blanks|double|doubles)\b",
    re.IGNORECASE,
)


def test_at_least_six_characters_with_faces_levels_and_styles() -> None:
    roster = neighbours.public_roster()
    assert len(roster) >= 6
    assert len({c["id"] for c in roster}) == len(roster)
    for c in roster:
        assert c["name"] and c["style"] and c["tagline"]["es"] and c["tagline"]["en"]
        assert c["level"] in LEVEL_ORDER
        assert {"emoji", "skin", "hair", "shirt"} <= set(c["avatar"])


def test_every_character_has_lines_for_every_moment() -> None:
    for c in neighbours.CHARACTERS:
        for moment in neighbours.MOMENTS:
            lines = neighbours.lines_for(c.id, moment)
            assert lines, (c.id, moment)
            for es, en in lines:
                assert es.strip() and en.strip()


def test_no_line_names_a_number_or_a_tile() -> None:
    for c in neighbours.CHARACTERS:
        for moment in neighbours.MOMENTS:
            for es, en in neighbours.lines_for(c.id, moment):
                text = f"{es} {en}".replace(c.name, "")
                for other in neighbours.CHARACTERS:
                    text = text.replace(other.name, "")
                assert not NUMBERS.search(text), (c.id, moment, es, en)


def test_the_number_check_can_fail() -> None:
    assert NUMBERS.search("Tengo el doble seis")
    assert NUMBERS.search("I still hold the 5")


def test_pick_line_is_seeded_and_sometimes_quiet() -> None:
    a = [neighbours.pick_line(random.Random(7), "cuca", "pass") for _ in range(3)]
    b = [neighbours.pick_line(random.Random(7), "cuca", "pass") for _ in range(3)]
    assert a == b
    rng = random.Random(1)
    said = [neighbours.pick_line(rng, "cuca", "pass") for _ in range(400)]
    assert any(x is None for x in said) and any(x is not None for x in said)
    assert neighbours.pick_line(random.Random(1), "mima", "capicua_own", always=True) is not None


def test_choose_characters_gives_distinct_neighbours() -> None:
    chosen = neighbours.choose_characters(random.Random(3), ["dificil", "medio", "dificil"])
    assert len({c.id for c in chosen}) == 3
