"""The store contract, daily challenge and boards: the in-memory store and the Redis store
(on a real server) must keep the same promises."""

from __future__ import annotations

import asyncio
import itertools
import random
from datetime import date, timedelta

import pytest
from store_contract import DAY, EPOCH_MS, GAME, NEXT_DAY, a_run, players, record

from protocol.ranking import Run, ranked
from server.store import Store

# days of their own for runs offered to the all-time board (one ranked run a player a day)
DAYS = (str(date(2030, 1, 1) + timedelta(days=n)) for n in itertools.count())

# daily deal


async def test_daily_deal_is_absent_until_one_is_set(store: Store) -> None:
    assert await store.days.daily_deal(GAME, DAY) is None


async def test_the_first_daily_deal_written_wins(store: Store) -> None:
    assert await store.days.set_daily_deal(GAME, DAY, 123_456) == 123_456
    assert await store.days.set_daily_deal(GAME, DAY, 777) == 123_456
    assert await store.days.daily_deal(GAME, DAY) == 123_456


async def test_concurrent_daily_deal_writers_all_get_the_one_stored(store: Store) -> None:
    numbers = list(range(40_000, 40_020))
    answers = await asyncio.gather(*(store.days.set_daily_deal(GAME, DAY, n) for n in numbers))
    stored = await store.days.daily_deal(GAME, DAY)
    assert stored in numbers
    assert answers == [stored] * len(numbers)


async def test_daily_deals_are_kept_per_game_and_day(store: Store) -> None:
    await store.days.set_daily_deal(GAME, DAY, 1)
    await store.days.set_daily_deal("shady_lanes", DAY, 2)
    await store.days.set_daily_deal(GAME, NEXT_DAY, 10**20 - 1)
    assert await store.days.daily_deal(GAME, DAY) == 1
    assert await store.days.daily_deal("shady_lanes", DAY) == 2
    assert await store.days.daily_deal(GAME, NEXT_DAY) == 10**20 - 1


# claims


async def test_the_first_daily_secret_proposed_is_kept_and_later_ones_get_it(
    store: Store,
) -> None:
    assert await store.daily_secret("first") == "first"
    assert await store.daily_secret("second") == "first"


async def test_the_first_claim_is_ranked_and_later_attempts_are_practice(store: Store) -> None:
    assert await store.days.claim_daily(GAME, DAY, "ann", "a1") is True
    assert await store.days.claim_daily(GAME, DAY, "ann", "a2") is False
    assert await store.days.claim_daily(GAME, DAY, "ann", "a3") is False
    assert await store.days.ranked_attempt(GAME, DAY, "ann") == "a1"


async def test_claiming_the_ranked_attempt_again_still_says_it_is_ranked(store: Store) -> None:
    assert await store.days.claim_daily(GAME, DAY, "ann", "a1") is True
    assert await store.days.claim_daily(GAME, DAY, "ann", "a2") is False
    assert await store.days.claim_daily(GAME, DAY, "ann", "a1") is True


async def test_twenty_concurrent_claims_give_exactly_one_ranked_attempt(store: Store) -> None:
    attempts = [f"attempt-{i}" for i in range(20)]
    answers = await asyncio.gather(*(store.days.claim_daily(GAME, DAY, "ann", a) for a in attempts))
    assert answers.count(True) == 1
    assert await store.days.ranked_attempt(GAME, DAY, "ann") == attempts[answers.index(True)]


async def test_claims_are_kept_per_player_game_and_day(store: Store) -> None:
    assert await store.days.claim_daily(GAME, DAY, "ann", "a1")
    assert await store.days.claim_daily(GAME, DAY, "bob", "b1")
    assert await store.days.claim_daily("shady_lanes", DAY, "ann", "a2")
    assert await store.days.claim_daily(GAME, NEXT_DAY, "ann", "a3")
    assert await store.days.ranked_attempt(GAME, DAY, "ann") == "a1"
    assert await store.days.ranked_attempt(GAME, DAY, "carl") is None


# recording daily runs


async def test_a_run_is_recorded_only_for_the_claimed_attempt(store: Store) -> None:
    await store.days.claim_daily(GAME, DAY, "ann", "a1")
    assert await store.days.record_daily(GAME, DAY, a_run("ann", race="a2")) is False
    assert await store.days.record_daily(GAME, DAY, a_run("bob", race="b1")) is False
    assert (await store.days.daily_board(GAME, DAY, top=10)).total == 0
    assert await store.days.record_daily(GAME, DAY, a_run("ann", race="a1")) is True
    assert players((await store.days.daily_board(GAME, DAY, top=10)).top) == ["ann"]


async def test_a_run_is_recorded_only_once_per_player_and_day(store: Store) -> None:
    first = a_run("ann", race="a1", time_ms=90_000)
    assert await record(store, first)
    faster = a_run("ann", race="a1", time_ms=10_000, at_ms=EPOCH_MS + 5)
    assert await store.days.record_daily(GAME, DAY, faster) is False
    board = await store.days.daily_board(GAME, DAY, top=10, player="ann")
    assert board.total == 1
    assert board.me is not None and board.me.run == first


async def test_recording_the_same_run_again_changes_nothing(store: Store) -> None:
    run = a_run("ann")
    assert await record(store, run)
    assert await store.days.record_daily(GAME, DAY, run) is True
    board = await store.days.daily_board(GAME, DAY, top=10)
    assert [entry.run for entry in board.top] == [run]


async def test_past_days_stay_on_their_own_boards(store: Store) -> None:
    await record(store, a_run("ann"), DAY)
    await record(store, a_run("bob"), NEXT_DAY)
    assert players((await store.days.daily_board(GAME, DAY, top=5)).top) == ["ann"]
    assert players((await store.days.daily_board(GAME, NEXT_DAY, top=5)).top) == ["bob"]


async def test_a_day_nobody_played_has_an_empty_board(store: Store) -> None:
    board = await store.days.daily_board(GAME, DAY, top=10, player="ann", around=3)
    assert board.total == 0
    assert (board.top, board.around, board.me) == ([], [], None)


# the order of a board


async def test_ties_in_time_fall_to_actions_then_to_who_finished_first(store: Store) -> None:
    runs = [
        a_run("ann", time_ms=60_000, actions=100, at_ms=EPOCH_MS + 1000),
        a_run("bob", time_ms=60_000, actions=90, at_ms=EPOCH_MS + 2000),
        a_run("cat", time_ms=60_000, actions=90, at_ms=EPOCH_MS + 1500),
        a_run("dan", time_ms=59_000, actions=500, at_ms=EPOCH_MS + 3000),
    ]
    for run in runs:
        await record(store, run)
    assert players((await store.days.daily_board(GAME, DAY, top=10)).top) == [
        "dan",
        "cat",
        "bob",
        "ann",
    ]


async def test_runs_that_did_not_finish_follow_by_progress_then_time(store: Store) -> None:
    runs = [
        a_run("ann", finished=False, progress=50, time_ms=10),
        a_run("bob", finished=False, progress=100, time_ms=20),
        a_run("cat", time_ms=3_600_000),
        a_run("dan", finished=False, progress=100, time_ms=10),
    ]
    for run in runs:
        await record(store, run)
    assert players((await store.days.daily_board(GAME, DAY, top=10)).top) == [
        "cat",
        "dan",
        "bob",
        "ann",
    ]


async def test_the_board_order_is_the_total_order_of_runs(store: Store) -> None:
    rng = random.Random(20240501)
    names = [f"p{i:02d}" for i in range(50)] + ["zoë", "émile", "Zed", "ann-1", "ann"]
    runs = [
        a_run(
            name,
            finished=rng.random() < 0.6,
            time_ms=rng.choice([50_000, 50_000, 61_000, 75_500]),
            actions=rng.choice([90, 90, 120]),
            progress=rng.choice([10, 40, 40, 77]),
            at_ms=EPOCH_MS + rng.choice([0, 5, 5, 900]),
        )
        for name in names
    ]
    for run in runs:
        await record(store, run)
    board = await store.days.daily_board(GAME, DAY, top=len(runs))
    assert board.total == len(runs)
    assert [entry.run for entry in board.top] == ranked(runs)
    assert [entry.rank for entry in board.top] == list(range(1, len(runs) + 1))


async def test_actions_beyond_the_encoded_range_tie_and_fall_to_who_finished_first(
    store: Store,
) -> None:
    # protocol/ranking.py: up to 16,383 actions keep their order; more tie.
    await record(store, a_run("ann", actions=20_000, at_ms=EPOCH_MS + 1))
    await record(store, a_run("bob", actions=17_000, at_ms=EPOCH_MS + 2))
    assert players((await store.days.daily_board(GAME, DAY, top=10)).top) == ["ann", "bob"]


# board windows


async def ten_ranked_runs(store: Store) -> list[Run]:
    """p01 .. p10, ranked in that order, recorded in a scrambled order."""
    runs = [a_run(f"p{rank:02d}", time_ms=1000 * rank) for rank in range(1, 11)]
    for run in random.Random(7).sample(runs, len(runs)):
        await record(store, run)
    return runs


async def test_the_board_gives_top_the_window_around_me_me_and_the_total(store: Store) -> None:
    runs = await ten_ranked_runs(store)
    board = await store.days.daily_board(GAME, DAY, top=3, player="p05", around=2)
    assert board.total == 10
    assert [(e.rank, e.run) for e in board.top] == [(1, runs[0]), (2, runs[1]), (3, runs[2])]
    assert [(e.rank, e.run.player) for e in board.around] == [
        (3, "p03"),
        (4, "p04"),
        (5, "p05"),
        (6, "p06"),
        (7, "p07"),
    ]
    assert board.me is not None
    assert (board.me.rank, board.me.run) == (5, runs[4])


async def test_the_window_around_me_stops_at_the_edges_of_the_board(store: Store) -> None:
    await ten_ranked_runs(store)
    first = await store.days.daily_board(GAME, DAY, top=0, player="p01", around=2)
    last = await store.days.daily_board(GAME, DAY, top=0, player="p10", around=2)
    assert [e.rank for e in first.around] == [1, 2, 3]
    assert [e.rank for e in last.around] == [8, 9, 10]
    assert first.top == last.top == []


async def test_with_no_window_around_me_is_just_me(store: Store) -> None:
    await ten_ranked_runs(store)
    board = await store.days.daily_board(GAME, DAY, top=1, player="p07")
    assert board.me is not None and board.me.rank == 7
    assert board.around == [board.me]


async def test_a_player_without_an_entry_has_no_me_and_nothing_around(store: Store) -> None:
    await ten_ranked_runs(store)
    board = await store.days.daily_board(GAME, DAY, top=20, player="nobody", around=3)
    assert (board.total, len(board.top), board.around, board.me) == (10, 10, [], None)


async def test_a_negative_window_is_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.days.daily_board(GAME, DAY, top=-1)
    with pytest.raises(ValueError):
        await store.days.best_board(GAME, top=3, player="ann", around=-2)


# the all-time board


async def test_a_finished_daily_run_is_offered_to_the_all_time_board(store: Store) -> None:
    finished = a_run("ann", time_ms=70_000)
    await record(store, finished)
    await record(store, a_run("bob", finished=False, progress=90))
    board = await store.days.best_board(GAME, top=10)
    assert [entry.run for entry in board.top] == [finished]


async def offered(store: Store, *runs: Run) -> None:
    """Each run recorded as its player's ranked run of a day of its own: a finished one
    is offered to the all-time board, as the server's daily runs are."""
    for run in runs:
        await record(store, run, day=next(DAYS))


async def best(store: Store) -> list[Run]:
    return [entry.run for entry in (await store.days.best_board(GAME, top=10)).top]


async def test_a_better_run_replaces_the_players_stored_run(store: Store) -> None:
    better = a_run("ann", time_ms=80_000, actions=99, at_ms=EPOCH_MS + 9, race="r2", name="A")
    await offered(store, a_run("ann", time_ms=80_000, at_ms=EPOCH_MS), better)
    board = await store.days.best_board(GAME, top=10, player="ann")
    assert board.total == 1
    assert board.me == board.top[0]
    assert board.me is not None and board.me.run == better


async def test_an_equal_later_run_does_not_displace_the_earlier_one(store: Store) -> None:
    earlier = a_run("ann", time_ms=80_000, at_ms=EPOCH_MS)
    equal = a_run("ann", time_ms=80_000, at_ms=EPOCH_MS + 1, race="r2", name="Other name")
    await offered(store, earlier, equal)
    assert await best(store) == [earlier]


async def test_a_worse_run_does_not_displace_the_stored_one(store: Store) -> None:
    stored = a_run("ann", time_ms=80_000)
    await offered(store, stored, a_run("ann", time_ms=80_001, actions=1, race="r2"))
    assert await best(store) == [stored]


async def test_a_run_that_did_not_finish_never_enters_the_all_time_board(store: Store) -> None:
    await offered(store, a_run("ann", finished=False, progress=103))
    assert (await store.days.best_board(GAME, top=10, player="ann")).total == 0


async def test_replacing_a_run_moves_the_player_on_the_all_time_board(store: Store) -> None:
    await offered(
        store,
        a_run("ann", time_ms=50_000),
        a_run("bob", time_ms=60_000),
        a_run("bob", time_ms=40_000, race="r2"),
    )
    board = await store.days.best_board(GAME, top=10, player="ann", around=1)
    assert players(board.top) == ["bob", "ann"]
    assert board.me is not None and board.me.rank == 2
    assert players(board.around) == ["bob", "ann"]


async def test_fifty_concurrent_runs_leave_the_best_whole_run(store: Store) -> None:
    rng = random.Random(50)
    times = rng.sample(range(30_000, 90_000, 7), 50)
    runs = [
        a_run(
            "ann",
            time_ms=t,
            actions=rng.randint(80, 300),
            at_ms=EPOCH_MS + i,
            race=f"race-{i}",
            name=f"Ann the {i}th",
        )
        for i, t in enumerate(times)
    ]
    await asyncio.gather(*(offered(store, run) for run in runs))
    board = await store.days.best_board(GAME, top=10)
    assert board.total == 1
    assert board.top[0].run == min(runs, key=Run.sort_key)
