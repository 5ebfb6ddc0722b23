"""The daily challenge: one deal per game and UTC day, the first attempt ranked, later ones
practice, and the leaderboards — on the in-memory store and on a real Redis."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from harness import member, player, running_server, winning_actions

from client.api import ServerError
from protocol.daily import DAY_MS, candidate_deals, day_of, day_seed, next_day_start_ms
from protocol.games import GAMES, rules_for
from protocol.replay import replay
from protocol.solver import solve
from protocol.solver.certify import Certified
from protocol.solver.search import screen
from protocol.wire import decode_from_server
from server.config import Settings
from server.desks.daily import DailyDeals, certify_candidates, prove_winnable
from server.handover.moment import now
from server.store import MemoryStore, Store, open_store

GAME, DEAL = "mount_sunflower", 18


async def test_three_players_play_the_daily_challenge_and_are_ranked(store: Store) -> None:
    wins = winning_actions(GAME, DEAL)
    today = day_of(int(time.time() * 1000))
    await store.days.set_daily_deal(GAME, today, DEAL)  # a deal the test can win
    async with running_server(store) as server:
        ann, bob, cy = [await member(server, n) for n in ("Ann", "Bob", "Cy")]
        attempts = {}
        for client in (ann, bob, cy):
            started = await client.daily_start(GAME)
            assert started["ranked"] and started["day"] == today
            assert started["race"]["deal"] is None  # today's deal number is not revealed
            assert started["next_day_ms"] == next_day_start_ms(today)
            attempts[client.player] = started["race"]["race"]
        for action in wins:  # Ann wins without detours
            await ann.act(attempts[ann.player], action)
        for action in wins[:10] + ["undo"] + wins[9:]:  # Bob wins with an undo more
            await bob.act(attempts[bob.player], action)
        for action in wins[:50]:  # Cy gives up part way
            await cy.act(attempts[cy.player], action)
        await cy.resign(attempts[cy.player])
        for client in (ann, bob, cy):
            await client.next_event("result")

        practice = await ann.daily_start(GAME)  # a second attempt the same day
        assert practice["ranked"] is False
        await ann.resign(practice["race"]["race"])

        board = await waiting_for_entries(ann, 3)
        assert [e["name"] for e in board["top"]] == ["Ann", "Bob", "Cy"]
        assert [e["rank"] for e in board["top"]] == [1, 2, 3]
        assert [e["finished"] for e in board["top"]] == [True, True, False]
        assert board["top"][0]["actions"] < board["top"][1]["actions"]
        assert board["me"]["rank"] == 1 and board["total"] == 3
        assert all(e["deal"] is None for e in board["top"])  # not while the day runs
        assert board["next_day_ms"] == next_day_start_ms(today)
        around = await cy.daily_board(GAME, top=1, around=1)
        assert [e["name"] for e in around["around"]] == ["Bob", "Cy"]
        assert around["me"]["rank"] == 3 and [e["name"] for e in around["top"]] == ["Ann"]

        best = await bob.best_board(GAME)
        assert [e["name"] for e in best["top"]] == ["Ann", "Bob"]  # finishers only
        yesterday = day_of(int(time.time() * 1000) - DAY_MS)
        past = await bob.daily_board(GAME, day=yesterday)
        assert past["total"] == 0 and past["day"] == yesterday
        for client in (ann, bob, cy):
            await client.close()


async def waiting_for_entries(client, count):  # type: ignore[no-untyped-def]
    """Results are written behind the players' backs: poll briefly until they land."""
    for _ in range(100):
        board = await client.daily_board(GAME)
        if board["total"] >= count:
            return board
        await asyncio.sleep(0.02)
    raise AssertionError(f"the board never reached {count} entries: {board}")


async def test_an_account_s_daily_attempt_shows_it_plays_with_an_account(store: Store) -> None:
    races = {}
    async with running_server(store) as server:
        ann, gus = await member(server, "Ann"), await player(server, "Gus")
        for client, account in ((ann, True), (gus, False)):
            started = await client.daily_start(GAME)
            (standing,) = started["race"]["players"]
            assert (standing["name"], standing["account"]) == (client.name, account)
            assert standing["rating"] is None  # a daily attempt shows no rating
            races[account] = started["race"]["race"]
    async with running_server(store) as server:  # read back from the store after a restart
        for account, race in races.items():
            room = await server.races.find(race, now())
            assert [r.standing()["account"] for r in room.race.racers.values()] == [account]


async def test_the_day_deal_is_the_rule_s_first_candidate_and_is_stored_once() -> None:
    store = MemoryStore()
    secret = "an operator's secret of some length"
    async with (
        running_server(store, daily_secret=secret) as server,
        await player(server, "Ann") as ann,
    ):
        started = await ann.daily_start("sanibel")
        today = started["day"]
        expected = next(candidate_deals("sanibel", today, day_seed(secret, today)))
        assert await store.days.daily_deal("sanibel", today) == expected
        assert started["certified"] is False  # this test server does not certify
        room = server.race_desk.rooms[started["race"]["race"]]
        assert room.race.settings.deal == expected


async def test_an_attempt_in_progress_must_end_before_another_starts() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        await ann.daily_start(GAME)
        with pytest.raises(ServerError) as refused:
            await ann.daily_start(GAME)
        assert refused.value.code == "attempt_in_progress"


async def test_a_certified_daily_deal_is_proven_winnable_and_its_solution_is_never_sent() -> None:
    async with running_server(daily_certify=True, daily_solver_nodes=100_000) as server:
        ann = await player(server, "Ann", record=True)
        for _ in range(100):  # the server proves the day's deal in the background
            try:
                started = await ann.daily_start("sanibel")
                break
            except ServerError as error:
                assert error.code == "daily_not_ready"
                await asyncio.sleep(0.1)
        assert started["certified"] is True
        deal = await server.store.days.daily_deal("sanibel", started["day"])
        assert deal is not None and deal in list(
            itertools.islice(
                candidate_deals(
                    "sanibel", started["day"], day_seed(server.daily.secret, started["day"])
                ),
                64,
            )
        )
        rules = rules_for("sanibel")
        solution = solve(rules, rules.deal(deal), max_nodes=100_000)
        assert solution.verdict == "won"
        assert rules.is_won(replay(rules, deal, solution.actions).position)
        for frame in ann.received:  # no message carries a list of actions
            message = decode_from_server(frame, ann.encoding)
            assert "actions" not in message or isinstance(message["actions"], int)
            assert not any(isinstance(v, list) and len(v) > 40 for v in message.values())
        await ann.close()


async def test_a_player_is_told_to_come_back_while_the_day_s_deal_is_being_proven() -> None:
    proof_may_finish = threading.Event()

    def slow_certifier(game: str, number: int, nodes: int, deadline: float) -> bool:
        proof_may_finish.wait(10)
        return True

    secret = "a secret for this test, long enough"
    settings = dataclasses.replace(
        Settings(), daily_certify=True, daily_secret=secret, fair_play_solver_nodes=0
    )  # no solver's line to wait for as well (test_fair_play_review)
    with ThreadPoolExecutor(max_workers=1) as pool:
        deals = DailyDeals(MemoryStore(), settings, slow_certifier, pool)
        assert await deals.ready("shady_lanes", "2026-11-29") is None  # answered at once
        assert await deals.ready("shady_lanes", "2026-11-29") is None  # still at work
        proof_may_finish.set()
        await deals.preparing[("shady_lanes", "2026-11-29")]
        first = next(candidate_deals("shady_lanes", "2026-11-29", day_seed(secret, "2026-11-29")))
        assert await deals.ready("shady_lanes", "2026-11-29") == (first, True)


def deals_in(message: object) -> list[object]:
    """Every value of a ``deal`` or ``nonce`` field anywhere in a message."""
    if isinstance(message, dict):
        found = [message[key] for key in ("deal", "nonce") if key in message]
        return found + [d for value in message.values() for d in deals_in(value)]
    if isinstance(message, list):
        return [d for item in message for d in deals_in(item)]
    return []


async def test_no_message_shows_a_daily_deal_or_its_nonce_while_its_day_runs() -> None:
    store = MemoryStore()
    today = day_of(int(time.time() * 1000))
    await store.days.set_daily_deal(GAME, today, DEAL)
    async with running_server(store) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        seen: list[object] = []
        first = await bob.daily_start(GAME)  # Bob plays first, so he may watch Ann
        seen.append(first)
        await bob.resign(first["race"]["race"])
        seen.append((await bob.next_event("result")).data)
        attempt = await ann.daily_start(GAME)
        race = attempt["race"]["race"]
        seen += [attempt, await bob.spectate(race)]
        seen.append(await ann.act(race, winning_actions(GAME, DEAL)[0]))
        seen.append(await ann.resign(race))
        seen.append((await ann.next_event("result")).data)
        seen.append((await bob.next_event("result")).data)  # the spectator feed's
        seen += [await ann.snapshot(race), await bob.snapshot(race)]
        seen += [await ann.race_log(race), await ann.daily_board(GAME)]
        seen.append(await ann.best_board(GAME))
        assert deals_in(seen) and set(deals_in(seen)) == {None}


async def test_without_a_configured_secret_nobody_can_work_out_the_day_s_deal() -> None:
    stores = [MemoryStore(), MemoryStore()]
    deals = []
    for store in stores:  # two processes, each with its own memory
        async with running_server(store) as server, await player(server, "Ann") as ann:
            today = (await ann.daily_start("sanibel"))["day"]
            deals.append(await store.days.daily_deal("sanibel", today))
    assert next(candidate_deals("sanibel", today, "")) not in deals
    assert deals[0] != deals[1]  # a random secret per process


async def test_with_redis_a_random_secret_is_made_on_first_start_and_kept(redis_url: str) -> None:
    prefix = f"secret-test-{time.monotonic_ns()}:"
    secrets_used = []
    for _ in range(2):  # a start, then a restart on the same Redis
        store = open_store(redis_url, prefix=prefix)
        async with running_server(store) as server, await player(server, "Ann") as ann:
            today = (await ann.daily_start("sanibel"))["day"]
            secret = await server.daily.secret_in_use()
            secrets_used.append(secret)
            assert await store.days.daily_deal("sanibel", today) == next(
                candidate_deals("sanibel", today, day_seed(secret, today))
            )
    assert secrets_used[0] == secrets_used[1]
    assert len(secrets_used[0]) >= 32


async def test_a_configured_secret_is_used_and_a_short_one_is_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with running_server(daily_secret="long enough to be unguessable, truly") as server:
        assert server.daily.secret == "long enough to be unguessable, truly"
    assert "daily secret" not in caplog.text
    async with running_server(daily_secret="short") as server:
        assert server.daily.secret == "short"
    assert "daily secret is short" in caplog.text


async def test_certifying_a_day_s_deal_stops_at_its_budget_and_serves_it_uncertified() -> None:
    secret = "a secret for this test, long enough"
    settings = dataclasses.replace(
        Settings(), daily_certify=True, daily_secret=secret, daily_certify_budget_s=1.0
    )
    deals = DailyDeals(MemoryStore(), settings)  # the real solver, in a worker process
    try:
        async with asyncio.timeout(30):  # unbudgeted, Shady Lanes took minutes here
            # deal 1 of Shady Lanes: the solver cannot decide it in a second
            number, certified = await deals.certify("shady_lanes", [1, 2, 3])
    finally:
        deals.close()
    assert (number, certified) == (1, False)


async def test_the_certification_budget_bounds_the_candidates_tried() -> None:
    tried: list[int] = []

    def never_proves(game: str, number: int, nodes: int, deadline: float) -> bool:
        tried.append(number)
        time.sleep(0.05)
        return False

    settings = dataclasses.replace(
        Settings(), daily_certify=True, daily_secret="x" * 32, daily_certify_budget_s=0.3
    )
    with ThreadPoolExecutor(max_workers=1) as pool:
        deals = DailyDeals(MemoryStore(), settings, never_proves, pool)
        number, certified = await deals.deal_for("sanibel", "2026-11-29")
    assert certified is False
    assert number == next(
        candidate_deals("sanibel", "2026-11-29", day_seed("x" * 32, "2026-11-29"))
    )
    assert 1 <= len(tried) <= 8  # 0.3 s of 0.05 s tries, not all 64 candidates


async def test_a_failed_preparation_is_logged_with_its_error_and_tried_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    calls = []

    def fails_once(game: str, number: int, nodes: int, deadline: float) -> bool:
        calls.append(number)
        if len(calls) == 1:
            raise RuntimeError("the solver broke")
        return True

    settings = dataclasses.replace(
        Settings(), daily_certify=True, daily_secret="y" * 32, fair_play_solver_nodes=0
    )
    with ThreadPoolExecutor(max_workers=1) as pool:
        deals = DailyDeals(MemoryStore(), settings, fails_once, pool)
        assert await deals.ready("sanibel", "2026-11-29") is None
        await asyncio.wait([deals.preparing[("sanibel", "2026-11-29")]])
        assert await deals.ready("sanibel", "2026-11-29") is None  # tried again
        failure = [r for r in caplog.records if "preparing a daily deal failed" in r.message]
        assert failure and "the solver broke" in str(failure[0].exc_info)
        await deals.preparing[("sanibel", "2026-11-29")]
        assert (await deals.ready("sanibel", "2026-11-29"))[1] is True  # type: ignore[index]


async def test_the_lease_holder_fixes_today_s_yesterday_s_and_tomorrow_s_deals_ahead() -> None:
    """Today's for accounts, yesterday's for guests, tomorrow's for the next day."""
    store = MemoryStore()
    now_ms = int(time.time() * 1000)
    days = [day_of(now_ms), day_of(now_ms - DAY_MS), day_of(now_ms + DAY_MS)]
    async with running_server(store):
        for _ in range(200):  # nobody asked: the daily lease holder does it at its start
            fixed = [await store.days.daily_deal(g, d) for g in GAMES for d in days]
            if None not in fixed:
                break
            await asyncio.sleep(0.02)
    assert None not in fixed
    nonces = [await store.days.daily_nonce(g, d) for g in GAMES for d in days]
    assert all(nonces)  # each committed with its nonce


async def test_the_day_s_deal_is_the_first_won_in_the_order_of_widening_rounds() -> None:
    secret = "z" * 32
    day = "2026-11-29"
    first, second = itertools.islice(candidate_deals("sanibel", day, day_seed(secret, day)), 2)
    asked: list[tuple[int, int]] = []

    def needs_more_for_the_first(game: str, number: int, nodes: int, deadline: float) -> bool:
        asked.append((number, nodes))
        return number == second or nodes >= 32_000  # the second wins in round one

    settings = dataclasses.replace(Settings(), daily_certify=True, daily_secret=secret)
    with ThreadPoolExecutor(max_workers=1) as pool:
        deals = DailyDeals(MemoryStore(), settings, needs_more_for_the_first, pool)
        assert await deals.deal_for("sanibel", day) == (second, True)
    assert asked == [(first, 8_000), (second, 8_000)]


def test_shady_lanes_candidates_are_screened_and_tried_most_promising_first() -> None:
    rules = rules_for("shady_lanes")
    candidates = [1, 2, 16, 3]  # deal 16 is won within 20,000 positions, 1-3 are not
    looks = {number: screen(rules, rules.deal(number)) for number in candidates}
    result = certify_candidates(prove_winnable, "shady_lanes", candidates, 20_000, 600.0)
    assert isinstance(result, Certified) and result.number == 16
    ahead = sum(1 for number in candidates if looks[number][0] > looks[16][0]) + sum(
        1 for number in candidates[:2] if looks[number][0] == looks[16][0]
    )
    assert result.tried == ahead + 1
    screened = sum(nodes for _, nodes in looks.values())
    assert result.nodes == screened + 20_000 * ahead + result.solution.nodes
