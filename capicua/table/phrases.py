"""Table talk without señas: the fixed phrases (and emoji) players may say.

There is no free text anywhere, so nobody can sing their tiles to a partner:
a player says a phrase by its id, and no phrase names a number, a double or
a tile (``tests/table/test_table_core.py`` checks it), nor tells a partner what the
speaker holds (no "¡Qué data más fea!": a seña about one's hand). The table's
players are guests whose gender nobody asked, so a phrase addresses them in
words that agree with anyone ("mi gente", "pareja"; ``tests/web/test_web_words.py``).
Each phrase has its Cuban Spanish text and an English subtitle (an emoji has
none: it would only repeat itself). Ids are stable: the table's log keeps them.
"""

from __future__ import annotations

Phrase = tuple[str, str]  # (Cuban Spanish, English subtitle: "" for an emoji, which needs none)

PHRASES: dict[str, Phrase] = {
    "hola": ("¡Buenas, mi gente!", "Evening, everyone!"),
    "agua": ("¡Agua!", "Shuffle up!"),
    "paso": ("¡Paso!", "I pass!"),
    "me_pegue": ("¡Me pegué!", "I'm out!"),
    "tranque": ("¡Tranque!", "It's blocked!"),
    "capicua": ("¡Capicúa!", "Capicúa!"),
    "buena_companero": ("¡Buena, pareja!", "Nice play, partner!"),
    "se_enfria": ("Juega, que se enfría el café.", "Play, the coffee's getting cold."),
    "piensalo": ("Piénsalo bien, que no hay apuro.", "Take your time, no rush."),
    "ay_mi_madre": ("¡Ay, mi madre!", "Oh, my goodness!"),
    "que_suerte": ("¡Qué suerte tienes!", "You lucky thing!"),
    "bien_jugado": ("Bien jugado.", "Well played."),
    "no_me_lo_creo": ("¡No me lo puedo creer!", "I can't believe it!"),
    "otra": ("¿Echamos otra?", "Shall we play another?"),
    "ya_vengo": ("Ya vengo, un momentico.", "Be right back, just a moment."),
    "gracias": ("Gracias, mi gente.", "Thanks, everyone."),
    "buena_partida": ("Buena partida.", "Good game."),
    "mudo": ("El dominó lo inventó un mudo.", "Dominoes was invented by a mute: play, don't talk."),
    "paciencia": ("Paciencia, que la noche es larga.", "Patience, the night is long."),
    "emoji_risa": ("😂", ""),
    "emoji_fuego": ("🔥", ""),
    "emoji_aplauso": ("👏", ""),
    "emoji_cafe": ("☕", ""),
    "emoji_sorpresa": ("😮", ""),
}


def phrase(phrase_id: str) -> Phrase | None:
    """The phrase with that id, or ``None`` for an id that is not one."""
    return PHRASES.get(phrase_id)


def catalogue() -> list[dict[str, str]]:
    """Every phrase, in order, for the page: ``[{"id", "es", "en"}]``."""
    return [{"id": k, "es": es, "en": en} for k, (es, en) in PHRASES.items()]
