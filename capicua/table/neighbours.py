"""The neighbours of the barrio: the bot characters who sit at the table and talk.

Each character has an id (the web page's avatar roster uses the same ids), a
name, a grammatical gender, a tagline, a default playing level, a style and
avatar colours, and lines in Cuban Spanish with an English subtitle for the
moments that matter.

A neighbour never gives away tiles ("señas" are cheating): no line names a
number, a double or a tile (``tests/server/test_server_neighbours.py`` checks it).
:func:`table_talk` chooses who says what after a batch of events (with the
table's seeded generator), so the table is lively without chattering on
every play.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from capicua.engine.rules import Rules

# The moments a neighbour talks about. "own" is the speaker's own deed,
# "partner" their partner's, "rival" the other side's; a tranque is told
# from the speaker's side: won, lost or tied.
MOMENTS = (
    "hand_start",
    "pass",  # the speaker passes
    "rival_pass",  # a rival passes (teasing)
    "partner_good_play",  # the partner played and the next rival had to pass
    "capicua_own",
    "capicua_partner",
    "capicua_rival",
    "tranque_won",
    "tranque_lost",
    "tranque_tie",
    "domino_own",
    "domino_partner",
    "domino_rival",
    "pollona_win",
    "pollona_loss",
    "match_win",
    "match_loss",
)
# Moments that need a partner: they never come up in individual games.
PARTNER_MOMENTS = frozenset({"partner_good_play", "capicua_partner", "domino_partner"})

# Grammatical gender of whoever a line is addressed to: a neighbour's own
# ("m", "f"), or "n" (neutral phrasing) for a human, whose gender the table
# does not know, and for the whole table.
GENDERS = ("m", "f", "n")
_AGREE = re.compile(r"\{([^{}|]*)\|([^{}|]*)\|([^{}|]*)\}")


@dataclass(frozen=True)
class Line:
    """Something a neighbour may say: Cuban Spanish and its English subtitle.

    ``{masculine|feminine|neutral}`` in either text picks the words that agree
    with the seat the line is addressed to. ``side`` is ``"pairs"`` for a line
    that says "we" (partnership games only), ``"solo"`` for one that says "I"
    (individual games only), ``None`` for both. ``watched`` lines speak to
    spectators, so they are said only when someone is watching.
    """

    es: str
    en: str
    side: str | None = None
    watched: bool = False

    def fits(self, partnership: bool, watchers: int) -> bool:
        side_ok = self.side is None or (self.side == "pairs") == partnership
        return side_ok and (watchers > 0 or not self.watched)

    def say(self, to: str = "n") -> tuple[str, str]:
        """The two texts, agreeing with an addressee of gender ``to``."""
        pick = GENDERS.index(to) + 1
        return _AGREE.sub(lambda m: m.group(pick), self.es), _AGREE.sub(lambda m: m.group(pick), self.en)


def pairs(es: str, en: str) -> Line:
    return Line(es, en, side="pairs")


def solo(es: str, en: str) -> Line:
    return Line(es, en, side="solo")


@dataclass(frozen=True)
class Character:
    id: str
    name: str
    gender: str  # "m" | "f": how the others address this neighbour
    tagline_es: str
    tagline_en: str
    level: str
    style: str
    avatar: dict[str, str]
    lines: dict[str, list[Line]] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """What ``GET /api/neighbours`` shows (no lines)."""
        return {
            "id": self.id,
            "name": self.name,
            "tagline": {"es": self.tagline_es, "en": self.tagline_en},
            "level": self.level,
            "style": self.style,
            "avatar": dict(self.avatar),
        }


# Said at any tranque, whoever won it.
_COUNTING = [
    Line("¡Tranque! A contar se ha dicho.", "Blocked! Time to count."),
    Line("Se trancó el juego. A virar las fichas.", "The game is blocked. Turn the tiles over."),
]
_PARTNER = "{compañero|compañera|pareja}"

# Lines every neighbour may say, mixed with each character's own.
COMMON: dict[str, list[Line]] = {
    "hand_start": [
        Line("¡Agua va! A ver qué nos toca.", "Here comes the shuffle! Let's see what we get."),
        Line("Vamos a jugar en serio, mi gente.", "Let's play for real, folks."),
        Line("Los mirones son de palo, ¿eh?", "Onlookers keep quiet, eh?", watched=True),
    ],
    "pass": [
        Line("Paso.", "I pass."),
        Line("Toco la mesa.", "Knocking on the table."),
        Line("Me dejaron sin nada. Paso.", "They left me with nothing. I pass."),
        Line("¡Ay, qué clase de agua! Paso.", "Oh, what a deal I got! I pass."),
    ],
    "rival_pass": [
        Line("¡Tocó! Así mismo se juega.", "A knock! That's how it's played."),
        Line("Eso, a tocar la mesa.", "That's right, keep knocking."),
    ],
    "partner_good_play": [
        Line(f"¡Eso es, {_PARTNER}!", "That's it, partner!"),
        Line("¡Bien jugado, {mi socio|mi socia|pareja}!", "Well played, partner!"),
        Line("Así, así, que se ahoguen.", "That's it, let them drown."),
    ],
    "capicua_own": [
        Line("¡Capicúa! Por ambos lados, mi gente.", "Capicúa! Out at both ends, folks."),
    ],
    "capicua_partner": [
        Line(f"¡Capicúa! ¡Qué clase de {_PARTNER} tengo!", "Capicúa! What a partner I've got!"),
    ],
    "capicua_rival": [
        Line("¡Capicúa! Hay que quitarse el sombrero.", "Capicúa! Hats off to that."),
    ],
    "tranque_won": _COUNTING + [
        pairs("¡Tranque! Y a contar, que esta es nuestra.", "Blocked! Count them up: this hand is ours."),
        solo("¡Tranque! Y a contar, que esta es mía.", "Blocked! Count them up: this hand is mine."),
    ],
    "tranque_lost": _COUNTING + [
        pairs("Se trancó, y nos cogieron con más puntos.", "Blocked, and they caught us holding more."),
        solo("Se trancó, y me cogieron con más puntos.", "Blocked, and I got caught holding more."),
        Line("Bueno, tranque. Esta no fue.", "Well, blocked. Not this time."),
    ],
    "tranque_tie": _COUNTING + [
        Line("¡Tranque y empate! Nadie se anota.", "Blocked and tied! Nobody scores."),
        Line("Tranque parejo: esta mano no cuenta.", "An even block: this hand doesn't count."),
    ],
    "domino_own": [
        Line("¡Me pegué!", "I'm out!"),
        Line("¡Dominó, mi gente!", "Domino, folks!"),
    ],
    "domino_partner": [
        Line(f"¡Se pegó mi {_PARTNER}! A contar.", "My partner's out! Let's count."),
    ],
    "domino_rival": [
        pairs("Bueno, se pegaron. Agua nueva.", "Well, you're out. Fresh shuffle."),
        solo("Bueno, te pegaste. Agua nueva.", "Well, you're out. Fresh shuffle."),
        pairs("¡Qué se le va a hacer! Esta se la llevan ustedes.", "Oh well! This hand is yours."),
        solo("¡Qué se le va a hacer! Esta te la llevas tú.", "Oh well! This hand is yours."),
    ],
    "pollona_win": [
        Line("¡Pollona! Sin un tanto pa' la casa.", "Pollona! Home without a single point."),
    ],
    "pollona_loss": [
        Line("¡Pollona! Qué vergüenza, no le digan a nadie.", "Pollona! How embarrassing, don't tell anyone."),
    ],
    "match_win": [
        pairs("¡Ganamos! Se acabó el partido.", "We won! That's the match."),
        solo("¡Gané! Se acabó el partido.", "I won! That's the match."),
    ],
    "match_loss": [
        pairs("Perdimos, pero mañana hay revancha.", "We lost, but there's a rematch tomorrow."),
        solo("Perdí, pero mañana hay revancha.", "I lost, but there's a rematch tomorrow."),
    ],
}


CHARACTERS: list[Character] = [
    Character(
        "cuca", "Cuca", "f", "Cuca, la del café", "Cuca, who makes the coffee", "medio",
        "Paciente; guarda sus fichas y nunca se apura.",
        {"emoji": "☕", "skin": "#c98e63", "hair": "#e8e4dc", "shirt": "#d1495b", "style": "glasses"},
        {
            "hand_start": [Line("Ahorita cuelo otro café. ¡Agua!", "I'll brew more coffee in a bit. Shuffle!")],
            "pass": [Line("Ay, mi madre. Paso, paso.", "Oh my. Pass, pass.")],
            "partner_good_play": [Line("¡Ay, qué lindo jugaste, {mijo|mija|mi cielo}!", "Oh, how nicely you played, dear!")],
            "domino_own": [Line("¡Me pegué! Y el café está caliente.", "I'm out! And the coffee's hot.")],
            "domino_rival": [
                pairs("Bueno, se pegaron. Tómense un cafecito.", "Well, you're out. Have a little coffee."),
                solo("Bueno, te pegaste. Tómate un cafecito.", "Well, you're out. Have a little coffee."),
            ],
            "match_loss": [
                pairs("Perdimos, pero el café me quedó sabroso.", "We lost, but my coffee came out nice."),
                solo("Perdí, pero el café me quedó sabroso.", "I lost, but my coffee came out nice."),
            ],
            "pollona_win": [Line("¡Pollona! Hoy no hay café pa' nadie.", "Pollona! No coffee for anybody today.")],
        },
    ),
    Character(
        "pancho", "Pancho", "m", "Pancho, el de la esquina", "Pancho, from the corner table", "dificil",
        "Agresivo: bota la gorda temprano y tranca cuando le conviene.",
        {"emoji": "🎩", "skin": "#8d5a3b", "hair": "#2b1d14", "shirt": "#2a9d8f", "style": "hat"},
        {
            "hand_start": [Line("Toda la vida en esta esquina. A jugar.", "A lifetime on this corner. Let's play.")],
            "pass": [Line("Paso... pero no se confíen.", "Pass... but don't get comfortable.")],
            "tranque_won": [Line("¡Tranque! Como lo tenía planeado.", "Blocked! Just as I planned.")],
            "tranque_lost": [Line("Este tranque no estaba en mis planes.", "This block wasn't part of my plan.")],
            "domino_own": [Line("¡Me pegué! Tomen nota, que es gratis.", "I'm out! Take notes, the lesson's free.")],
            "capicua_own": [Line("¡Capicúa! Eso no se aprende en los libros.", "Capicúa! You don't learn that from books.")],
            "match_win": [Line("En esta esquina mando yo.", "On this corner, I'm the boss.")],
        },
    ),
    Character(
        "yoli", "Yoli", "f", "Yoli, la enfermera del policlínico", "Yoli, the nurse from the clinic", "medio",
        "Cuidadosa; cuenta las fichas que salen.",
        {"emoji": "🩺", "skin": "#e0ac7e", "hair": "#5a2e1a", "shirt": "#f4a261", "style": "bun"},
        {
            "hand_start": [Line("Una partidita antes de la guardia.", "A quick game before my shift.")],
            "pass": [Line("Paso. Esto se está poniendo feo.", "Pass. This is getting ugly.")],
            "rival_pass": [Line("¿Tocaste? Te voy a tomar la presión.", "You knocked? Let me take your blood pressure.")],
            "domino_partner": [Line(f"¡Eso, {_PARTNER}! Receta cumplida.", "That's it, partner! Prescription filled.")],
            "tranque_won": [Line("¡Tranque! Todo el mundo a contar, despacito.", "Blocked! Everybody count, nice and slow.")],
            "tranque_lost": [Line("¡Tranque! Todo el mundo a contar, despacito.", "Blocked! Everybody count, nice and slow.")],
            "tranque_tie": [Line("¡Tranque! Todo el mundo a contar, despacito.", "Blocked! Everybody count, nice and slow.")],
        },
    ),
    Character(
        "chucho", "Chucho", "m", "Chucho, el mecánico", "Chucho, the mechanic", "botagorda",
        "Bota la gorda y le da duro a la mesa.",
        {"emoji": "🔧", "skin": "#6b4226", "hair": "#1b1b1b", "shirt": "#264653", "style": "cap"},
        {
            "hand_start": [Line("¡Dale, que tengo un carro abierto en el taller!", "Come on, I've got a car open at the shop!")],
            "pass": [Line("¡Ñooo! Paso.", "Noooo! Pass.")],
            "domino_own": [Line("¡PÁ! ¡Me pegué, mi gente!", "BAM! I'm out, folks!")],
            "partner_good_play": [Line("¡Esa sí sonó, {compadre|comadre|pareja}!", "That really rang out, partner!")],
            "domino_rival": [Line("Me cogieron con la gorda en la mano.", "Caught me holding the heavy ones.")],
            "match_loss": [Line("Hoy la mesa no me quiso.", "The table didn't love me today.")],
        },
    ),
    Character(
        "mima", "Mima", "f", "Mima, la abuela del solar", "Mima, the grandmother of the tenement", "experto",
        "Calculadora: se acuerda de cada pase.",
        {"emoji": "👵", "skin": "#f0c8a0", "hair": "#9b9b9b", "shirt": "#8e6fb5", "style": "bun"},
        {
            "hand_start": [Line("Siéntense bien, que esto es serio.", "Sit up straight, this is serious.")],
            "pass": [Line("Paso. Pero me acuerdo de todo, ¿eh?", "Pass. But I remember everything, mind you.")],
            "rival_pass": [Line("Ya sé lo que no tienes, mi amor.", "Now I know what you're missing, dear.")],
            "capicua_own": [Line("¡Capicúa! Son muchos años jugando en este solar.", "Capicúa! Years and years of playing in this tenement.")],
            "pollona_win": [Line("¡Pollona! Como en los tiempos de antes.", "Pollona! Like in the old days.")],
            "match_win": [Line("La abuela todavía sabe, ¿eh?", "Grandma's still got it, eh?")],
        },
    ),
    Character(
        "cheo", "Cheo", "m", "Cheo, el jubilado del parque", "Cheo, the retiree from the park", "dificil",
        "Tranquilo; le gusta trancar y ganar contando.",
        {"emoji": "🧔", "skin": "#a86b45", "hair": "#3a2618", "shirt": "#e9c46a", "style": "moustache"},
        {
            "hand_start": [Line("Con calma, que el dominó lo inventó un mudo.", "Easy now: dominoes was invented by a mute.")],
            "pass": [Line("Paso. Sin comentarios.", "Pass. No comment.")],
            "tranque_won": [Line("¡Tranque! A ver quién tiene menos.", "Blocked! Let's see who holds the fewest points.")],
            "tranque_tie": [Line("¡Tranque! A ver quién tiene menos.", "Blocked! Let's see who holds the fewest points.")],
            "domino_rival": [Line("Bien jugado. No se lo digan a mi mujer.", "Well played. Don't tell my wife.")],
            "partner_good_play": [Line("Así mismo, sin apuro.", "Just like that, no rush.")],
        },
    ),
    Character(
        "fefa", "Fefa", "f", "Fefa, la maestra de la primaria", "Fefa, the primary school teacher", "medio",
        "Ordenada; le encanta explicar las jugadas.",
        {"emoji": "📚", "skin": "#d49a6a", "hair": "#171010", "shirt": "#3a86ff", "style": "curls"},
        {
            "hand_start": [Line("Atención, clase: empieza la mano.", "Attention, class: the hand begins.")],
            "pass": [Line("Paso. Anótenlo en la libreta.", "Pass. Write that down on the score sheet.")],
            "capicua_partner": [Line(f"¡Capicúa! Sobresaliente, {_PARTNER}.", "Capicúa! Top marks, partner.")],
            "domino_own": [Line("¡Me pegué! Tarea cumplida.", "I'm out! Job done.")],
            "match_loss": [
                pairs("Perdimos. Mañana repasamos la lección.", "We lost. Tomorrow we go over the lesson again."),
                solo("Perdí. Mañana repaso la lección.", "I lost. Tomorrow I go over the lesson again."),
            ],
        },
    ),
    Character(
        "nene", "Nene", "m", "Nene, el chama del barrio", "Nene, the neighbourhood kid", "random",
        "Novato: juega lo primero que ve.",
        {"emoji": "🧢", "skin": "#b77b52", "hair": "#2e1c10", "shirt": "#ef476f", "style": "cap"},
        {
            "hand_start": [Line("¡Asere, qué volá! ¿Me enseñan?", "Hey, what's up! Will you teach me?")],
            "pass": [Line("¿Paso? ¿Eso se puede? Bueno, paso.", "Pass? Is that allowed? OK, pass.")],
            "domino_own": [Line("¡Me pegué! ¿Ustedes vieron eso?", "I'm out! Did you all see that?")],
            "domino_rival": [Line("¿Ya se acabó? ¡No entendí nada!", "Over already? I didn't get any of it!")],
            "match_win": [
                pairs("¡Le ganamos a los viejos!", "We beat the old-timers!"),
                solo("¡Les gané a los viejos!", "I beat the old-timers!"),
            ],
        },
    ),
]

BY_ID: dict[str, Character] = {c.id: c for c in CHARACTERS}

# How often a neighbour speaks at each moment (the rest of the time they keep quiet).
CHANCE: dict[str, float] = {
    "hand_start": 0.35,
    "pass": 0.35,
    "rival_pass": 0.12,
    "partner_good_play": 0.3,
    "capicua_own": 1.0,
    "capicua_partner": 0.9,
    "capicua_rival": 0.7,
    "tranque_won": 0.8,
    "tranque_lost": 0.8,
    "tranque_tie": 0.8,
    "domino_own": 0.9,
    "domino_partner": 0.6,
    "domino_rival": 0.5,
    "pollona_win": 1.0,
    "pollona_loss": 1.0,
    "match_win": 0.9,
    "match_loss": 0.8,
}


def pick_line(
    rng: random.Random,
    character_id: str,
    moment: str,
    *,
    partnership: bool = True,
    watchers: int = 0,
    to: str = "n",
    always: bool = False,
) -> tuple[str, str] | None:
    """Maybe a line for ``moment``, addressed to someone of gender ``to``:
    ``None`` when the neighbour keeps quiet. Own lines are twice as likely
    as the common ones."""
    if not always and rng.random() >= CHANCE.get(moment, 0.0):
        return None
    own = BY_ID[character_id].lines.get(moment, []) if character_id in BY_ID else []
    pool = [line for line in [*own, *own, *COMMON.get(moment, [])] if line.fits(partnership, watchers)]
    if not pool:
        return None
    return rng.choice(pool).say(to)


def choose_characters(rng: random.Random, levels: list[str], exclude: set[str] | None = None) -> list[Character]:
    """Distinct characters for bot seats, preferring one whose own level matches each seat's."""
    taken = set(exclude or ())
    chosen: list[Character] = []
    for level in levels:
        free = [c for c in CHARACTERS if c.id not in taken]
        matching = [c for c in free if c.level == level] or free
        pick = rng.choice(matching)
        taken.add(pick.id)
        chosen.append(pick)
    return chosen


def public_roster() -> list[dict[str, Any]]:
    return [c.public() for c in CHARACTERS]


# --------------------------------------------------------------- table talk


class SeatLike(Protocol):
    """What table talk needs to know of a seat."""

    @property
    def seat(self) -> int: ...
    @property
    def is_bot(self) -> bool: ...
    @property
    def character(self) -> str | None: ...
    @property
    def name(self) -> str: ...


@dataclass(frozen=True)
class _Cue:
    priority: int  # lower speaks first
    seat: int  # who speaks
    moment: str
    to: int | None = None  # the seat the line is addressed to (None: the whole table)


MAX_LINES = 2  # per batch of events


def table_talk(
    rng: random.Random, rules: Rules, seats: Sequence[SeatLike], events: list[dict[str, Any]], watchers: int = 0
) -> list[dict[str, Any]]:
    """Who of the neighbours says what after one batch of public events.

    At most two lines, from different neighbours, most important first:
    ``[{"seat", "character", "name", "moment", "es", "en"}]``. A batch that
    ends the hand is talked about only for its outcome (nobody cheers a
    partner's play in a tranque their side lost).
    """
    bots = [s for s in seats if s.is_bot and s.character]
    if not bots:
        return []
    by_seat = {s.seat: s for s in seats}
    cues = sorted(_cues(rng, rules, bots, by_seat, events), key=lambda c: c.priority)
    said: list[dict[str, Any]] = []
    for cue in cues:
        if len(said) >= MAX_LINES or any(x["seat"] == cue.seat for x in said):
            continue
        speaker = by_seat[cue.seat]
        character = speaker.character or ""
        line = pick_line(
            rng, character, cue.moment, partnership=rules.partnership, watchers=watchers,
            to=_gender(by_seat.get(cue.to) if cue.to is not None else None),
        )
        if line is not None:
            said.append({"seat": cue.seat, "character": character, "name": speaker.name, "moment": cue.moment,
                         "es": line[0], "en": line[1]})
    return said


def _gender(seat: SeatLike | None) -> str:
    """How to address ``seat``: a neighbour by their gender, anyone else neutrally."""
    if seat is None or not seat.is_bot or seat.character not in BY_ID:
        return "n"
    return BY_ID[seat.character or ""].gender


def _cues(
    rng: random.Random, rules: Rules, bots: list[SeatLike], by_seat: dict[int, SeatLike], events: list[dict[str, Any]]
) -> list[_Cue]:
    team = rules.team_of
    hand_ends = any(ev["kind"] in ("hand_end", "match_end") for ev in events)
    hand_end = next((ev for ev in events if ev["kind"] == "hand_end"), None)
    cues: list[_Cue] = []
    for i, ev in enumerate(events):
        k = ev["kind"]
        if k == "hand_start":
            cues.append(_Cue(5, rng.choice(bots).seat, "hand_start"))
        elif k == "pass" and not hand_ends:
            s = ev["seat"]
            if by_seat[s].is_bot:
                cues.append(_Cue(4, s, "pass"))
            rivals = [b.seat for b in bots if team(b.seat) != team(s)]
            if rivals:
                cues.append(_Cue(6, rng.choice(rivals), "rival_pass", to=s))
        elif k == "play" and not hand_ends:
            s = ev["seat"]
            nxt = events[i + 1] if i + 1 < len(events) else None
            p = rules.partner_of(s)
            if nxt and nxt["kind"] == "pass" and nxt["seat"] == (s + 1) % rules.players and p is not None and by_seat[p].is_bot:
                cues.append(_Cue(3, p, "partner_good_play", to=s))
        elif k in ("capicua", "domino"):
            cues.append(_out_cue(rng, rules, bots, k, ev.get("seat", hand_end["seat"] if hand_end else None)))
        elif k == "tranque":
            b = rng.choice(bots)
            winner = hand_end["team"] if hand_end else None
            side = "tie" if winner is None else "won" if team(b.seat) == winner else "lost"
            cues.append(_Cue(2, b.seat, f"tranque_{side}"))
        elif k == "match_end":
            b = rng.choice(bots)
            won = team(b.seat) == ev["winner"]
            kind = "pollona" if ev.get("pollona") else "match"
            cues.append(_Cue(0, b.seat, f"{kind}_{'win' if won else 'loss'}"))
    return cues


def _out_cue(rng: random.Random, rules: Rules, bots: list[SeatLike], kind: str, seat: int | None) -> _Cue:
    """A capicúa or a dominó: the one who went out speaks first, then their partner, then a rival."""
    team = rules.team_of
    ranked: list[tuple[int, int, str]] = []
    for b in bots:
        if b.seat == seat:
            ranked.append((0, b.seat, f"{kind}_own"))
        elif seat is not None and team(b.seat) == team(seat):
            ranked.append((1, b.seat, f"{kind}_partner"))
        else:
            ranked.append((2, b.seat, f"{kind}_rival"))
    ranked.sort()
    top = [x for x in ranked if x[0] == ranked[0][0]]
    _, speaker, moment = rng.choice(top)
    return _Cue(1 if kind == "capicua" else 2, speaker, moment, to=None if moment.endswith("_own") else seat)
