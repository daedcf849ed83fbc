"""The neighbours: enough characters, lines for every moment, words that agree
with whoever they are addressed to and fit the moment, and no line that gives
away a tile (no numbers, no doubles: "señas" are cheating)."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import pytest

from capicua.bots import LEVELS
from capicua.engine import Match, make_rules
from capicua.table import neighbours
from capicua.table.neighbours import BY_ID, COMMON, Line


def lines_for(character_id: str, moment: str, *, partnership: bool = True, watchers: int = 0) -> list[Line]:
    """Every line ``character_id`` may say at ``moment`` in such a game (their own first):
    what :func:`neighbours.pick_line` draws from."""
    own = BY_ID[character_id].lines.get(moment, []) if character_id in BY_ID else []
    return [line for line in [*own, *COMMON.get(moment, [])] if line.fits(partnership, watchers)]


NUMBERS = re.compile(
    r"\d|\b(cero|uno|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|once|doce|blanca|blancas|blanco|"
    r"doble|dobles|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
    r"blank|blanks|double|doubles)\b",
    re.IGNORECASE,
)
# Words that address (or describe) someone as a man, or as a woman.
MASCULINE = re.compile(
    r"\b(compañeros?|mijo|mijito|socio|hermano|compadre|caballeros?|muchachos|niños|señores|derechitos|seco|"
    r"brother|sir|gentlemen|sonny|guys)\b", re.IGNORECASE,
)
FEMININE = re.compile(
    r"\b(compañeras?|mija|mijita|socia|hermana|comadre|señoras?|muchachas|niñas|derechitas|seca|"
    r"sister|madam|ma'am|girls)\b", re.IGNORECASE,
)
OUTCOME_MOMENTS = {
    "capicua_own", "capicua_partner", "capicua_rival", "tranque_won", "tranque_lost", "tranque_tie",
    "domino_own", "domino_partner", "domino_rival", "pollona_win", "pollona_loss", "match_win", "match_loss",
}


def every_line() -> list[tuple[str, str, bool, neighbours.Line]]:
    """(character, moment, partnership, line) for every line a neighbour may say."""
    out = []
    for c in neighbours.CHARACTERS:
        for moment in neighbours.MOMENTS:
            for partnership in (True, False):
                for line in lines_for(c.id, moment, partnership=partnership, watchers=1):
                    out.append((c.id, moment, partnership, line))
    return out


def test_at_least_six_characters_with_faces_levels_and_styles() -> None:
    roster = neighbours.public_roster()
    assert len(roster) >= 6
    assert len({c["id"] for c in roster}) == len(roster)
    for c in roster:
        assert c["name"] and c["style"] and c["tagline"]["es"] and c["tagline"]["en"]
        assert c["level"] in LEVELS
        assert {"emoji", "skin", "hair", "shirt"} <= set(c["avatar"])


def test_the_women_of_the_barrio_are_addressed_as_women() -> None:
    assert {c.id for c in neighbours.CHARACTERS if c.gender == "f"} == {"cuca", "yoli", "mima", "fefa"}
    assert {c.gender for c in neighbours.CHARACTERS} == {"m", "f"}


@pytest.mark.parametrize("partnership", [True, False])
@pytest.mark.parametrize("watchers", [0, 3])
def test_every_character_has_lines_for_every_moment(partnership: bool, watchers: int) -> None:
    for c in neighbours.CHARACTERS:
        for moment in neighbours.MOMENTS:
            lines = lines_for(c.id, moment, partnership=partnership, watchers=watchers)
            if not partnership and moment in neighbours.PARTNER_MOMENTS:
                continue  # no partner, no such moment
            assert lines, (c.id, moment, partnership, watchers)
            for line in lines:
                for gender in neighbours.GENDERS:
                    es, en = line.say(gender)
                    assert es.strip() and en.strip()
                    assert not re.search(r"[{}|]", es + en), (c.id, moment, es, en)


def test_no_line_names_a_number_or_a_tile() -> None:
    names = [c.name for c in neighbours.CHARACTERS]
    for cid, moment, _, line in every_line():
        for gender in neighbours.GENDERS:
            text = " ".join(line.say(gender))
            for name in names:
                text = text.replace(name, "")
            assert not NUMBERS.search(text), (cid, moment, text)


def test_the_number_check_can_fail() -> None:
    assert NUMBERS.search("Tengo el doble seis")
    assert NUMBERS.search("I still hold the 5")


def test_words_agree_with_whoever_is_addressed() -> None:
    """A woman is never addressed in the masculine, a man never in the
    feminine, and a human (gender unknown) or the whole table never in either."""
    for cid, moment, _, line in every_line():
        for gender, wrong in (("f", MASCULINE), ("m", FEMININE), ("n", MASCULINE), ("n", FEMININE)):
            es, en = line.say(gender)
            assert not wrong.search(es) and not wrong.search(en), (cid, moment, gender, es, en)


def test_the_agreement_check_can_fail() -> None:
    old = neighbours.Line("¡Bien jugado, mi socio!", "Well played, my friend!")
    assert MASCULINE.search(old.say("f")[0])
    assert MASCULINE.search("¡Ay, qué lindo jugaste, mijo!") and MASCULINE.search("Vamos a jugar serio, caballeros.")
    agreed = neighbours.Line("¡Eso es, {compañero|compañera|pareja}!", "That's it, partner!")
    assert [agreed.say(g)[0] for g in neighbours.GENDERS] == ["¡Eso es, compañero!", "¡Eso es, compañera!", "¡Eso es, pareja!"]


def test_we_lines_only_in_partnership_games_and_i_lines_only_in_individual_ones() -> None:
    for cid, moment, partnership, line in every_line():
        if line.side is not None:
            assert (line.side == "pairs") == partnership, (cid, moment, line)
    we = re.compile(r"\b(ganamos|perdimos|nuestra|nos cogieron|repasamos)\b", re.IGNORECASE)
    me = re.compile(r"\b(gané|perdí|mía|repaso)\b", re.IGNORECASE)
    for cid, moment, partnership, line in every_line():
        assert not (we if not partnership else me).search(line.es), (cid, moment, partnership, line.es)


def test_subtitles_read_as_english() -> None:
    subtitles = {line.es: line.en for _, _, _, line in every_line()}
    assert subtitles["¡Me pegué! Tarea cumplida."] == "I'm out! Job done."
    for en in subtitles.values():
        assert "Homework" not in en and ", sir" not in en and "brother" not in en


def test_onlookers_are_spoken_to_only_when_someone_watches() -> None:
    for c in neighbours.CHARACTERS:
        quiet = lines_for(c.id, "hand_start", watchers=0)
        assert not any("mirones" in line.es for line in quiet)
        assert any("mirones" in line.es for line in lines_for(c.id, "hand_start", watchers=2))


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


# ------------------------------------------------------------------ table talk


@dataclass
class FakeSeat:
    seat: int
    is_bot: bool
    character: str | None
    name: str


def bot(seat: int, character: str) -> FakeSeat:
    return FakeSeat(seat, True, character, neighbours.BY_ID[character].name)


HUMAN = FakeSeat(0, False, None, "Ana")
CUBANO = make_rules("cubano")


def talk_many(seats: list[FakeSeat], events: list[dict[str, Any]], rules: Any = CUBANO, watchers: int = 0, n: int = 300) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        out += neighbours.table_talk(random.Random(i), rules, seats, events, watchers=watchers)
    return out


def test_table_talk_says_at_most_two_lines_from_different_neighbours() -> None:
    seats = [HUMAN, bot(1, "pancho"), bot(2, "cuca"), bot(3, "chucho")]
    events = [{"kind": "play", "seat": 3, "tile": [1, 2], "end": "left"}, {"kind": "pass", "seat": 0, "numbers": [1, 5]},
              {"kind": "pass", "seat": 1, "numbers": [1, 5]}]
    for i in range(200):
        said = neighbours.table_talk(random.Random(i), CUBANO, seats, events)
        assert len(said) <= 2 and len({x["seat"] for x in said}) == len(said)
        for x in said:
            assert set(x) == {"seat", "character", "name", "moment", "es", "en"}
            assert x["seat"] != 0 and x["name"] == neighbours.BY_ID[x["character"]].name
    assert neighbours.table_talk(random.Random(1), CUBANO, [HUMAN, FakeSeat(1, False, None, "Bea")], events) == []


def test_a_partner_is_cheered_in_their_own_gender() -> None:
    # Cuca (seat 2) cheers Yoli (seat 0), who played and made the next rival pass.
    seats = [bot(0, "yoli"), bot(1, "pancho"), bot(2, "cuca"), bot(3, "chucho")]
    events = [{"kind": "play", "seat": 0, "tile": [3, 4], "end": "right"}, {"kind": "pass", "seat": 1, "numbers": [4, 6]},
              {"kind": "play", "seat": 2, "tile": [6, 6], "end": "left"}]
    cheers = [x for x in talk_many(seats, events) if x["moment"] == "partner_good_play"]
    assert cheers and {x["seat"] for x in cheers} == {2}
    assert any("mija" in x["es"] for x in cheers)
    assert not any(MASCULINE.search(x["es"]) for x in cheers)
    # The same play by a human: neutral words.
    seats[0] = FakeSeat(0, False, None, "Ana")
    cheers = [x for x in talk_many(seats, events) if x["moment"] == "partner_good_play"]
    assert cheers and not any(MASCULINE.search(x["es"]) or FEMININE.search(x["es"]) for x in cheers)


def tranque_batch(winner: int | None) -> list[dict[str, Any]]:
    passes = [{"kind": "pass", "seat": s, "numbers": [2, 7]} for s in (1, 2, 3, 0)]
    return [{"kind": "play", "seat": 0, "tile": [2, 7], "end": "left"}, *passes, {"kind": "tranque"},
            {"kind": "hand_end", "result_kind": "tranque" if winner is not None else "tie", "seat": None if winner is None else winner,
             "team": winner, "points": 0 if winner is None else 40}]


@pytest.mark.parametrize("winner", [0, 1, None])
def test_a_tranque_is_told_from_the_speakers_side(winner: int | None) -> None:
    seats = [HUMAN, bot(1, "pancho"), bot(2, "cuca"), bot(3, "chucho")]
    said = talk_many(seats, tranque_batch(winner))
    assert said
    for x in said:
        # Nobody cheers a play or teases a pass in a batch that ended the hand.
        assert x["moment"] in OUTCOME_MOMENTS, x
        side = "tie" if winner is None else "won" if CUBANO.team_of(x["seat"]) == winner else "lost"
        assert x["moment"] == f"tranque_{side}", x
        assert x["es"] != "Así, así, que se ahoguen."


def test_a_solo_game_never_says_we() -> None:
    rules = make_rules("block", players=3)
    seats = [HUMAN, bot(1, "cuca"), bot(2, "fefa")]
    events = [{"kind": "domino", "seat": 0}, {"kind": "hand_end", "result_kind": "domino", "seat": 0, "team": 0, "points": 20},
              {"kind": "match_end", "winner": 0, "pollona": False, "viajera": False}]
    said = talk_many(seats, events, rules=rules)
    assert {x["moment"] for x in said} <= {"domino_rival", "match_loss"} and said
    pairs_only = {line.es for _, _, p, line in every_line() if line.side == "pairs"}
    assert not any(x["es"] in pairs_only for x in said)


@pytest.mark.parametrize("watchers", [0, 2])
def test_the_onlookers_line_needs_onlookers(watchers: int) -> None:
    seats = [HUMAN, bot(1, "pancho"), bot(2, "cuca"), bot(3, "chucho")]
    said = talk_many(seats, [{"kind": "hand_start", "hand_number": 1, "opener": 0, "seed_hash": "x"}], watchers=watchers, n=600)
    assert any("mirones" in x["es"] for x in said) == (watchers > 0)


def play_out(rules: Any, seed: str, hands: int) -> list[list[dict[str, Any]]]:
    """The event batches of a few random hands, as the table would send them."""
    m, rng, batches = Match(rules, seed), random.Random(seed), []
    while len(batches) < 400 and m.phase != "match_over" and len(m.hands) <= hands:
        if m.phase in ("new", "hand_over"):
            if len(m.hands) == hands:
                break
            batches.append(m.start_hand(frozenset({0})))
        else:
            seat = m.turn
            assert seat is not None
            batches.append(m.apply(seat, rng.choice(m.legal_moves())))
    return batches


@pytest.mark.parametrize("preset,players", [("cubano", 4), ("block", 3), ("la-plaza", 4)])
def test_table_talk_over_real_games_fits_each_moment(preset: str, players: int) -> None:
    rules = make_rules(preset, players=players) if preset == "block" else make_rules(preset)
    cast = ["yoli", "pancho", "mima", "cheo"]
    seats = [HUMAN, *(bot(s, cast[s]) for s in range(1, players))]
    moments: set[str] = set()
    for k in range(3):
        for events in play_out(rules, f"talk-{preset}-{k}", hands=6):
            for i in range(4):
                for x in neighbours.table_talk(random.Random(i), rules, seats, events):
                    moments.add(x["moment"])
                    kinds = {e["kind"] for e in events}
                    if kinds & {"hand_end", "match_end"}:
                        assert x["moment"] in OUTCOME_MOMENTS, (x, kinds)
                    if x["moment"].startswith("tranque_"):
                        team = next(e["team"] for e in events if e["kind"] == "hand_end")
                        side = "tie" if team is None else "won" if rules.team_of(x["seat"]) == team else "lost"
                        assert x["moment"] == f"tranque_{side}"
                    assert "mirones" not in x["es"]
                    assert not rules.partnership or x["moment"] != "partner_good_play" or not MASCULINE.search(x["es"]) or \
                        neighbours.BY_ID[cast[(x["seat"] + 2) % 4]].gender == "m"
    assert len(moments) >= 4, moments
