"""Ratings: openskill's Plackett–Luce model over the teams of a match.

Guests carry a (μ, σ) per board; neighbours play as players with fixed
ratings per level (:data:`BOT_ANCHORS`, fitted to the match-win estimates of
docs/bots.md: see docs/ratings.md), which the model rates against but never
updates. Pure: the store reads the ratings before and writes what
:func:`rate_match` returns.
"""

from __future__ import annotations

from dataclasses import dataclass

from openskill.models import PlackettLuce

from capicua.standings.results import SeatResult

BOARDS = ("neighbours", "friends")
MODEL = PlackettLuce()
INITIAL_MU = MODEL.mu  # 25
INITIAL_SIGMA = MODEL.sigma  # 25 / 3
BOT_SIGMA = 1.0
# μ per neighbour level, botagorda at a new guest's μ; least squares on the logits
# of the five "est. match win" figures (docs/ratings.md, "Anchors").
BOT_ANCHORS: dict[str, float] = {
    "random": 22.7,
    "botagorda": 25.0,
    "medio": 26.2,
    "dificil": 27.0,
    "experto": 27.6,
}
PROVISIONAL_MATCHES = 10  # rated matches before a score is ranked (docs/ratings.md)


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float
    sigma: float
    matches: int = 0
    won: int = 0

    @property
    def score(self) -> float:
        """The conservative figure ranked: μ − 3σ (shown as :func:`shown_score`)."""
        return self.mu - 3 * self.sigma

    @property
    def provisional(self) -> bool:
        return self.matches < PROVISIONAL_MATCHES


NEW_RATING = Rating(INITIAL_MU, INITIAL_SIGMA)


def shown_score(score: float) -> float:
    """The score as the pages show it: μ − 3σ, never below 0. A new guest starts at
    0 (25 − 3 × 25/3) and an early defeat lowers μ faster than it shrinks σ, which
    would show a beginner a negative score (−0.9 after one lost match, −2.1 after two); the
    ranking keeps the exact figure (docs/ratings.md, "Shown score")."""
    return max(0.0, score)


def bot_rating(level: str | None) -> Rating:
    """A neighbour's fixed rating (a level this table does not know plays as botagorda)."""
    return Rating(BOT_ANCHORS.get(level or "", BOT_ANCHORS["botagorda"]), BOT_SIGMA)


def boards_of(private: bool, humans: int) -> tuple[str, ...]:
    """Which boards a match may feed: the neighbours' board (for the guests whose
    rivals were all neighbours: :func:`rate_board`), and a private table with at
    least two guests the friends' board as well."""
    return BOARDS if private and humans >= 2 else BOARDS[:1]


def against_neighbours(row: SeatResult, rows: list[SeatResult]) -> bool:
    """Whether the match was, for this seat, a match against the neighbours: every
    rival seat held by a neighbour (a seat a stand-in held from the first move is a
    neighbour's: its row has no guest)."""
    rivals = [r for r in rows if r.team != row.team]
    return bool(rivals) and all(r.player is None for r in rivals)


def rate_board(board: str, rows: list[SeatResult], before: dict[str, Rating]) -> dict[str, Rating]:
    """:func:`rate_match` on one board: "contra los vecinos" rates only the guests
    whose rivals were all neighbours (a match among friends is not one against the
    neighbours, whoever sat beside them); "entre amigos" every guest of the match."""
    after = rate_match(rows, before)
    if board != "neighbours":
        return after
    counted = {r.player for r in rows if r.player is not None and against_neighbours(r, rows)}
    return {pid: new for pid, new in after.items() if pid in counted}


def rate_match(rows: list[SeatResult], before: dict[str, Rating]) -> dict[str, Rating]:
    """The new rating of every guest of one match, from their ratings ``before``
    (a guest missing there starts at :data:`NEW_RATING`).

    The teams are ranked by the match result. A guest who left for good is rated
    as having lost; their partner (and everyone else) as the match really ended,
    except that a partner whose team lost while the leaver was away keeps their
    rating (docs/ratings.md, "Leavers")."""
    teams = sorted({r.team for r in rows})
    by_team = {t: [r for r in rows if r.team == t] for t in teams}

    def current(r: SeatResult) -> Rating:
        if r.player is None:
            return bot_rating(r.bot_level)
        return before.get(r.player, NEW_RATING)

    def rated(ranks: list[int]) -> dict[int, tuple[float, float]]:
        """(μ, σ) after the match per seat, for the given rank of each team."""
        groups = [[MODEL.rating(mu=current(r).mu, sigma=current(r).sigma) for r in by_team[t]] for t in teams]
        out = MODEL.rate(groups, ranks=[float(x) for x in ranks])
        return {r.seat: (p.mu, p.sigma) for t, new in zip(teams, out, strict=True) for r, p in zip(by_team[t], new, strict=True)}

    real = rated([0 if by_team[t][0].won else 1 for t in teams])
    leaver_teams = {r.team for r in rows if r.left_for_good}
    as_lost = {
        t: rated([1 if u == t else 0 for u in teams]) for t in leaver_teams
    }
    after: dict[str, Rating] = {}
    for r in rows:
        if r.player is None:
            continue
        old = current(r)
        if r.left_for_good:
            mu, sigma = as_lost[r.team][r.seat]
        elif r.team in leaver_teams and not r.won:
            mu, sigma = old.mu, old.sigma
        else:
            mu, sigma = real[r.seat]
        won = r.won and not r.left_for_good
        after[r.player] = Rating(mu, sigma, old.matches + 1, old.won + int(won))
    return after
