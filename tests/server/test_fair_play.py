"""Provable fairness through a real server: every race and every day's deal is committed
to before anyone plays, the same commitment in every message, and a finished race's log
(``race_log``) replays to its result; a daily run's log and deal stay private until the
day is over. On the in-memory store and on a real Redis."""

from __future__ import annotations

import time

import pytest
from harness import member, player, running_server, winning_actions

from client.api import ServerError
from protocol.daily import DAY_MS, day_of
from protocol.fairness import commitment, daily_scope
from protocol.games import rules_for
from protocol.race import Now
from protocol.verify import check_log
from server.store import Store, open_store

GAME, DEAL = "mount_sunflower", 18


def tomorrow(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server's clock says the day is over (its wall clock a day on)."""
    for clock in ("server.edge.gateway.now", "server.desks.session_desk.now"):
        monkeypatch.setattr(
            clock, lambda: Now(int(time.monotonic() * 1000), int(time.time() * 1000) + DAY_MS)
        )


async def test_a_random_race_s_commitment_is_shown_from_the_start_and_opened_at_the_end(
    store: Store,
) -> None:
    async with running_server(store, countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        created = await ann.create_race("sanibel")
        race, committed = created["race"], created["commitment"]
        assert created["deal"] is None and len(committed) == 64
        with pytest.raises(ServerError) as refused:
            await ann.race_log(race)
        assert refused.value.code == "race_not_finished"
        seen = [(await bob.join_race(race))["commitment"]]
        seen.append((await ann.next_event("joined")).data["race"]["commitment"])
        seen += [(await c.next_event("started")).data["commitment"] for c in (ann, bob)]
        for client in (ann, bob):
            await client.resign(race)
        result = (await ann.next_event("result")).data
        assert set(seen) == {committed} and result["commitment"] == committed
        deal, nonce = int(result["deal"]), result["nonce"]
        options = dict(rules_for("sanibel").options)
        assert commitment("sanibel", f"race:{race}", options, deal, nonce) == committed

        outsider = await player(server, "Cy")  # anyone may check a finished race
        log = await outsider.race_log(race)
        assert (log["deal"], log["nonce"], log["commitment"]) == (str(deal), nonce, committed)
        assert check_log(log) == []
        rematch = await ann.rematch(race)  # a new deal: a new nonce and commitment
        assert rematch["commitment"] != committed
        with pytest.raises(ServerError) as refused:
            await outsider.race_log("0" * 16)
        assert refused.value.code == "race_not_found"


async def test_a_won_race_s_log_replays_to_its_result(store: Store) -> None:
    async with running_server(store, countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME, deal=DEAL))["race"]
        await bob.join_race(race)
        for client in (ann, bob):
            await client.next_event("started")
        wins = winning_actions(GAME, DEAL)
        for action in wins[:3] + ["undo"] + wins[2:]:
            await ann.act(race, action)
        for action in wins[:20]:
            await bob.act(race, action)
        await bob.resign(race)
        result = (await bob.next_event("result")).data
        log = await bob.race_log(race)
        assert log["result"] == result
        assert [len(r["actions"]) for r in log["racers"]] == [len(wins) + 2, 20]
        assert check_log(log) == []


async def test_a_day_s_deal_is_committed_once_for_everyone_and_opened_when_the_day_is_over(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    today = day_of(int(time.time() * 1000))
    await store.days.set_daily_deal(GAME, today, DEAL, "ab" * 16)
    async with running_server(store) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        board = await ann.daily_board(GAME)
        committed = board["commitment"]
        options = dict(rules_for(GAME).options)
        assert committed == commitment(GAME, daily_scope(today), options, DEAL, "ab" * 16)
        assert (board["deal"], board["nonce"]) == (None, None)
        attempts = {}
        for client in (ann, bob):
            started = await client.daily_start(GAME)
            assert started["commitment"] == started["race"]["commitment"] == committed
            attempts[client] = started["race"]["race"]
        for action in winning_actions(GAME, DEAL):
            await ann.act(attempts[ann], action)
        await bob.resign(attempts[bob])
        own = await ann.race_log(attempts[ann])  # her own run, without the deal
        assert (own["deal"], own["nonce"]) == (None, None) and own["commitment"] == committed
        with pytest.raises(ServerError) as refused:
            await bob.race_log(attempts[ann])
        assert refused.value.code == "log_refused"

        tomorrow(monkeypatch)
        board = await bob.daily_board(GAME, day=today)
        assert (board["deal"], board["nonce"], board["commitment"]) == (
            str(DEAL),
            "ab" * 16,
            committed,
        )
        for attempt in attempts.values():
            log = await bob.race_log(attempt)
            assert log["commitment"] == committed and check_log(log) == []


async def test_a_day_s_commitment_stays_the_same_across_restarts_and_nodes(redis_url: str) -> None:
    prefix = f"fair-nodes-{time.monotonic_ns()}:"
    stores = [open_store(redis_url, prefix=prefix) for _ in range(2)]
    seen = []
    for index, store in enumerate(stores):  # a restart, or a second node on the same Redis
        async with running_server(store) as server, await member(server, f"Ann{index}") as ann:
            started = await ann.daily_start("sanibel")
            seen.append(started["commitment"])
            await ann.resign(started["race"]["race"])
            seen.append((await ann.daily_board("sanibel"))["commitment"])
    for store in stores:
        await store.close()
    assert len(set(seen)) == 1 and seen[0] is not None
