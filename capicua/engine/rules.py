"""Rules of every game in RULES.md: a frozen, validated object built from a
preset name plus option overrides.

``make_rules("cubano")`` is the default game; ``make_rules("la-plaza",
target=50)`` overrides one option. An unknown preset or option, a value out
of range, or a combination that cannot be played raises :class:`RulesError`
with a message that says why.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from typing import Any

from capicua.engine.errors import RulesError

# Option values. Where RULES.md names a value it is used verbatim.
FIRST_OPENERS = (
    "random_seat",
    "highest_double",  # holder of the highest double opens, and must open with it
    "highest_double_holder",  # holder of the highest double opens, with any tile (All Fives)
    "team_draw",
    "parity_guess",
    "must_play_top_double",
    "fid_rotation",
)
NEXT_AFTER_WIN = ("winner", "rotate", "highest_double", "highest_double_holder")
NEXT_AFTER_TRANQUE = (
    "same_opener",
    "winner",  # the tranque's winner opens; after a tie the same opener (mano-a-mano)
    "blocker",
    "other_team_on_tie",
    "rotate",
    "highest_double",
    "highest_double_holder",
)
DOMINO_SCORING = ("opponents", "all_hands", "muggins")
TRANQUE_WINNER = ("lowest_player", "lowest_team")
TRANQUE_SCORING = ("opponents", "all_hands", "difference", "muggins")
CAPICUA_BONUS = (0, 25, 30)
REDEAL_FIVE_DOUBLES = ("automatic", "on_request", "off")
LAYOUTS = ("line", "cross", "double-nine-cross")
IN_PLAY_SCORING = ("none", "fives", "fives_and_threes")
TARGETS = (50, 100, 121, 150, 200, 500)
DIRECTIONS = ("counterclockwise", "clockwise")

# Opener rules that depend on the deal (decided after the tiles are dealt).
DEAL_OPENERS = ("highest_double", "highest_double_holder", "must_play_top_double")
# Opener rules that also fix the opening tile (the highest double held).
FORCED_DOUBLE_OPENERS = ("highest_double", "must_play_top_double")

SEAT_NAMES_4 = ("South", "East", "North", "West")


@dataclass(frozen=True)
class Rules:
    """Everything that decides how a match is played. Build it with :func:`make_rules`."""

    preset: str
    max_pip: int
    players: int
    partnership: bool
    hand_size: int
    drawing: bool
    draw_reserve: int
    layout: str
    direction: str
    target: int
    first_opener: str
    next_opener_after_win: str
    next_opener_after_tranque: str
    domino_scoring: str
    tranque_winner: str
    tranque_scoring: str
    capicua_bonus: int
    redeal_five_doubles: str
    in_play_scoring: str
    options: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    # --- derived facts -------------------------------------------------
    @property
    def tile_count(self) -> int:
        return (self.max_pip + 1) * (self.max_pip + 2) // 2

    @property
    def teams(self) -> int:
        return 2 if self.partnership else self.players

    def team_of(self, seat: int) -> int:
        return seat % 2 if self.partnership else seat

    def partner_of(self, seat: int) -> int | None:
        return (seat + 2) % 4 if self.partnership else None

    def seats_of_team(self, team: int) -> list[int]:
        return [s for s in range(self.players) if self.team_of(s) == team]

    @property
    def sleeping(self) -> int:
        """Tiles left out of the hands at the deal."""
        return self.tile_count - self.players * self.hand_size

    def to_json(self) -> dict[str, Any]:
        """Preset plus the overrides it was built with (what a record stores)."""
        return {"preset": self.preset, "options": dict(self.options)}

    def describe(self) -> dict[str, Any]:
        """Every resolved field, for clients and docs (a fresh dict each time)."""
        data = dict(self._described)
        data["options"] = dict(self.options)
        return data

    @cached_property
    def _described(self) -> dict[str, Any]:
        # Rules never change: every view of every match describes them, so the
        # dataclass walk is done once per Rules object.
        data = asdict(self)
        data["tile_count"] = self.tile_count
        data["sleeping"] = self.sleeping
        return data


def _hand_sizes_block(max_pip: int, players: int) -> int | None:
    if max_pip == 6:
        return {2: 8, 3: 6, 4: 6, 5: 5}.get(players)
    if max_pip == 9 and players == 4:
        return 9
    if max_pip == 12 and players == 4:
        return 12
    return None


def _hand_sizes_draw(max_pip: int, players: int) -> int | None:
    if max_pip == 6:
        return {2: 7, 3: 5, 4: 4, 5: 3}.get(players)
    return None


def _hand_sizes_nine_cross(max_pip: int, players: int) -> int | None:
    if max_pip in (9, 12):
        return 7 if players <= 3 else 5
    return None


def _fixed(size: int, max_pip: int, players: int) -> Any:
    """A preset played with one set and one number of players only."""

    def table(mp: int, pl: int) -> int | None:
        return size if (mp, pl) == (max_pip, players) else None

    return table


def _always(size: int) -> Any:
    """A preset that deals the same hand size whatever the number of players."""

    def table(mp: int, pl: int) -> int | None:
        return size

    return table


_CUBANO: dict[str, Any] = dict(
    max_pip=9,
    players=4,
    partnership=True,
    drawing=False,
    draw_reserve=0,
    layout="line",
    direction="counterclockwise",
    target=100,
    first_opener="random_seat",
    next_opener_after_win="winner",
    next_opener_after_tranque="same_opener",
    domino_scoring="opponents",
    tranque_winner="lowest_player",
    tranque_scoring="opponents",
    capicua_bonus=0,
    redeal_five_doubles="automatic",
    in_play_scoring="none",
)
_LA_PLAZA = dict(
    _CUBANO,
    max_pip=6,
    first_opener="must_play_top_double",
    next_opener_after_tranque="blocker",
    domino_scoring="all_hands",
    tranque_winner="lowest_team",
    tranque_scoring="all_hands",
    redeal_five_doubles="off",
)
_BLOCK = dict(
    _CUBANO,
    max_pip=6,
    direction="clockwise",
    first_opener="highest_double",
    next_opener_after_win="highest_double",
    next_opener_after_tranque="highest_double",
    domino_scoring="opponents",
    tranque_winner="lowest_team",
    tranque_scoring="difference",
    redeal_five_doubles="off",
)
_DRAW = dict(_BLOCK, drawing=True)
_ALL_FIVES = dict(
    _CUBANO,
    max_pip=6,
    players=4,
    partnership=False,
    drawing=True,
    draw_reserve=2,
    direction="clockwise",
    first_opener="highest_double_holder",
    next_opener_after_win="highest_double_holder",
    next_opener_after_tranque="highest_double_holder",
    domino_scoring="muggins",
    tranque_winner="lowest_player",
    tranque_scoring="muggins",
    redeal_five_doubles="off",
    in_play_scoring="fives",
)

# preset name -> (base fields, hand-size table (max_pip, players) -> size, description)
PRESETS: dict[str, tuple[dict[str, Any], Any, str]] = {
    "cubano": (_CUBANO, _fixed(10, 9, 4), "Dominó cubano en parejas: double-nine, 10 each, 15 sleeping"),
    "cubano-clasico": (
        dict(_CUBANO, first_opener="team_draw", next_opener_after_tranque="other_team_on_tie"),
        _fixed(10, 9, 4),
        "Cuban rules as pagat gives them: team draw for the first opener",
    ),
    "la-plaza": (_LA_PLAZA, _fixed(7, 6, 4), "Double-six partnership, all 28 dealt, La Plaza scoring"),
    "fid": (
        dict(_LA_PLAZA, first_opener="fid_rotation", next_opener_after_win="rotate", next_opener_after_tranque="rotate"),
        _fixed(7, 6, 4),
        "International federation rules: the opener rotates every hand",
    ),
    "caribe": (dict(_CUBANO, capicua_bonus=25), _fixed(10, 9, 4), "Cuban game with a 25-point capicúa bonus"),
    "mano-a-mano": (
        dict(
            _CUBANO,
            max_pip=6,
            players=2,
            partnership=False,
            drawing=True,
            first_opener="team_draw",
            next_opener_after_tranque="winner",
            # 1 v 1 (seed 001): the blocked hand's winner "gets every remaining pip, from both sides".
            tranque_scoring="all_hands",
            redeal_five_doubles="off",
        ),
        _fixed(7, 6, 2),
        "1 v 1 draw game, double-six, 7 each",
    ),
    "block": (_BLOCK, _hand_sizes_block, "English pub block game"),
    "draw": (_DRAW, _hand_sizes_draw, "English draw game"),
    "all-fives": (_ALL_FIVES, _always(5), "All Fives (Muggins): multiples of 5 score during play"),
    "fives-and-threes": (
        # Seed 003: at the hand end the winner scores the losers' pips (or, when the
        # hand is blocked, the difference) point for point; only All Fives rounds to fives.
        dict(_ALL_FIVES, in_play_scoring="fives_and_threes", domino_scoring="opponents", tranque_scoring="difference"),
        _always(5),
        "Fives and Threes: multiples of 5 or 3 score during play",
    ),
    "cross": (dict(_DRAW, layout="cross"), _hand_sizes_draw, "Cross: the first double is played on all four sides"),
    "double-nine-cross": (
        dict(_DRAW, max_pip=9, layout="double-nine-cross"),
        _hand_sizes_nine_cross,
        "Double-nine cross: every double opens two new lines",
    ),
}


OVERRIDABLE = (
    "target",
    "first_opener",
    "next_opener_after_win",
    "next_opener_after_tranque",
    "domino_scoring",
    "tranque_winner",
    "tranque_scoring",
    "capicua_bonus",
    "redeal_five_doubles",
    "players",
    "partnership",
    "max_pip",
    "hand_size",
)


def make_rules(preset: str = "cubano", **overrides: Any) -> Rules:
    """Build validated rules from a preset name and option overrides."""
    if preset not in PRESETS:
        raise RulesError(f"unknown preset {preset!r}; presets: {', '.join(PRESETS)}")
    base, sizes, _ = PRESETS[preset]
    for key in overrides:
        if key not in OVERRIDABLE:
            raise RulesError(f"unknown option {key!r}; options: {', '.join(OVERRIDABLE)}")
    fields: dict[str, Any] = dict(base)
    # fid_rotation moves the opener every hand: unless the caller said otherwise,
    # the later-hand opener options follow it.
    if overrides.get("first_opener") == "fid_rotation":
        fields["next_opener_after_win"] = "rotate"
        fields["next_opener_after_tranque"] = "rotate"
    # Presets played by 2-5 players "or 4 in two partnerships" (block, draw, ...):
    # another number of players means individual play unless the caller said otherwise.
    if "players" in overrides and overrides["players"] != 4 and "partnership" not in overrides:
        fields["partnership"] = False
    fields.update({k: v for k, v in overrides.items() if k != "hand_size"})
    _check_types(fields)
    hand_size = overrides.get("hand_size")
    if hand_size is None:
        hand_size = sizes(fields["max_pip"], fields["players"])
        if hand_size is None:
            raise RulesError(
                f"preset {preset!r} has no standard hand size for {fields['players']} players "
                f"with double-{fields['max_pip']}; set hand_size"
            )
    elif type(hand_size) is not int or hand_size < 1:
        raise RulesError("hand_size must be a positive whole number")
    rules = Rules(preset=preset, hand_size=hand_size, options=dict(overrides), **fields)
    validate(rules)
    return rules


def rules_from_json(data: Any) -> Rules:
    """Rebuild rules from :meth:`Rules.to_json` output."""
    if not isinstance(data, dict) or not isinstance(data.get("preset"), str):
        raise RulesError("rules must be an object with a preset name")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise RulesError("rules options must be an object")
    for key in options:
        if key not in OVERRIDABLE:  # before the call: a key named "preset" would be a TypeError
            raise RulesError(f"unknown option {key!r}; options: {', '.join(OVERRIDABLE)}")
    return make_rules(data["preset"], **options)


def _check_types(fields: dict[str, Any]) -> None:
    choices: dict[str, tuple[Any, ...]] = {
        "first_opener": FIRST_OPENERS,
        "next_opener_after_win": NEXT_AFTER_WIN,
        "next_opener_after_tranque": NEXT_AFTER_TRANQUE,
        "domino_scoring": DOMINO_SCORING,
        "tranque_winner": TRANQUE_WINNER,
        "tranque_scoring": TRANQUE_SCORING,
        "capicua_bonus": CAPICUA_BONUS,
        "redeal_five_doubles": REDEAL_FIVE_DOUBLES,
        "layout": LAYOUTS,
        "in_play_scoring": IN_PLAY_SCORING,
        "target": TARGETS,
        "direction": DIRECTIONS,
        "max_pip": (6, 9, 12),
        "players": (2, 3, 4, 5),
        "partnership": (True, False),
    }
    for key, allowed in choices.items():
        value = fields[key]
        # bool is an int subclass: keep True from passing as 1 and 0 as False.
        ok = any(value == a and type(value) is type(a) for a in allowed)
        if not ok:
            shown = ", ".join(str(a) for a in allowed)
            raise RulesError(f"{key} must be one of {shown} (got {value!r})")


def validate(rules: Rules) -> None:
    """Refuse combinations that cannot be played, saying why."""
    if rules.in_play_scoring != "none" and not 2 <= rules.players <= 4:
        raise RulesError(f"{rules.preset} is played by 2 to 4 players")
    if rules.partnership and rules.players != 4:
        raise RulesError("partnerships need exactly 4 players (two teams of two, partners opposite)")
    dealt = rules.players * rules.hand_size
    if dealt > rules.tile_count:
        raise RulesError(
            f"{rules.players} hands of {rules.hand_size} need {dealt} tiles; "
            f"the double-{rules.max_pip} set has {rules.tile_count}"
        )
    if rules.layout in ("cross", "double-nine-cross"):
        openers = (rules.first_opener, rules.next_opener_after_win, rules.next_opener_after_tranque)
        if any(o not in FORCED_DOUBLE_OPENERS for o in openers):
            raise RulesError(
                f"the {rules.layout} layout starts from a double: every hand must be opened with "
                "the highest double (first_opener and next_opener_* = highest_double)"
            )
    if rules.capicua_bonus and rules.layout != "line":
        raise RulesError("a capicúa needs a line with two ends; it has no meaning in a cross layout")
    if rules.first_opener == "fid_rotation" and (
        rules.next_opener_after_win != "rotate" or rules.next_opener_after_tranque != "rotate"
    ):
        raise RulesError(
            "fid_rotation moves the opener one seat every hand; it cannot be combined with "
            "another next_opener_after_win / next_opener_after_tranque"
        )
    if rules.tranque_scoring == "muggins" or rules.domino_scoring == "muggins":
        if rules.partnership:
            raise RulesError("muggins scoring (each loser's pips rounded to fives) is for individual play")
    if rules.in_play_scoring != "none" and rules.partnership:
        # Seed 003: Fives-and-Threes "is played the same way as All Fives", player against player.
        raise RulesError(f"{rules.preset} is an individual game: each player scores for themselves")
    if rules.redeal_five_doubles != "off" and rules.hand_size < 5:
        raise RulesError(f"nobody can hold five doubles in a hand of {rules.hand_size}; set redeal_five_doubles=off")
    if rules.players == 2 and rules.first_opener == "parity_guess" and rules.partnership:
        raise RulesError("parity_guess needs two sides")


def with_options(rules: Rules, **overrides: Any) -> Rules:
    """The same preset with more overrides applied."""
    merged = dict(rules.options)
    merged.update(overrides)
    return make_rules(rules.preset, **merged)


def preset_catalogue() -> list[dict[str, Any]]:
    """Every preset with its resolved defaults, for clients."""
    out = []
    for name, (_, _, description) in PRESETS.items():
        out.append({"name": name, "description": description, "rules": make_rules(name).describe()})
    return out


__all__ = [
    "Rules",
    "make_rules",
    "rules_from_json",
    "with_options",
    "preset_catalogue",
    "PRESETS",
    "OVERRIDABLE",
    "replace",
]
