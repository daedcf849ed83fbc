"""The neighbours of the barrio: the bot characters who sit at the table and talk.

Each character has an id (the web page's avatar roster uses the same ids), a
name, a tagline, a default playing level, a style and avatar colours, and
lines in Cuban Spanish with an English subtitle for the moments that matter.

A neighbour never gives away tiles ("señas" are cheating): no line names a
number, a double or a tile (``tests/test_server_neighbours.py`` checks it).
The server chooses when someone talks (:func:`pick_line`, with the table's
seeded generator), so the table is lively without chattering on every play.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

# The moments a neighbour talks about. "own" is the speaker's own deed,
# "partner" their partner's, "rival" the other team's.
MOMENTS = (
    "hand_start",
    "pass",  # the speaker passes
    "rival_pass",  # a rival passes (teasing)
    "partner_good_play",  # the partner played and the next rival had to pass
    "capicua_own",
    "capicua_partner",
    "capicua_rival",
    "tranque",
    "domino_own",
    "domino_partner",
    "domino_rival",
    "pollona_win",
    "pollona_loss",
    "match_win",
    "match_loss",
)

Line = tuple[str, str]  # (Cuban Spanish, English subtitle)


@dataclass(frozen=True)
class Character:
    id: str
    name: str
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


# Lines every neighbour may say, mixed with each character's own.
COMMON: dict[str, list[Line]] = {
    "hand_start": [
        ("¡Agua va! A ver qué nos toca.", "Shuffle up! Let's see what we get."),
        ("Vamos a jugar serio, caballeros.", "Let's play for real, gentlemen."),
        ("Los mirones son de palo, ¿eh?", "Spectators keep quiet, eh?"),
    ],
    "pass": [
        ("Paso.", "I pass."),
        ("Toco la mesa.", "I knock on the table."),
        ("Me dejaron seco. Paso.", "They left me dry. Pass."),
        ("¡Ay, qué clase de agua! Paso.", "Oh, what a shuffle! Pass."),
    ],
    "rival_pass": [
        ("¡Tocó! Así mismo se juega.", "Knocked! That's how it's played."),
        ("Eso, a tocar la mesa.", "That's it, knock on the table."),
    ],
    "partner_good_play": [
        ("¡Eso es, compañero!", "That's it, partner!"),
        ("¡Bien jugado, mi socio!", "Well played, my friend!"),
        ("Así, así, que se ahoguen.", "Like that, let them drown."),
    ],
    "capicua_own": [
        ("¡Capicúa! Por ambos lados, mi hermano.", "Capicúa! Out at both ends, brother."),
    ],
    "capicua_partner": [
        ("¡Capicúa! ¡Qué clase de compañero tengo!", "Capicúa! What a partner I've got!"),
    ],
    "capicua_rival": [
        ("¡Capicúa! Hay que quitarse el sombrero.", "Capicúa! Hats off to that."),
    ],
    "tranque": [
        ("¡Tranque! A contar se ha dicho.", "Blocked! Time to count."),
        ("Se trancó el juego. A virar las fichas.", "The game is blocked. Turn the tiles over."),
    ],
    "domino_own": [
        ("¡Me pegué!", "I'm out!"),
        ("¡Dominó, caballero!", "Domino, sir!"),
    ],
    "domino_partner": [
        ("¡Se pegó mi compañero! A contar.", "My partner's out! Let's count."),
    ],
    "domino_rival": [
        ("Bueno, se pegaron. Agua nueva.", "Well, they went out. New shuffle."),
        ("Ni modo, esta se la llevan ustedes.", "Oh well, this hand is yours."),
    ],
    "pollona_win": [
        ("¡Pollona! Sin un tanto se van pa' la casa.", "Pollona! You go home without a single point."),
    ],
    "pollona_loss": [
        ("¡Pollona! Qué vergüenza, no le digan a nadie.", "Pollona! How shameful, don't tell anyone."),
    ],
    "match_win": [
        ("¡Ganamos! Se acabó el partido.", "We won! The match is over."),
    ],
    "match_loss": [
        ("Perdimos, pero mañana hay revancha.", "We lost, but there's a rematch tomorrow."),
    ],
}


def _c(
    id: str,
    name: str,
    tagline: Line,
    level: str,
    style: str,
    avatar: dict[str, str],
    lines: dict[str, list[Line]],
) -> Character:
    return Character(id, name, tagline[0], tagline[1], level, style, avatar, lines)


CHARACTERS: list[Character] = [
    _c(
        "cuca",
        "Cuca",
        ("Cuca, la del café", "Cuca, who makes the coffee"),
        "medio",
        "Paciente; guarda sus fichas y nunca se apura.",
        {"emoji": "☕", "skin": "#c98e63", "hair": "#e8e4dc", "shirt": "#d1495b", "style": "glasses"},
        {
            "hand_start": [("Ahorita cuelo otro café. ¡Agua!", "I'll brew more coffee in a moment. Shuffle!")],
            "pass": [("Ay, mi madre. Paso, paso.", "Oh my. Pass, pass.")],
            "partner_good_play": [("¡Ay, qué lindo jugaste, mijo!", "Oh, how nicely you played, dear!")],
            "domino_own": [("¡Me pegué! Y el café está caliente.", "I'm out! And the coffee's hot.")],
            "domino_rival": [("Bueno, se pegaron. Tómense un cafecito.", "Well, you're out. Have a little coffee.")],
            "match_loss": [("Perdí, pero el café me quedó sabroso.", "I lost, but my coffee came out tasty.")],
            "pollona_win": [("¡Pollona! Hoy no les cuelo café.", "Pollona! No coffee for you today.")],
        },
    ),
    _c(
        "pancho",
        "Pancho",
        ("Pancho, el de la esquina", "Pancho, from the corner table"),
        "dificil",
        "Agresivo: bota la gorda temprano y tranca cuando le conviene.",
        {"emoji": "🎩", "skin": "#8d5a3b", "hair": "#2b1d14", "shirt": "#2a9d8f", "style": "hat"},
        {
            "hand_start": [("Toda la vida en esta esquina. A jugar.", "A lifetime on this corner. Let's play.")],
            "pass": [("Paso... pero no se confíen.", "Pass... but don't get comfortable.")],
            "tranque": [("¡Tranque! Como lo tenía planeado.", "Blocked! Just as I planned.")],
            "domino_own": [("¡Me pegué! Aprendan, muchachos.", "I'm out! Learn something, kids.")],
            "capicua_own": [("¡Capicúa! Eso no se aprende en los libros.", "Capicúa! You don't learn that from books.")],
            "match_win": [("En esta esquina mando yo.", "On this corner, I'm the boss.")],
        },
    ),
    _c(
        "yoli",
        "Yoli",
        ("Yoli, la enfermera del policlínico", "Yoli, the nurse from the clinic"),
        "medio",
        "Cuidadosa; cuenta las fichas que salen.",
        {"emoji": "🩺", "skin": "#e0ac7e", "hair": "#5a2e1a", "shirt": "#f4a261", "style": "bun"},
        {
            "hand_start": [("Una partidita antes de la guardia.", "A quick game before my shift.")],
            "pass": [("Paso. Esto se está poniendo feo.", "Pass. This is getting ugly.")],
            "rival_pass": [("¿Tocaste? Te voy a tomar la presión.", "You knocked? Let me take your blood pressure.")],
            "domino_partner": [("¡Eso, compañero! Receta cumplida.", "That's it, partner! Prescription filled.")],
            "tranque": [("¡Tranque! Todo el mundo a contar, despacito.", "Blocked! Everybody count, slowly.")],
        },
    ),
    _c(
        "chucho",
        "Chucho",
        ("Chucho, el mecánico", "Chucho, the mechanic"),
        "botagorda",
        "Bota la gorda y le da duro a la mesa.",
        {"emoji": "🔧", "skin": "#6b4226", "hair": "#1b1b1b", "shirt": "#264653", "style": "cap"},
        {
            "hand_start": [("¡Dale, que tengo un carro abierto en el taller!", "Come on, I've got a car open at the shop!")],
            "pass": [("¡Ñooo! Paso.", "Noooo! Pass.")],
            "domino_own": [("¡PÁ! ¡Me pegué, caballero!", "BAM! I'm out, sir!")],
            "partner_good_play": [("¡Esa sí sonó, compadre!", "That really rang out, buddy!")],
            "domino_rival": [("Me cogieron con la gorda en la mano.", "You caught me with the heavy ones in hand.")],
            "match_loss": [("Hoy la mesa no me quiso.", "The table didn't love me today.")],
        },
    ),
    _c(
        "mima",
        "Mima",
        ("Mima, la abuela del solar", "Mima, the grandmother of the tenement"),
        "experto",
        "Calculadora: se acuerda de cada pase.",
        {"emoji": "👵", "skin": "#f0c8a0", "hair": "#9b9b9b", "shirt": "#8e6fb5", "style": "bun"},
        {
            "hand_start": [("Siéntense derechitos, que esto es serio.", "Sit up straight, this is serious.")],
            "pass": [("Paso, mijito. Pero me acuerdo de todo.", "Pass, sonny. But I remember everything.")],
            "rival_pass": [("Ya sé lo que no tienes, mi amor.", "Now I know what you don't have, dear.")],
            "capicua_own": [("¡Capicúa! Toda una vida jugando, mijo.", "Capicúa! A lifetime of playing, son.")],
            "pollona_win": [("¡Pollona! Como en los tiempos de antes.", "Pollona! Like in the old days.")],
            "match_win": [("La abuela todavía sabe, ¿eh?", "Grandma still knows how to play, eh?")],
        },
    ),
    _c(
        "cheo",
        "Cheo",
        ("Cheo, el jubilado del parque", "Cheo, the retiree from the park"),
        "dificil",
        "Tranquilo; le gusta trancar y ganar contando.",
        {"emoji": "🧔", "skin": "#a86b45", "hair": "#3a2618", "shirt": "#e9c46a", "style": "moustache"},
        {
            "hand_start": [("Con calma, que el dominó lo inventó un mudo.", "Easy now, dominoes was invented by a mute.")],
            "pass": [("Paso. Sin comentarios.", "Pass. No comment.")],
            "tranque": [("¡Tranque! A ver quién tiene menos.", "Blocked! Let's see who has the fewest points.")],
            "domino_rival": [("Bien jugado. No se lo digan a mi mujer.", "Well played. Don't tell my wife.")],
            "partner_good_play": [("Así mismo, sin apuro.", "Just like that, no hurry.")],
        },
    ),
    _c(
        "fefa",
        "Fefa",
        ("Fefa, la maestra de la primaria", "Fefa, the primary school teacher"),
        "medio",
        "Ordenada; le encanta explicar las jugadas.",
        {"emoji": "📚", "skin": "#d49a6a", "hair": "#171010", "shirt": "#3a86ff", "style": "curls"},
        {
            "hand_start": [("Atención, clase: empieza la mano.", "Attention, class: the hand begins.")],
            "pass": [("Paso. Anótenlo en la libreta.", "Pass. Write it in the score book.")],
            "capicua_partner": [("¡Capicúa! Sobresaliente, compañero.", "Capicúa! Top marks, partner.")],
            "domino_own": [("¡Me pegué! Tarea cumplida.", "I'm out! Homework done.")],
            "match_loss": [("Perdimos. Mañana repasamos la lección.", "We lost. Tomorrow we review the lesson.")],
        },
    ),
    _c(
        "nene",
        "Nene",
        ("Nene, el chama del barrio", "Nene, the neighbourhood kid"),
        "random",
        "Novato: juega lo primero que ve.",
        {"emoji": "🧢", "skin": "#b77b52", "hair": "#2e1c10", "shirt": "#ef476f", "style": "cap"},
        {
            "hand_start": [("¡Asere, qué volá! ¿Me enseñan?", "Hey dude, what's up! Will you teach me?")],
            "pass": [("¿Paso? ¿Eso se puede? Bueno, paso.", "Pass? Is that allowed? OK, pass.")],
            "domino_own": [("¡Me pegué! ¿Viste eso, asere?", "I'm out! Did you see that, dude?")],
            "domino_rival": [("¿Ya se acabó? ¡No entendí nada!", "It's over already? I understood nothing!")],
            "match_win": [("¡Le ganamos a los viejos!", "We beat the old folks!")],
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
    "tranque": 0.8,
    "domino_own": 0.9,
    "domino_partner": 0.6,
    "domino_rival": 0.5,
    "pollona_win": 1.0,
    "pollona_loss": 1.0,
    "match_win": 0.9,
    "match_loss": 0.8,
}


def lines_for(character_id: str, moment: str) -> list[Line]:
    """Every line ``character_id`` may say at ``moment`` (their own first)."""
    own = BY_ID[character_id].lines.get(moment, []) if character_id in BY_ID else []
    return list(own) + list(COMMON.get(moment, []))


def pick_line(rng: random.Random, character_id: str, moment: str, always: bool = False) -> Line | None:
    """Maybe a line for ``moment``: ``None`` when the neighbour keeps quiet.

    Own lines are twice as likely as the common ones.
    """
    if not always and rng.random() >= CHANCE.get(moment, 0.0):
        return None
    own = BY_ID[character_id].lines.get(moment, []) if character_id in BY_ID else []
    pool = list(own) * 2 + list(COMMON.get(moment, []))
    if not pool:
        return None
    return rng.choice(pool)


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
