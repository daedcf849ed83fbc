"""Errors raised by the engine.

Two families, both ``ValueError`` subclasses (python-chess style): *malformed*
input cannot be read at all, *illegal* input is readable but breaks a rule.
The server maps each to a coded protocol error.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every error the engine raises on bad input."""

    code = "error"


class MalformedActionError(EngineError):
    """The action is not well formed (wrong type, unknown tile, unknown end)."""

    code = "malformed"


class IllegalActionError(EngineError):
    """The action is well formed but breaks a rule (tile not held, does not fit)."""

    code = "illegal"


class OutOfTurnError(IllegalActionError):
    """A seat acted while it was not its turn."""

    code = "out_of_turn"


class PhaseError(IllegalActionError):
    """The action does not belong to the current phase of the match."""

    code = "bad_phase"


class NoDealError(EngineError):
    """No deal of the hand stands: the rules void every deal tried (see ``deal.MAX_DEALS``)."""

    code = "no_deal"


class RulesError(ValueError):
    """A rules object could not be built: unknown preset or option, or an impossible combination."""

    code = "bad_rules"


class RecordError(ValueError):
    """A match record is malformed or does not replay.

    ``hand`` and ``action`` locate the first bad entry (0-based) when known;
    ``field`` names the recorded fact that is wrong (``"result.points"``,
    ``"deals"``, ``"scores"`` ...).
    """

    code = "bad_record"

    def __init__(
        self, message: str, hand: int | None = None, action: int | None = None, field: str | None = None
    ) -> None:
        super().__init__(message)
        self.hand = hand
        self.action = action
        self.field = field
