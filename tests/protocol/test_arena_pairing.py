"""An arena's pairing waves (protocol/arena_pairing.py): one test or more per sentence of
docs/arenas.md, "Pairing" (numbered there; the number leads each group here), then
properties of any wave."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.arena_pairing import (
    ArenaPairingError,
    Idle,
    PairingRule,
    Wave,
    pair_wave,
    wave_deal,
)
from protocol.deals import FIRST_MT_DEAL, MAX_DEAL

NOW = 1_000_000
RESTED = NOW - 10_000  # rested (over the 3 s breather), not waited the 20 s of a repeat
LONG = NOW - 25_000  # waited long enough to meet a last opponent again
PAIRS = PairingRule(2)
THREES = PairingRule(3)
FOURS = PairingRule(4)


def idle(
    player: str,
    rank: int,
    rating: float = 1500.0,
    since: int = RESTED,
    met: str = "",
    paused: bool = False,
) -> Idle:
    return Idle(player, rank, rating, since, frozenset(met.split()), paused)


def field(*players: str, since: int = RESTED) -> list[Idle]:
    """Players ranked in the order given, nobody having met anybody."""
    return [idle(player, rank, since=since) for rank, player in enumerate(players, 1)]


def together(wave: Wave, one: str, other: str) -> bool:
    return any(one in heat and other in heat for heat in wave.heats)


# 30. A paused or withdrawn participant is never paired, nor left waiting.


def test_a_paused_player_is_neither_paired_nor_waiting() -> None:
    players = [*field("a", "b", "c"), idle("d", 4, paused=True)]
    wave = pair_wave(players, PAIRS, NOW)
    assert all("d" not in heat for heat in wave.heats) and "d" not in wave.waiting
    assert wave.heats == (("a", "b"),) and wave.waiting == ("c",)


# 31. A player back less than 3 s ago sits out, unless they complete a short heat.


def test_a_player_back_from_a_heat_a_moment_ago_sits_the_wave_out() -> None:
    players = [*field("a", "b"), idle("c", 3, since=NOW - 1_000), idle("d", 4, since=NOW - 1)]
    wave = pair_wave(players, PAIRS, NOW)
    assert wave.heats == (("a", "b"),) and wave.waiting == ("c", "d")


def test_a_player_who_just_joined_or_resumed_takes_no_breather() -> None:
    """The breather is a moment to see a heat's result: a player idle since joining or
    resuming is paired at once."""
    joined = Idle("c", 3, 1500.0, NOW - 1, from_heat=False)
    players = [*field("a", "b"), idle("d", 4, since=NOW - 1), joined]
    wave = pair_wave(players, PAIRS, NOW)
    assert wave.heats == (("a", "b"), ("c", "d")) and wave.waiting == ()
    alone = [joined, Idle("e", 5, 1500.0, NOW - 2, from_heat=False)]
    assert pair_wave(alone, PAIRS, NOW).heats == (("c", "e"),)


def test_a_breathing_player_completes_a_heat_the_rested_leave_short() -> None:
    players = [*field("a", "b", "c"), idle("d", 4, since=NOW - 1_000)]
    assert pair_wave(players, PAIRS, NOW).heats == (("a", "b"), ("c", "d"))


def test_the_longest_idle_breathing_players_complete_the_heat_and_no_more() -> None:
    players = [
        *field("a", "b"),
        idle("c", 3, since=NOW - 500),
        idle("d", 4, since=NOW - 2_000),
        idle("e", 5, since=NOW - 1_500),
        idle("f", 6, since=NOW - 100),
    ]
    wave = pair_wave(players, FOURS, NOW)
    assert wave.heats == (("a", "b", "d", "e"),) and wave.waiting == ("c", "f")


def test_breathing_players_alone_wait_out_their_breather() -> None:
    players = [idle("a", 1, since=NOW - 1_000), idle("b", 2, since=NOW - 2_000)]
    assert pair_wave(players, PAIRS, NOW).waiting == ("a", "b")
    assert pair_wave(players, PAIRS, NOW + 1_000).heats == (("a", "b"),)


# 32. Players beyond a whole number of heats: the ones idle the shortest time wait.


def test_the_player_idle_the_shortest_time_waits_when_the_field_is_odd() -> None:
    players = [idle("a", 1, since=NOW - 11_000), idle("b", 2), idle("c", 3, since=NOW - 30_000)]
    wave = pair_wave(players, PAIRS, NOW)
    assert wave.heats == (("a", "c"),) and wave.waiting == ("b",)


def test_the_last_in_the_standings_does_not_always_wait() -> None:
    players = [idle(p, r, since=NOW - 9_000) for r, p in enumerate("abcd", 1)]
    players.append(idle("e", 5, since=NOW - 40_000))
    wave = pair_wave(players, FOURS, NOW)
    assert "e" not in wave.waiting and len(wave.waiting) == 1


def test_among_players_idle_equally_long_the_lower_in_the_standings_waits() -> None:
    wave = pair_wave(field("a", "b", "c", "d", "e"), FOURS, NOW)
    assert wave.heats == (("a", "b", "c", "d"),) and wave.waiting == ("e",)


# 33. Leaders meet leaders: standing order (rank, rating, id), neighbours, 12 places at most.


def test_leaders_meet_leaders_in_heats_of_two() -> None:
    wave = pair_wave(field("a", "b", "c", "d", "e", "f"), PAIRS, NOW)
    assert wave.heats == (("a", "b"), ("c", "d"), ("e", "f"))


def test_leaders_meet_leaders_in_heats_of_four() -> None:
    wave = pair_wave(field(*"abcdefgh"), FOURS, NOW)
    assert wave.heats == (("a", "b", "c", "d"), ("e", "f", "g", "h"))


def test_players_of_one_rank_are_ordered_by_rating_then_id() -> None:
    players = [idle("a", 1, 1400), idle("b", 1, 1700), idle("c", 1, 1500), idle("d", 1, 1500)]
    assert pair_wave(players, PAIRS, NOW).heats == (("b", "c"), ("d", "a"))


def test_two_players_more_than_twelve_places_apart_are_never_paired() -> None:
    others = [f"o{i:02d}" for i in range(1, 15)]
    players = [idle("lead", 1, met=" ".join(others[:12]))]
    players += [idle(player, rank) for rank, player in enumerate(others, 2)]
    wave = pair_wave(players, PAIRS, NOW)
    assert "lead" in wave.waiting
    assert not together(wave, "lead", "o13") and not together(wave, "lead", "o14")


# 34. Never the same opponent twice in a row, unless both waited 20 s and nobody else fits.


def test_last_opponents_are_not_paired_again_when_others_are_idle() -> None:
    players = [idle("a", 1, met="b"), idle("b", 2), idle("c", 3), idle("d", 4)]
    wave = pair_wave(players, PAIRS, NOW)
    assert not together(wave, "a", "b") and len(wave.heats) == 2 and wave.repeats == 0


def test_a_last_opponent_named_by_either_player_counts() -> None:
    players = [idle("a", 1), idle("b", 2, met="a"), idle("c", 3), idle("d", 4)]
    assert not together(pair_wave(players, PAIRS, NOW), "a", "b")


def test_last_opponents_alone_wait_until_both_have_waited_twenty_seconds() -> None:
    fresh = [idle("a", 1, met="b"), idle("b", 2, met="a")]
    assert pair_wave(fresh, PAIRS, NOW).heats == ()
    waited = [idle("a", 1, met="b", since=LONG), idle("b", 2, met="a", since=LONG)]
    wave = pair_wave(waited, PAIRS, NOW)
    assert wave.heats == (("a", "b"),) and wave.repeats == 1


def test_last_opponents_who_waited_long_still_meet_others_when_they_can() -> None:
    players = [idle("a", 1, met="b", since=LONG), idle("b", 2, since=LONG)]
    players += [idle("c", 3, since=LONG), idle("d", 4, since=LONG)]
    wave = pair_wave(players, PAIRS, NOW)
    assert not together(wave, "a", "b") and wave.repeats == 0


def test_no_heat_of_three_or_four_holds_two_last_opponents() -> None:
    players = [idle("a", 1, met="b c"), *[idle(p, r) for r, p in enumerate("bcdefghi", 2)]]
    for rule in (THREES, FOURS):
        wave = pair_wave(players, rule, NOW)
        assert not together(wave, "a", "b") and not together(wave, "a", "c")


def test_in_heats_of_three_last_opponents_who_waited_long_still_meet_others_first() -> None:
    players = [idle("a", 1, met="b", since=LONG)]
    players += [idle(p, r, since=LONG) for r, p in enumerate("bcdef", 2)]
    wave = pair_wave(players, THREES, NOW)
    assert not together(wave, "a", "b") and len(wave.heats) == 2 and wave.repeats == 0


def test_in_heats_of_three_last_opponents_who_waited_long_meet_when_nobody_else_fits() -> None:
    players = [idle("a", 1, met="b", since=LONG), idle("b", 2), idle("c", 3)]
    assert pair_wave(players, THREES, NOW).heats == ()
    players[1] = idle("b", 2, since=LONG)
    wave = pair_wave(players, THREES, NOW)
    assert wave.heats == (("a", "b", "c"),) and wave.repeats == 1


# 35. Heats of 2: the most heats, then the fewest repeats, then the nearest; in bands.


def test_heats_of_two_are_the_most_possible_even_with_a_repeat() -> None:
    players = [idle("a", 1, met="b c d", since=LONG)]
    players += [idle(p, r, since=LONG) for r, p in enumerate("bcd", 2)]
    wave = pair_wave(players, PAIRS, NOW)
    assert len(wave.heats) == 2 and wave.repeats == 1


def test_heats_of_two_are_the_nearest_in_standing_order_without_repeats() -> None:
    players = [idle("a", 1, met="b"), idle("b", 2), idle("c", 3, met="d"), idle("d", 4)]
    assert pair_wave(players, PAIRS, NOW).heats == (("a", "c"), ("b", "d"))


def test_a_field_of_three_hundred_is_paired_in_neighbours_across_bands() -> None:
    names = [f"p{i:03d}" for i in range(300)]
    wave = pair_wave(field(*names), PAIRS, NOW)
    assert wave.heats == tuple((names[i], names[i + 1]) for i in range(0, 300, 2))


def test_players_left_by_their_bands_are_matched_once_more_across_the_bands_edge() -> None:
    players = [*field("a", "b", "c"), idle("d", 4, met="b c"), idle("e", 5, met="f g")]
    players += [idle("f", 6), idle("g", 7), idle("h", 8)]
    banded = pair_wave(players, PairingRule(2, window=2, band=4), NOW)
    assert ("d", "e") in banded.heats and len(banded.heats) == 3
    # the cost of bands: one graph of the eight pairs them all
    assert len(pair_wave(players, PairingRule(2, window=2, band=8), NOW).heats) == 4


# 36. Heats of 3 or 4: cut in standing order, a player who met someone skipped downwards.


def test_beyond_twelve_a_player_who_met_someone_in_the_heat_is_skipped_to_the_next() -> None:
    players = [idle("a", 1, met="b"), *[idle(p, r) for r, p in enumerate("bcdefghijklmno", 2)]]
    wave = pair_wave(players, THREES, NOW)
    assert wave.heats[:2] == (("a", "c", "d"), ("b", "e", "f")) and len(wave.heats) == 5


def test_among_twelve_or_fewer_the_heats_are_found_by_search_where_cutting_fails() -> None:
    last = ["e b l", "f h d", "j i k", "c g a"]  # the heats of the wave before
    ranks = dict(a=1, b=1, c=1, d=3, e=3, f=1, g=3, h=4, i=3, j=3, k=1, l=2)
    met = {p: " ".join(set(heat.split()) - {p}) for heat in last for p in heat.split()}
    players = [idle(p, rank, met=met[p]) for p, rank in ranks.items()]
    wave = pair_wave(players, THREES, NOW)
    assert len(wave.heats) == 4 and wave.repeats == 0  # cutting in order made 3


def test_among_twelve_or_fewer_the_search_prefers_the_least_spread_heats() -> None:
    wave = pair_wave(field(*"abcdefgh"), FOURS, NOW)
    assert wave.heats == (("a", "b", "c", "d"), ("e", "f", "g", "h"))


def test_a_player_for_whom_no_heat_fills_waits() -> None:
    players = [idle("a", 1, met="b c"), idle("b", 2), idle("c", 3)]
    wave = pair_wave(players, THREES, NOW)
    assert wave.heats == () and wave.waiting == ("a", "b", "c")


# 37-38 are properties, below.

# 39. One deal a wave, from the secret, the arena and the wave's number.


def test_every_node_computes_the_same_deal_for_a_wave() -> None:
    deal = wave_deal("s3cret", "sanibel-hourly-20261206T0400", 7)
    assert deal == wave_deal("s3cret", "sanibel-hourly-20261206T0400", 7)
    assert FIRST_MT_DEAL <= deal <= MAX_DEAL


def test_each_wave_arena_and_secret_has_its_own_deal() -> None:
    arena = "sanibel-hourly-20261206T0400"
    deals = {wave_deal("s3cret", arena, wave) for wave in range(1, 51)}
    deals.add(wave_deal("s3cret", "sanibel-hourly-20261206T0500", 1))
    deals.add(wave_deal("other", arena, 1))
    assert len(deals) == 52


def test_a_waves_deal_cannot_be_asked_for_without_the_secret() -> None:
    with pytest.raises(ArenaPairingError, match="secret") as refused:
        wave_deal("", "sanibel-hourly-20261206T0400", 1)
    assert refused.value.code == "bad_arena_pairing"
    with pytest.raises(ArenaPairingError, match="from 1"):
        wave_deal("s3cret", "sanibel-hourly-20261206T0400", 0)


# Input the server must never give.


def test_a_player_idle_twice_in_one_wave_is_refused() -> None:
    with pytest.raises(ArenaPairingError, match="twice"):
        pair_wave([idle("a", 1), idle("a", 2)], PAIRS, NOW)


def test_a_rank_below_one_or_an_impossible_rule_is_refused() -> None:
    with pytest.raises(ArenaPairingError, match="ranks"):
        pair_wave([idle("a", 0)], PAIRS, NOW)
    for bad in (
        {"heat_size": 5},
        {"heat_size": 1},
        {"heat_size": 2, "breather_ms": -1},
        {"heat_size": 4, "window": 3},
        {"heat_size": 2, "band": 20},
    ):
        with pytest.raises(ArenaPairingError):
            PairingRule(**bad)  # type: ignore[arg-type]


# Properties of any wave.

SINCE = st.sampled_from([NOW, NOW - 1_000, NOW - 5_000, NOW - 15_000, NOW - 30_000])


@st.composite
def idle_fields(draw: st.DrawFn, most: int = 12, paused: bool = True) -> list[Idle]:
    count = draw(st.integers(0, most))
    names = [f"p{i:02d}" for i in range(count)]
    players = []
    for name in names:
        others = [other for other in names if other != name]
        met = draw(st.lists(st.sampled_from(others), max_size=3, unique=True)) if others else []
        players.append(
            Idle(
                name,
                draw(st.integers(1, 6)),
                draw(st.sampled_from([1400.0, 1500.0, 1650.5])),
                draw(SINCE),
                frozenset(met),
                paused and draw(st.booleans()) and draw(st.booleans()),
            )
        )
    return players


RULES = st.sampled_from([PAIRS, THREES, FOURS])


@settings(max_examples=300, deadline=None)
@given(idle_fields(), RULES)
def test_every_player_not_paused_is_in_one_heat_or_waiting_and_heats_have_the_size(
    players: list[Idle], rule: PairingRule
) -> None:
    wave = pair_wave(players, rule, NOW)
    placed = [player for heat in wave.heats for player in heat] + list(wave.waiting)
    assert sorted(placed) == sorted(p.player for p in players if not p.paused)
    assert all(len(heat) == rule.heat_size for heat in wave.heats)


@settings(max_examples=300, deadline=None)
@given(idle_fields(), RULES)
def test_last_opponents_meet_only_after_both_waited_twenty_seconds(
    players: list[Idle], rule: PairingRule
) -> None:
    by_name = {player.player: player for player in players}
    for heat in pair_wave(players, rule, NOW).heats:
        for one in heat:
            for other in heat:
                if other in by_name[one].last_opponents:
                    assert by_name[one].idle_since_ms <= NOW - rule.repeat_after_ms
                    assert by_name[other].idle_since_ms <= NOW - rule.repeat_after_ms


@settings(max_examples=200, deadline=None)
@given(idle_fields(paused=False), RULES, st.randoms(use_true_random=False))
def test_the_same_players_in_any_order_give_the_same_wave(  # 38
    players: list[Idle], rule: PairingRule, shuffler: random.Random
) -> None:
    shuffled = list(players)
    shuffler.shuffle(shuffled)
    assert pair_wave(shuffled, rule, NOW) == pair_wave(players, rule, NOW)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 40), RULES)
def test_with_no_last_opponents_fewer_than_a_heat_wait(count: int, rule: PairingRule) -> None:
    # 37 (all rested, so sentence 31 keeps nobody out)
    since = [RESTED, RESTED - 5_000, RESTED - 20_000]
    players = [idle(f"p{i:02d}", 1 + i // 3, since=since[i % 3]) for i in range(count)]
    wave = pair_wave(players, rule, NOW)
    assert len(wave.waiting) < rule.heat_size


def rested(player: Idle) -> Idle:
    """``player`` back from their last heat at least 10 s ago (so sentence 31 aside)."""
    since = min(player.idle_since_ms, RESTED)
    return Idle(player.player, player.rank, player.rating, since, player.last_opponents)


def best_heats(players: list[Idle], size: int) -> tuple[int, int]:
    """By brute force: the most heats of ``size`` any grouping allowed by sentence 34 has,
    and the fewest repeats among those."""

    def met(one: Idle, other: Idle) -> bool:
        return other.player in one.last_opponents or one.player in other.last_opponents

    def allowed(heat: tuple[Idle, ...]) -> bool:
        return all(
            not met(one, other) or max(one.idle_since_ms, other.idle_since_ms) <= NOW - 20_000
            for one, other in itertools.combinations(heat, 2)
        )

    best = (0, 0)

    def search(rest: list[Idle], heats: int, repeats: int) -> None:
        nonlocal best
        best = max(best, (heats, -repeats))
        if len(rest) < size:
            return
        first, others = rest[0], rest[1:]
        search(others, heats, repeats)
        for partners in itertools.combinations(others, size - 1):
            heat = (first, *partners)
            if allowed(heat):
                repeat = any(met(one, other) for one, other in itertools.combinations(heat, 2))
                remaining = [p for p in others if p not in partners]
                search(remaining, heats + 1, repeats + repeat)

    search(players, 0, 0)
    return best[0], -best[1]


@settings(max_examples=300, deadline=None)
@given(idle_fields(most=12, paused=False), RULES)
def test_a_small_waves_heats_are_the_most_with_the_fewest_repeats_any_grouping_has(
    players: list[Idle], rule: PairingRule
) -> None:
    # 34-36: in particular no repeat when a grouping as big without one exists (a field of
    # whole heats, of at most 8 in pairs and 12 in threes or fours, all rested, so sentences
    # 31 and 32 keep nobody out)
    size = rule.heat_size
    whole = min(len(players), 8 if size == 2 else 12) // size * size
    field = [rested(player) for player in players[:whole]]
    field = [replace(p, last_opponents=p.last_opponents & {q.player for q in field}) for p in field]
    wave = pair_wave(field, rule, NOW)
    assert (len(wave.heats), wave.repeats) == best_heats(field, size)
