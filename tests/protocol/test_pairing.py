"""Quick pairing: the widening window, who is paired with whom, the pools' rules, and
properties of any pool at any time (checked against a plain reading of the rules)."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from protocol.pairing import (
    WINDOW,
    PairingError,
    Pools,
    State,
    Waiting,
    Window,
    accepts,
    matches,
)


def players(*entries: tuple[str, float, int]) -> list[Waiting]:
    return [Waiting(*entry) for entry in entries]


def test_the_window_starts_at_100_widens_50_a_second_and_opens_fully_after_20_s() -> None:
    assert WINDOW.half_width(0) == 100
    assert WINDOW.half_width(1000) == 150
    assert WINDOW.half_width(10_000) == 600
    assert WINDOW.half_width(19_999) == pytest.approx(1099.95)
    assert WINDOW.half_width(20_000) == math.inf
    assert WINDOW.half_width(-5000) == 100  # a join stamped after now: a new player


def test_a_pair_needs_both_players_to_accept_the_gap() -> None:
    old, new = Waiting("old", 1500, 0), Waiting("new", 1800, 9000)
    assert not accepts(old, new, 9000)  # old accepts ±550, new only ±100
    assert not accepts(new, old, 9000)
    assert accepts(old, new, 13_000)  # new now accepts ±300
    assert matches([old, new], 9000) == []
    assert matches([old, new], 13_000) == [(old, new)]


def test_a_bot_meets_a_person_only_when_the_person_asked_for_bots() -> None:
    robo, tin = Waiting("robo", 1500, 0, bot=True), Waiting("tin", 1510, 0, bot=True)
    ann, eve = Waiting("ann", 1500, 0), Waiting("eve", 1500, 0, wants_bots=True)
    assert not accepts(robo, ann, 60_000) and not accepts(ann, robo, 60_000)
    assert accepts(robo, eve, 0) and accepts(eve, robo, 0)
    assert accepts(robo, tin, 0) and accepts(ann, eve, 0)
    assert matches([robo, ann], 60_000) == []
    assert matches([ann, robo, eve], 0) == [(ann, eve)]  # the person who asked is not a must


def test_a_gap_exactly_at_the_edge_of_the_window_is_accepted() -> None:
    ann, bob = players(("ann", 1500, 0), ("bob", 1600, 0))
    assert matches([ann, bob], 0) == [(ann, bob)]
    assert matches([ann, Waiting("cy", 1600.5, 0)], 0) == []


def test_the_closest_rating_is_preferred() -> None:
    ann, bob, cy = players(("ann", 1500, 0), ("bob", 1580, 0), ("cy", 1440, 0))
    assert matches([ann, bob, cy], 0) == [(ann, cy)]


def test_the_longest_waiting_player_chooses_first() -> None:
    ann, bob, cy = players(("ann", 1500, 1000), ("bob", 1560, 0), ("cy", 1540, 1000))
    # cy is closer to ann, but bob has waited longer and cy is bob's closest
    assert matches([ann, bob, cy], 1000) == [(bob, cy)]


def test_equal_gaps_go_to_the_longer_waiting_then_the_lower_id() -> None:
    ann, bob, cy = players(("ann", 1500, 0), ("bob", 1450, 500), ("cy", 1550, 200))
    assert matches([ann, bob, cy], 1000) == [(ann, cy)]
    ann, bob, cy = players(("ann", 1500, 0), ("bob", 1450, 500), ("cy", 1550, 500))
    assert matches([ann, bob, cy], 1000) == [(ann, bob)]


def test_nobody_is_paired_outside_the_window_until_the_window_reaches_them() -> None:
    far = players(("ann", 1000, 0), ("bob", 2500, 0))
    assert matches(far, 19_999) == []
    assert matches(far, 20_000) == [tuple(far)]


def test_a_player_entered_twice_in_one_pool_is_refused() -> None:
    with pytest.raises(ValueError):
        matches(players(("ann", 1500, 0), ("ann", 1510, 5)), 10)


def test_a_custom_window_is_honoured() -> None:
    narrow = Window(start=10, widen_per_s=0, unlimited_after_ms=10**9)
    assert matches(players(("ann", 1500, 0), ("bob", 1520, 0)), 60_000, narrow) == []


def test_joining_a_pool_makes_a_player_wait_and_the_pair_takes_them_out() -> None:
    pools = Pools()
    ann = pools.join("ann", "sanibel", 1500, 0)
    bob = pools.join("bob", "sanibel", 1550, 100)
    pools.join("cy", "shady_lanes", 1500, 100)
    assert (pools.state("ann"), pools.game_of("ann"), len(pools)) == (State.WAITING, "sanibel", 3)
    assert pools.waiting("sanibel") == [ann, bob]
    (pair,) = pools.pair(200)
    assert (pair.game, pair.first, pair.second) == ("sanibel", ann, bob)
    assert pools.state("ann") is pools.state("bob") is State.IDLE
    assert pools.waiting("sanibel") == [] and len(pools) == 1


def test_joining_the_same_pool_again_keeps_ones_place() -> None:
    pools = Pools()
    first = pools.join("ann", "sanibel", 1500, 0)
    assert pools.join("ann", "sanibel", 1700, 5000) == first
    assert pools.waiting("sanibel") == [first]


def test_joining_a_second_pool_is_refused_until_the_first_is_left() -> None:
    pools = Pools()
    pools.join("ann", "sanibel", 1500, 0)
    with pytest.raises(PairingError) as refused:
        pools.join("ann", "shady_lanes", 1500, 10)
    assert refused.value.code == "already_waiting"
    assert pools.game_of("ann") == "sanibel"
    assert pools.leave("ann")
    pools.join("ann", "shady_lanes", 1500, 20)
    assert pools.game_of("ann") == "shady_lanes"


def test_leaving_when_not_waiting_is_harmless() -> None:
    pools = Pools()
    assert not pools.leave("ann")
    pools.join("ann", "sanibel", 1500, 0)
    assert pools.leave("ann") and not pools.leave("ann")
    assert pools.state("ann") is State.IDLE and pools.waiting("sanibel") == []


def test_a_player_who_left_is_never_paired() -> None:
    pools = Pools()
    pools.join("ann", "sanibel", 1500, 0)
    pools.join("bob", "sanibel", 1500, 0)
    pools.leave("bob")
    assert pools.pair(60_000) == []
    assert pools.waiting("sanibel") == [Waiting("ann", 1500, 0)]


def test_a_rating_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(ValueError):
        Pools().join("ann", "sanibel", math.nan, 0)


def test_a_paired_player_may_join_again() -> None:
    pools = Pools()
    pools.join("ann", "sanibel", 1500, 0)
    pools.join("bob", "sanibel", 1500, 0)
    pools.pair(0)
    assert pools.join("ann", "sanibel", 1510, 90_000) == Waiting("ann", 1510, 90_000)


# ------------------------------------------------------------------ properties

NOW = 30_000

pools_at_now = st.lists(
    st.tuples(
        st.one_of(st.sampled_from([1400.0, 1450.0, 1500.0, 1550.0]), st.floats(0, 3000)),
        st.integers(0, NOW + 1000),  # a few joined "after" now: another node's clock
    ),
    max_size=40,
).map(lambda rows: [Waiting(f"p{i:02}", r, t) for i, (r, t) in enumerate(rows)])


def plainly(waiting: list[Waiting], now_ms: int) -> list[tuple[Waiting, Waiting]]:
    """The rules read plainly (quadratic): longest waiting first takes the closest accepted,
    then the longer waiting, then the lower id."""
    unpaired = sorted(waiting, key=lambda e: (e.joined_ms, e.player))
    pairs = []
    while unpaired:
        entry, *others = unpaired
        accepted = [o for o in others if accepts(entry, o, now_ms)]
        unpaired = others
        if accepted:
            partner = min(
                accepted, key=lambda o: (abs(o.rating - entry.rating), o.joined_ms, o.player)
            )
            pairs.append((entry, partner))
            unpaired.remove(partner)
    return pairs


@given(pools_at_now)
def test_the_pairs_are_those_the_rules_read_plainly_make(waiting: list[Waiting]) -> None:
    assert matches(waiting, NOW) == plainly(waiting, NOW)


@given(pools_at_now)
def test_nobody_is_paired_twice_and_every_pair_is_within_both_windows(
    waiting: list[Waiting],
) -> None:
    pairs = matches(waiting, NOW)
    paired = [entry.player for pair in pairs for entry in pair]
    assert len(paired) == len(set(paired))
    assert set(paired) <= {e.player for e in waiting}
    for first, second in pairs:
        assert accepts(first, second, NOW)
        gap = abs(first.rating - second.rating)
        assert gap <= WINDOW.half_width(NOW - first.joined_ms)
        assert gap <= WINDOW.half_width(NOW - second.joined_ms)
        assert (first.joined_ms, first.player) < (second.joined_ms, second.player)


@given(pools_at_now)
def test_no_two_players_left_waiting_would_accept_each_other(waiting: list[Waiting]) -> None:
    paired = {entry.player for pair in matches(waiting, NOW) for entry in pair}
    left = [e for e in waiting if e.player not in paired]
    assert not any(accepts(a, b, NOW) for a in left for b in left if a is not b)
    waited_long = [e for e in left if NOW - e.joined_ms >= WINDOW.unlimited_after_ms]
    assert len(waited_long) <= 1  # all who waited long enough are paired but an odd one


@given(pools_at_now, st.randoms(use_true_random=False))
def test_the_pairs_depend_on_the_entries_not_their_order(
    waiting: list[Waiting], rng: random.Random
) -> None:
    shuffled = list(waiting)
    rng.shuffle(shuffled)
    assert matches(shuffled, NOW) == matches(waiting, NOW)


GAMES = ["sanibel", "shady_lanes"]
PLAYERS = [f"p{i}" for i in range(8)]


class PoolsInUse(RuleBasedStateMachine):
    """Joins, leaves and pairings in any order, the clock moving forward."""

    def __init__(self) -> None:
        super().__init__()
        self.pools = Pools()
        self.now = 0
        self.expected: dict[str, str] = {}  # player -> game they wait for

    @rule(
        player=st.sampled_from(PLAYERS),
        game=st.sampled_from(GAMES),
        rating=st.floats(800, 2200),
    )
    def join(self, player: str, game: str, rating: float) -> None:
        current = self.expected.get(player)
        if current not in (None, game):
            with pytest.raises(PairingError):
                self.pools.join(player, game, rating, self.now)
            return
        self.pools.join(player, game, rating, self.now)
        self.expected[player] = game

    @rule(player=st.sampled_from(PLAYERS))
    def leave(self, player: str) -> None:
        assert self.pools.leave(player) == (self.expected.pop(player, None) is not None)

    @rule(ms=st.integers(0, 8000))
    def wait(self, ms: int) -> None:
        self.now += ms

    @precondition(lambda self: self.expected)
    @rule()
    def pair(self) -> None:
        before = {game: self.pools.waiting(game) for game in GAMES}
        for pair in self.pools.pair(self.now):
            assert {pair.first, pair.second} <= set(before[pair.game])
            assert accepts(pair.first, pair.second, self.now)
            for entry in (pair.first, pair.second):
                assert self.expected.pop(entry.player) == pair.game

    @invariant()
    def each_player_waits_in_at_most_the_one_pool_expected(self) -> None:
        for player in PLAYERS:
            assert self.pools.game_of(player) == self.expected.get(player)
        waiting = [e.player for game in GAMES for e in self.pools.waiting(game)]
        assert sorted(waiting) == sorted(self.expected) and len(self.pools) == len(waiting)


TestPoolsInUse = PoolsInUse.TestCase
