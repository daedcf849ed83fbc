"""Standings in the store: the results rows of a finished match (written in the
same transaction as its last log entry), the ratings, experience and
achievements they give, and the queries of the leaderboard, the profile and
the table's announcements.

:func:`write_results` runs inside the append's transaction
(:func:`capicua.store.tablelogs._project`); everything it decides comes from
:mod:`capicua.standings` (pure). The queries read only these tables and the
players' and seats' rows, never a record.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, and_, case, delete, func, or_, select
from sqlalchemy.orm import Session

from capicua.standings import achievements as ach
from capicua.standings.levels import LEVELS, level_of, level_xp, next_xp, xp_of
from capicua.standings.ratings import (
    NEW_RATING,
    PROVISIONAL_MATCHES,
    Rating,
    boards_of,
    rate_board,
    shown_score,
)
from capicua.standings.results import (
    HUMAN,
    SeatAtTable,
    SeatResult,
    absent_from_start,
    leavers_of,
    match_bounds,
    match_results,
)
from capicua.store import Store, iso_utc
from capicua.store.models import (
    Player,
    PlayerAchievementRow,
    PlayerLevelRow,
    RatingHistoryRow,
    RatingRow,
    ResultRow,
    StandInRow,
    TableEventRow,
    TableRow,
    TableSeatRow,
)
from capicua.table.log import Open, is_first_format, read_log

log = logging.getLogger("capicua.standings")
PERIODS = {"week": timedelta(days=7), "month": timedelta(days=30), "all": None}
TOP = 50  # rows of a leaderboard
RECENT = 20  # matches of a profile
HISTORY = 100  # rating updates of a profile's chart, per board


# ------------------------------------------------------------------ writing


@dataclass(slots=True)
class _Before:
    """What the store holds of a match's guests before it is counted."""

    ratings: dict[str, dict[str, Rating]]  # board → player → rating
    have: dict[str, frozenset[str]]  # player → achievements
    totals: dict[str, ach.Totals]
    xp: dict[str, int]


@dataclass(slots=True)
class _Plan:
    """Everything a match writes, decided before anything is written."""

    rows: list[SeatResult]
    ratings: dict[str, dict[str, Rating]]  # board → player → rating after
    earned: list[tuple[str, str]]  # (player, achievement)
    levels: dict[int, tuple[int, int, int]]  # seat → (level before, after, xp gained)


@dataclass(frozen=True, slots=True)
class TableAtEnd:
    """What a match's results need of its table besides the log: its game and its seats."""

    preset: str
    seats: list[SeatAtTable]


def table_at_end(s: Session, table_id: str) -> TableAtEnd:
    table = s.get(TableRow, table_id)
    assert table is not None
    seats = [
        SeatAtTable(r.seat, r.kind, r.player_id, r.level)
        for r in s.scalars(select(TableSeatRow).where(TableSeatRow.table_id == table_id).order_by(TableSeatRow.seat))
    ]
    return TableAtEnd(table.preset, seats)


def write_results(
    s: Session,
    table_id: str,
    number: int,
    record: dict[str, Any],
    finished_at: datetime,
    entries: list[dict[str, Any]] | None = None,
    stand_ins: bool = True,
    table: TableAtEnd | None = None,
) -> None:
    """The results of match ``number`` of the table (finished: ``record`` has its
    result) and what they give each guest. A match whose results exist is left
    alone. ``entries``: the table's log up to the match's end (default: all of it).

    A guest away from the match's first move (a stand-in played their seat from it:
    :func:`absent_from_start`) gets nothing of it; a ``stand_ins`` row says the match
    was played for them (``stand_ins=False``: not, for migration 0003's back-fill,
    which runs before that table exists). ``table``: its game and seats (default: read
    from its rows; migration 0003 reads them from the schema of its day).

    Reads first, then decides (pure), then writes: a fault in the deciding (a bug,
    a record it cannot read) is logged and costs this match its standings, never
    the append that carries the match's end. Database errors propagate (the append
    fails whole, results included)."""
    done = select(ResultRow.id).where(ResultRow.table_id == table_id, ResultRow.match_number == number)
    if s.scalar(done.limit(1)) is not None:
        return
    if entries is None:
        entries = list(
            s.scalars(select(TableEventRow.data).where(TableEventRow.table_id == table_id).order_by(TableEventRow.seq))
        )
    if table is None:
        table = table_at_end(s, table_id)
    seats = table.seats
    try:
        # A log of the first format (migration 0003 meets them before capicua migrate-logs
        # runs) says nothing of privacy, presence or controllers: read as none of them.
        read = [] if is_first_format(entries) else read_log(entries)
        private = isinstance(read[0], Open) and read[0].private if read else False
        absent = absent_from_start(read, number, [x.seat for x in seats if x.kind == HUMAN])
    except Exception:
        log.exception("the standings of match %d of table %s are not written", number, table_id)
        return
    # Only the guests who were there count as the match's humans (a friend away from
    # the start does not make it a match among friends).
    humans = sum(1 for x in seats if x.kind == HUMAN and x.seat not in absent)
    boards = boards_of(private, humans)
    guests = sorted({x.player for x in seats if x.kind == HUMAN and x.player is not None and x.seat not in absent})
    # Tables commit in parallel (PostgreSQL): a guest's standings are read and written
    # under a lock on their players row, taken in id order, so two tables that end at
    # once for the same guest add up instead of one overwriting the other.
    s.execute(select(Player.id).where(Player.id.in_(guests)).order_by(Player.id).with_for_update())
    before = _read_before(s, guests, boards)
    try:
        plan = _plan(record, seats, leavers_of(read[: match_bounds(read, number)[1]]), absent, boards, before)
    except Exception:
        log.exception("the standings of match %d of table %s are not written", number, table_id)
        return
    for board, after in plan.ratings.items():
        won = {r.player: r.won and not r.left_for_good for r in plan.rows if r.player is not None}
        for pid, new in after.items():
            row = s.get(RatingRow, (pid, board))
            if row is None:
                row = RatingRow(player_id=pid, board=board)
                s.add(row)
            row.mu, row.sigma, row.score = new.mu, new.sigma, new.score
            row.matches, row.won, row.updated_at = new.matches, new.won, finished_at
            s.add(RatingHistoryRow(player_id=pid, board=board, table_id=table_id, match_number=number,
                                   at=finished_at, mu=new.mu, sigma=new.sigma, score=new.score, won=won[pid]))
    for pid, aid in plan.earned:
        s.add(PlayerAchievementRow(player_id=pid, achievement=aid, table_id=table_id, match_number=number,
                                   at=finished_at))
    for r in plan.rows:
        level_before: int | None = None
        level_after: int | None = None
        xp = 0
        if r.player is not None:
            level_before, after_number, xp = plan.levels[r.seat]
            level_after = after_number
            level = s.get(PlayerLevelRow, r.player)
            if level is None:
                level = PlayerLevelRow(player_id=r.player, xp=0, level=0)
                s.add(level)
            level.xp, level.level, level.updated_at = before.xp.get(r.player, 0) + xp, after_number, finished_at
        s.add(
            ResultRow(
                table_id=table_id, match_number=number, seat=r.seat, player_id=r.player, bot_level=r.bot_level,
                team=r.team, points=r.points, won=r.won, pollona=r.pollona, viajera=r.viajera,
                capicuas=r.capicuas, dominoes=r.dominoes, top_double_out=r.top_double_out,
                tranques_won=r.tranques_won, hands_won=r.hands_won, hands_lost=r.hands_lost,
                hands_played=r.hands_played, left_for_good=r.left_for_good, private=private, humans=humans,
                preset=table.preset, finished_at=finished_at, xp=xp, level_before=level_before,
                level_after=level_after,
            )
        )
        if r.stood_in_for is not None and stand_ins:
            s.add(StandInRow(table_id=table_id, match_number=number, seat=r.seat, player_id=r.stood_in_for,
                             level=r.bot_level, finished_at=finished_at))


def _read_before(s: Session, guests: list[str], boards: tuple[str, ...]) -> _Before:
    ratings: dict[str, dict[str, Rating]] = {}
    for board in boards:
        ratings[board] = {
            r.player_id: Rating(r.mu, r.sigma, r.matches, r.won)
            for r in s.scalars(select(RatingRow).where(RatingRow.board == board, RatingRow.player_id.in_(guests)))
        }
    have: dict[str, set[str]] = {g: set() for g in guests}
    for pid, aid in s.execute(
        select(PlayerAchievementRow.player_id, PlayerAchievementRow.achievement).where(
            PlayerAchievementRow.player_id.in_(guests)
        )
    ):
        have[pid].add(aid)
    totals = {
        pid: ach.Totals(int(d or 0), int(h or 0), int(w or 0))
        for pid, d, h, w in s.execute(
            select(
                ResultRow.player_id, func.sum(ResultRow.dominoes), func.sum(ResultRow.hands_played),
                func.sum(case((and_(ResultRow.won, ~ResultRow.left_for_good), 1), else_=0)),
            )
            .where(ResultRow.player_id.in_(guests))
            .group_by(ResultRow.player_id)
        )
    }
    xp = {r.player_id: r.xp for r in s.scalars(select(PlayerLevelRow).where(PlayerLevelRow.player_id.in_(guests)))}
    return _Before(ratings, {g: frozenset(a) for g, a in have.items()}, totals, xp)


def _plan(
    record: dict[str, Any], seats: list[SeatAtTable], leavers: frozenset[int], absent: frozenset[int],
    boards: tuple[str, ...], before: _Before
) -> _Plan:
    rows = match_results(record, seats, leavers, absent)
    ratings = {board: rate_board(board, rows, before.ratings[board]) for board in boards}
    earned: list[tuple[str, str]] = []
    levels: dict[int, tuple[int, int, int]] = {}
    for r in rows:
        if r.player is None:
            continue
        have = before.have.get(r.player, frozenset())
        totals = before.totals.get(r.player, ach.Totals())
        earned.extend((r.player, a.id) for a in ach.earned(r, rows, totals, have))
        xp = before.xp.get(r.player, 0)
        gained = xp_of(r)
        levels[r.seat] = (level_of(xp).number, level_of(xp + gained).number, gained)
    return _Plan(rows, ratings, earned, levels)


def rerate_neighbours(conn: Connection) -> None:
    """The neighbours' board rated again from the results rows, in the order the
    matches ended, by today's rule (migration 0006): until issue 21 it rated every
    match of a guest, a match among friends too, though its name says "contra los
    vecinos". The other boards, the results, experience and achievements stay."""
    board = "neighbours"
    with Session(bind=conn) as s:
        rows = s.scalars(
            select(ResultRow).order_by(ResultRow.finished_at, ResultRow.table_id, ResultRow.match_number, ResultRow.seat)
        ).all()
        s.execute(delete(RatingHistoryRow).where(RatingHistoryRow.board == board))
        s.execute(delete(RatingRow).where(RatingRow.board == board))
        current: dict[str, Rating] = {}
        updated: dict[str, datetime] = {}
        start = 0
        while start < len(rows):  # one match at a time: its rows are consecutive (one end time)
            end = start + 1
            while end < len(rows) and (rows[end].table_id, rows[end].match_number) == (
                    rows[start].table_id, rows[start].match_number):
                end += 1
            match = [_as_seat_result(r) for r in rows[start:end]]
            first = rows[start]
            for pid, new in rate_board(board, match, current).items():
                seat = next(r for r in match if r.player == pid)
                current[pid], updated[pid] = new, first.finished_at
                s.add(RatingHistoryRow(player_id=pid, board=board, table_id=first.table_id,
                                       match_number=first.match_number, at=first.finished_at, mu=new.mu,
                                       sigma=new.sigma, score=new.score, won=seat.won and not seat.left_for_good))
            start = end
        for pid, r in current.items():
            s.add(RatingRow(player_id=pid, board=board, mu=r.mu, sigma=r.sigma, score=r.score, matches=r.matches,
                            won=r.won, updated_at=updated[pid]))
        s.flush()


def _as_seat_result(r: ResultRow) -> SeatResult:
    return SeatResult(
        seat=r.seat, player=r.player_id, bot_level=r.bot_level, team=r.team, points=r.points, won=r.won,
        pollona=r.pollona, viajera=r.viajera, capicuas=r.capicuas, dominoes=r.dominoes,
        top_double_out=r.top_double_out, tranques_won=r.tranques_won, hands_won=r.hands_won,
        hands_lost=r.hands_lost, hands_played=r.hands_played, left_for_good=r.left_for_good,
    )


# ------------------------------------------------------------------ honours


def honours(store: Store, table_id: str, number: int) -> list[dict[str, Any]]:
    """What match ``number`` of the table gave its guests: per seat that rose a level or
    earned an achievement, ``{"seat", "level_up", "achievements"}`` (the ``honours`` frame)."""
    with store.sessions() as s:
        rows = s.scalars(
            select(ResultRow).where(
                ResultRow.table_id == table_id, ResultRow.match_number == number, ResultRow.player_id.is_not(None)
            ).order_by(ResultRow.seat)
        ).all()
        got: dict[str, list[str]] = {}
        for pid, aid in s.execute(
            select(PlayerAchievementRow.player_id, PlayerAchievementRow.achievement).where(
                PlayerAchievementRow.table_id == table_id, PlayerAchievementRow.match_number == number
            )
        ):
            got.setdefault(pid, []).append(aid)
    out = []
    for r in rows:
        ids = sorted(got.get(r.player_id or "", []), key=_catalogue_order)
        up = r.level_after is not None and r.level_before is not None and r.level_after > r.level_before
        if not up and not ids:
            continue
        level = LEVELS[r.level_after] if up and r.level_after is not None else None
        out.append({
            "seat": r.seat,
            "level_up": None if level is None else {"number": level.number, "name": level.name, "name_en": level.name_en},
            "achievements": [{"id": i, "name": ach.BY_ID[i].name, "name_en": ach.BY_ID[i].name_en} for i in ids],
        })
    return out


def levels_of(store: Store, players: list[str]) -> dict[str, dict[str, Any]]:
    """Each guest's level, ``{"number", "name", "name_en"}`` (a guest never counted is
    a mirón): what the table shows beside their name."""
    with store.sessions() as s:
        xp = dict(
            s.execute(select(PlayerLevelRow.player_id, PlayerLevelRow.xp).where(PlayerLevelRow.player_id.in_(players))).all()
        )
    named = {pid: level_of(xp.get(pid, 0)) for pid in players}
    return {pid: {"number": lv.number, "name": lv.name, "name_en": lv.name_en} for pid, lv in named.items()}


def _catalogue_order(aid: str) -> int:
    return [a.id for a in ach.CATALOGUE].index(aid) if aid in ach.BY_ID else len(ach.CATALOGUE)


# ------------------------------------------------------------------ reading


def _score(value: float) -> float:
    return round(shown_score(value), 1)


def _level_brief(xp: int | None) -> dict[str, Any]:
    level = level_of(xp or 0)
    return {"number": level.number, "name": level.name}


def leaderboard(store: Store, board: str, period: str, me: str | None, now: datetime) -> dict[str, Any]:
    """The top guests of ``board`` for ``period`` (``GET /api/leaderboard``): ranked by
    their rating's μ − 3σ, those with at least :data:`PROVISIONAL_MATCHES` rated
    matches and (but for ``all``) one in the period; ``matches`` and ``won`` count
    the period's. ``me``: the caller's player id, whose row comes apart."""
    span = PERIODS[period]
    with store.sessions() as s:
        ranked = _ranked(board, None if span is None else now - span)
        top = s.execute(
            select(ranked.c.player_id, ranked.c.score, ranked.c.matches, ranked.c.won, Player.nickname, PlayerLevelRow.xp)
            .join(Player, Player.id == ranked.c.player_id)
            .outerjoin(PlayerLevelRow, PlayerLevelRow.player_id == ranked.c.player_id)
            .order_by(ranked.c.score.desc(), ranked.c.player_id)
            .limit(TOP)
        ).all()
        rows = [
            {"rank": i + 1, "player": pid, "nickname": nick, "level": _level_brief(xp), "score": _score(score),
             "matches": int(m), "won": int(w)}
            for i, (pid, score, m, w, nick, xp) in enumerate(top)
        ]
        mine = None if me is None else _my_row(s, ranked, board, span, now, me)
    return {"board": board, "period": period, "min_matches": PROVISIONAL_MATCHES, "rows": rows, "me": mine}


def _ranked(board: str, since: datetime | None) -> Any:
    """The ranked guests as a subquery: ``player_id, score, matches, won``."""
    enough = and_(RatingRow.board == board, RatingRow.matches >= PROVISIONAL_MATCHES)
    if since is None:
        return select(RatingRow.player_id, RatingRow.score, RatingRow.matches, RatingRow.won).where(enough).subquery()
    played = (
        select(
            RatingHistoryRow.player_id,
            func.count().label("matches"),
            func.sum(case((RatingHistoryRow.won, 1), else_=0)).label("won"),
        )
        .where(RatingHistoryRow.board == board, RatingHistoryRow.at >= since)
        .group_by(RatingHistoryRow.player_id)
        .subquery()
    )
    return (
        select(RatingRow.player_id, RatingRow.score, played.c.matches, played.c.won)
        .join(played, played.c.player_id == RatingRow.player_id)
        .where(enough)
        .subquery()
    )


def _my_row(
    s: Session, ranked: Any, board: str, span: timedelta | None, now: datetime, me: str
) -> dict[str, Any] | None:
    player = s.get(Player, me)
    if player is None:
        return None
    level = s.get(PlayerLevelRow, me)
    rating = s.get(RatingRow, (me, board))
    total = rating.matches if rating is not None else 0
    score = rating.score if rating is not None else NEW_RATING.score
    placed = s.execute(select(ranked.c.matches, ranked.c.won).where(ranked.c.player_id == me)).first()
    rank = None
    if placed is not None:
        ahead = s.scalar(
            select(func.count()).select_from(ranked).where(
                or_(ranked.c.score > score, and_(ranked.c.score == score, ranked.c.player_id < me))
            )
        )
        rank = int(ahead or 0) + 1
    if span is None or placed is not None:
        matches, won = (total, rating.won if rating is not None else 0) if placed is None else placed
    else:
        matches, won = s.execute(
            select(func.count(), func.sum(case((RatingHistoryRow.won, 1), else_=0))).where(
                RatingHistoryRow.player_id == me, RatingHistoryRow.board == board, RatingHistoryRow.at >= now - span
            )
        ).one()
    return {
        "rank": rank, "player": me, "nickname": player.nickname, "level": _level_brief(level.xp if level else 0),
        "score": _score(score), "matches": int(matches or 0), "won": int(won or 0),
        "matches_needed": max(0, PROVISIONAL_MATCHES - total),
    }


def profile(store: Store, player_id: str, viewer: str | None = None) -> dict[str, Any] | None:
    """A guest's page (``GET /api/players/{id}``), ``None`` for an unknown player.
    ``viewer``: who reads it (a player id, None for anyone): a private table's
    match shows its table only to the players of that match (:func:`_recent`)."""
    with store.sessions() as s:
        player = s.get(Player, player_id)
        if player is None:
            return None
        level_row = s.get(PlayerLevelRow, player_id)
        return {
            "player": player_id,
            "nickname": player.nickname,
            "level": _level_full(level_row.xp if level_row else 0),
            "ratings": {board: _rating_of(s, player_id, board) for board in ("neighbours", "friends")},
            "stats": _stats(s, player_id),
            "achievements": _achievements(s, player_id),
            "to_earn": _to_earn(s, player_id),
            "recent": _recent(s, player_id, viewer),
            # Matches a neighbour played for them from the first move: said, never counted.
            "stand_in_matches": int(
                s.scalar(select(func.count()).select_from(StandInRow).where(StandInRow.player_id == player_id)) or 0
            ),
        }


def _level_full(xp: int) -> dict[str, Any]:
    level = level_of(xp)
    return {"number": level.number, "name": level.name, "name_en": level.name_en, "xp": xp,
            "level_xp": level_xp(level.number), "next_xp": next_xp(level)}


def _rating_of(s: Session, player_id: str, board: str) -> dict[str, Any]:
    row = s.get(RatingRow, (player_id, board))
    rating = NEW_RATING if row is None else Rating(row.mu, row.sigma, row.matches, row.won)
    history = s.execute(
        select(RatingHistoryRow.at, RatingHistoryRow.score)
        .where(RatingHistoryRow.player_id == player_id, RatingHistoryRow.board == board)
        .order_by(RatingHistoryRow.at.desc(), RatingHistoryRow.id.desc())
        .limit(HISTORY)
    ).all()
    return {
        "score": _score(rating.score), "provisional": rating.provisional, "matches": rating.matches,
        "history": [{"at": iso_utc(at), "score": _score(score)} for at, score in reversed(history)],
    }


def _stats(s: Session, player_id: str) -> dict[str, Any]:
    mine = ResultRow.player_id == player_id
    matches, won, hands, hands_won, capicuas, pollonas, viajeras = s.execute(
        select(
            func.count(),
            func.sum(case((and_(ResultRow.won, ~ResultRow.left_for_good), 1), else_=0)),
            func.sum(ResultRow.hands_played),
            func.sum(ResultRow.hands_won),
            func.sum(ResultRow.capicuas),
            func.sum(case((ResultRow.pollona, 1), else_=0)),
            func.sum(case((ResultRow.viajera, 1), else_=0)),
        ).where(mine)
    ).one()
    favourite = s.scalar(
        select(ResultRow.preset).where(mine).group_by(ResultRow.preset)
        .order_by(func.count().desc(), ResultRow.preset).limit(1)
    )
    return {
        "matches": int(matches or 0), "won": int(won or 0), "hands": int(hands or 0),
        "hands_won": int(hands_won or 0), "capicuas": int(capicuas or 0), "pollonas": int(pollonas or 0),
        "viajeras": int(viajeras or 0), "favourite_preset": favourite,
    }


def _achievements(s: Session, player_id: str) -> list[dict[str, Any]]:
    rows = s.execute(
        select(PlayerAchievementRow.achievement, PlayerAchievementRow.at)
        .where(PlayerAchievementRow.player_id == player_id)
        .order_by(PlayerAchievementRow.at, PlayerAchievementRow.achievement)
    ).all()
    out = []
    for aid, at in rows:
        a = ach.BY_ID.get(aid)
        if a is not None:
            out.append({"id": a.id, "name": a.name, "name_en": a.name_en, "description": a.description,
                        "description_en": a.description_en, "at": iso_utc(at)})
    return out


def _to_earn(s: Session, player_id: str) -> list[dict[str, Any]]:
    have = s.scalars(select(PlayerAchievementRow.achievement).where(PlayerAchievementRow.player_id == player_id))
    return [{"id": a.id, "name": a.name, "name_en": a.name_en, "goal": a.goal, "goal_en": a.goal_en}
            for a in ach.still_to_earn(have)]


def _recent(s: Session, player_id: str, viewer: str | None = None) -> list[dict[str, Any]]:
    """The guest's last matches. A private table's id is its invitation: a match
    played there shows its table, its replay link and who played it only to
    ``viewer`` when they played it too (a results row of it, or a neighbour stood in
    for them); to anyone else it is a private match, without them."""
    mine = s.execute(
        select(ResultRow.table_id, ResultRow.match_number, ResultRow.seat, ResultRow.team, ResultRow.preset,
               ResultRow.finished_at, ResultRow.won, ResultRow.left_for_good, ResultRow.private)
        .where(ResultRow.player_id == player_id)
        .order_by(ResultRow.finished_at.desc(), ResultRow.id.desc()).limit(RECENT)
    ).all()
    if not mine:
        return []
    # The other seats of just those matches, as plain columns (loading whole rows as
    # objects cost ten times the query for a busy guest).
    matches = or_(*(and_(ResultRow.table_id == r.table_id, ResultRow.match_number == r.match_number) for r in mine))
    seats: dict[tuple[str, int], list[tuple[int, int, int, str | None]]] = {}
    played: set[tuple[str, int]] = set()  # the private matches the viewer played too
    for table_id, number, seat, team, points, pid in s.execute(
        select(ResultRow.table_id, ResultRow.match_number, ResultRow.seat, ResultRow.team, ResultRow.points,
               ResultRow.player_id)
        .where(matches).order_by(ResultRow.seat)
    ):
        seats.setdefault((table_id, number), []).append((seat, team, points, pid))
        if viewer is not None and pid == viewer:
            played.add((table_id, number))
    private = [r for r in mine if r.private and (r.table_id, r.match_number) not in played]
    if viewer is not None and private:
        stood_in = or_(*(and_(StandInRow.table_id == r.table_id, StandInRow.match_number == r.match_number)
                         for r in private))
        played.update((t, n) for t, n in s.execute(
            select(StandInRow.table_id, StandInRow.match_number).where(stood_in, StandInRow.player_id == viewer)
        ))
    tables = sorted({r.table_id for r in mine})
    names = {
        (table_id, seat): name
        for table_id, seat, name in s.execute(
            select(TableSeatRow.table_id, TableSeatRow.seat, TableSeatRow.name).where(TableSeatRow.table_id.in_(tables))
        )
    }
    out = []
    for r in mine:
        at_table = seats.get((r.table_id, r.match_number), [])
        scores = [0] * (max(team for _, team, _, _ in at_table) + 1)
        for _, team, points, _ in at_table:
            scores[team] = points
        shown = not r.private or (r.table_id, r.match_number) in played
        out.append({
            "table": r.table_id if shown else None, "match": r.match_number, "preset": r.preset,
            "finished_at": iso_utc(r.finished_at), "seat": r.seat, "team": r.team, "private": bool(r.private),
            "partners": [names.get((r.table_id, x), "") for x, team, _, _ in at_table if team == r.team and x != r.seat]
            if shown else [],
            "rivals": [names.get((r.table_id, x), "") for x, team, _, _ in at_table if team != r.team] if shown else [],
            # Each name's player id (their profile), None for a neighbour: in the order of the names.
            "partner_players": [p for x, team, _, p in at_table if team == r.team and x != r.seat] if shown else [],
            "rival_players": [p for x, team, _, p in at_table if team != r.team] if shown else [],
            "scores": scores, "won": r.won and not r.left_for_good,
            "replay": f"/replay/{r.table_id}/{r.match_number}" if shown else None,
        })
    return out
