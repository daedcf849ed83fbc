"""A private table's id is its invitation (issue 21): its matches are shown only to
their players. A public profile lists a private match without its table, names or
replay link to anyone but a player of it (who asks: the token in the Authorization
header); the replay and the analysis of a private match answer ``403 private_match``
to anyone else, unless they bring the match's own link (``?k=``, the ``share`` of the
replay its players get)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from capicua.server.app import create_app
from capicua.table.log import Open
from capicua.tools.bench_replay import guest_and_neighbours, store_finished

with warnings.catch_warnings():  # Starlette would rather have httpx2, which is not a dependency
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

PRIVATE, PUBLIC = "t_friendsPrivateTable0001", "t_neighboursPublicTable01"


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server with Ana and Beto's private match (neighbours in the other seats), a match
    of Ana's against the neighbours, and Cheo, who played neither."""
    db: Path = tmp_path_factory.mktemp("private") / "db.sqlite3"
    pool = ThreadPoolExecutor(max_workers=1)
    app = create_app(database_url=f"sqlite:///{db}", executor=pool, bot_delay=(0.0, 0.0))
    with TestClient(app) as client:
        app.state.deps.analyst.backlog = 0  # the analyses are not what is tested: none is computed
        store = app.state.deps.store
        people = {name: store.create_player(name) for name in ("Ana", "Beto", "Cheo")}
        ana, beto = people["Ana"][0], people["Beto"][0]
        seats = guest_and_neighbours(ana)
        seats[2] = {"seat": 2, "kind": "human", "name": "Beto", "player": beto, "level": "medio", "character": "fefa"}
        store_finished(store, Open(PRIVATE, "cubano", {"target": 50}, "friends-secret", tuple(seats), True, ana).to_json())
        store_finished(store, Open(PUBLIC, "cubano", {"target": 50}, "open-secret",
                                   tuple(guest_and_neighbours(ana))).to_json())
        yield {"client": client, "ids": {n: p for n, (p, _) in people.items()},
               "tokens": {n: t for n, (_, t) in people.items()}}
    pool.shutdown(wait=True)


def recent_of(site: dict[str, Any], headers: dict[str, str]) -> tuple[dict[str, Any], str]:
    r = site["client"].get(f"/api/players/{site['ids']['Ana']}", headers=headers)
    assert r.status_code == 200, r.text
    return {m["private"]: m for m in r.json()["recent"]}, r.text


def test_a_strangers_read_of_a_profile_shows_no_private_table(site: dict[str, Any]) -> None:
    for headers in ({}, bearer(site["tokens"]["Cheo"]), bearer("a-token-no-guest-has")):
        by_kind, text = recent_of(site, headers)
        hidden = by_kind[True]
        assert hidden["table"] is None and hidden["replay"] is None
        assert hidden["partners"] == [] and hidden["rivals"] == []
        assert hidden["partner_players"] == [] and hidden["rival_players"] == []
        # Not its id, not who played it (by name or by profile).
        assert PRIVATE not in text and "Beto" not in text and site["ids"]["Beto"] not in text
        assert hidden["won"] in (True, False) and len(hidden["scores"]) == 2  # the owner's result stays
        assert by_kind[False]["table"] == PUBLIC and by_kind[False]["replay"] == f"/replay/{PUBLIC}/1"


def test_the_players_of_a_private_match_see_it_on_the_profile(site: dict[str, Any]) -> None:
    for who in ("Ana", "Beto"):
        by_kind, _ = recent_of(site, bearer(site["tokens"][who]))
        shown = by_kind[True]
        assert shown["table"] == PRIVATE and shown["replay"] == f"/replay/{PRIVATE}/1"
        assert shown["partners"] == ["Beto"] and shown["private"] is True
        assert shown["partner_players"] == [site["ids"]["Beto"]]  # his name links to his profile


def test_a_private_replay_is_for_its_players_or_its_own_link(site: dict[str, Any]) -> None:
    client, tokens = site["client"], site["tokens"]
    url = f"/api/replay/{PRIVATE}/1"
    for headers in ({}, bearer(tokens["Cheo"])):
        r = client.get(url, headers=headers)
        assert r.status_code == 403 and r.json()["error"]["code"] == "private_match", r.text
        assert "hands" not in r.text
    got = {}
    for who in ("Ana", "Beto"):
        r = client.get(url, headers=bearer(tokens[who]))
        assert r.status_code == 200, r.text
        got[who] = r.json()
        assert r.headers["cache-control"].startswith("private")
    share = got["Ana"]["share"]
    assert share.startswith(f"/replay/{PRIVATE}/1?k=") and got["Beto"]["share"] == share
    key = share.split("?k=", 1)[1]
    # The match's own link opens its replay to anyone; another key does not.
    linked = client.get(f"{url}?k={key}")
    assert linked.status_code == 200 and linked.json()["hands"] == got["Ana"]["hands"]
    wrong = client.get(f"{url}?k={'0' * len(key)}", headers=bearer(tokens["Cheo"]))
    assert wrong.status_code == 403 and wrong.json()["error"]["code"] == "private_match"
    # The key is not the table's: the live table's secret and the other matches stay closed.
    assert key not in json.dumps(got["Ana"]["table"]) and "friends-secret" not in json.dumps(got["Ana"])
    # A match against the neighbours is anyone's, with no link of its own.
    public = client.get(f"/api/replay/{PUBLIC}/1")
    assert public.status_code == 200 and "share" not in public.json()


def test_a_private_analysis_is_for_its_players_or_its_own_link(site: dict[str, Any]) -> None:
    client, tokens = site["client"], site["tokens"]
    url = f"/api/analysis/{PRIVATE}/1"
    key = client.get(f"/api/replay/{PRIVATE}/1", headers=bearer(tokens["Beto"])).json()["share"].split("?k=")[1]
    for headers in ({}, bearer(tokens["Cheo"])):
        r = client.get(url, headers=headers)
        assert r.status_code == 403 and r.json()["error"]["code"] == "private_match", r.text
    for asked in (client.get(url, headers=bearer(tokens["Beto"])), client.get(f"{url}?k={key}")):
        assert asked.status_code == 200 and asked.json()["status"] in ("ready", "pending"), asked.text
    assert client.get(f"/api/analysis/{PUBLIC}/1").status_code == 200


@pytest.mark.parametrize("path", [f"/api/replay/{PRIVATE}/1", f"/api/analysis/{PRIVATE}/1"])
def test_a_bad_question_about_a_match_is_a_coded_error(site: dict[str, Any], path: str) -> None:
    client = site["client"]
    cases = [
        (f"{path}?token={site['tokens']['Ana']}", {}, "token"),
        (f"{path}?k=a&k=b", {}, "k"),
        (f"{path}?full=1", {}, "full"),
        (path, {"Authorization": "Basic YWJj"}, "authorization"),
    ]
    for url, headers, field in cases:
        r = client.get(url, headers=headers)
        assert r.status_code == 400, (url, r.text)
        assert r.json()["error"]["code"] == "malformed" and r.json()["error"]["field"] == field
        assert "Traceback" not in r.text


def test_the_profile_query_hides_a_private_table_on_each_database(database_url: str) -> None:
    from capicua.store import Store, standings

    store = Store(database_url)
    try:
        store.migrate()
        (ana, _), (beto, _), (cheo, _) = (store.create_player(n) for n in ("Ana", "Beto", "Cheo"))
        seats = guest_and_neighbours(ana)
        seats[2] = {"seat": 2, "kind": "human", "name": "Beto", "player": beto, "level": "medio", "character": "fefa"}
        store_finished(store, Open(PRIVATE, "cubano", {"target": 50}, "sec", tuple(seats), True, ana).to_json())
        for viewer, shown in ((None, False), (cheo, False), (beto, True), (ana, True)):
            profile = standings.profile(store, ana, viewer)
            assert profile is not None
            (match,) = profile["recent"]
            assert match["private"] is True
            assert (match["table"], match["replay"]) == ((PRIVATE, f"/replay/{PRIVATE}/1") if shown else (None, None))
            assert match["partners"] == (["Beto"] if shown else [])
    finally:
        store.close()
