"""An arena's scoring (protocol/arena.py): one test per sentence of docs/arenas.md,
"Scoring" (numbered there; the number leads each group here), allowed and refused, then
properties of any arena log."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.arena import (
    RISK_BONUS,
    ArenaLogError,
    Cleared,
    Entry,
    HeatResult,
    Racer,
    Removed,
    Scorer,
    Standing,
    Withdrawn,
    heat_from_runs,
    heat_points,
    max_heat_points,
    place_points,
    standings,
)
from protocol.ranking import Run


def heat(
    name: str,
    *order: str,
    finished: int | None = None,
    risk: str = "",
    held: bool = False,
) -> HeatResult:
    """A heat placed in ``order``; the first ``finished`` racers (all by default) finished;
    ``risk`` lists the players in risk mode."""
    done = len(order) if finished is None else finished
    racers = tuple(
        Racer(player, place, place <= done, 60_000 + place, 100, risk=player in risk.split())
        for place, player in enumerate(order, 1)
    )
    return HeatResult(name, racers, held)


def table(log: list[Entry]) -> dict[str, int]:
    return {line.player: line.points for line in standings(log)}


def line(log: list[Entry], player: str) -> Standing:
    return next(line for line in standings(log) if line.player == player)


def run(player: str, finished: bool, time_ms: int, progress: int = 0) -> Run:
    return Run(player, player, "r", "sanibel", 7, finished, time_ms, 90, progress, 1)


# 1. A heat has 2 to 4 different players, placed 1st to last, none shared or missing.


def test_a_heat_of_two_to_four_different_players_placed_in_full_is_scored() -> None:
    for size in (2, 3, 4):
        assert len(heat_points(heat("h", *"abcd"[:size]), {})) == size


def test_a_heat_of_one_or_five_racers_is_refused() -> None:
    with pytest.raises(ArenaLogError, match="not 2 to 4") as refused:
        heat("h", "a")
    assert refused.value.code == "bad_arena_log"
    with pytest.raises(ArenaLogError, match="not 2 to 4"):
        heat("h", *"abcde")


def test_a_heat_where_a_player_races_twice_is_refused() -> None:
    with pytest.raises(ArenaLogError, match="races twice"):
        heat("h", "a", "a")


def test_a_heat_with_a_place_shared_or_missing_is_refused() -> None:
    shared = (Racer("a", 1, True, 1, 1), Racer("b", 1, True, 1, 1))
    missing = (Racer("a", 1, True, 1, 1), Racer("b", 3, True, 1, 1))
    for racers in (shared, missing):
        with pytest.raises(ArenaLogError, match="places"):
            HeatResult("h", racers)


# 2. Places follow protocol/ranking.py; a non-finisher places after every finisher.


def test_places_follow_the_ranking_rule_of_races_finishers_first_by_time() -> None:
    runs = [run("slow", True, 90_000), run("quit", False, 10_000, 40), run("fast", True, 80_000)]
    placed = {racer.player: racer.place for racer in heat_from_runs("h", runs).racers}
    assert placed == {"fast": 1, "slow": 2, "quit": 3}


def test_a_heat_placing_a_non_finisher_before_a_finisher_is_refused() -> None:
    racers = (Racer("a", 1, False, 1, 1), Racer("b", 2, True, 1, 1))
    with pytest.raises(ArenaLogError, match="non-finisher placed before"):
        HeatResult("h", racers)


# 3. A finisher scores 1 plus 1 per racer behind; a non-finisher scores 0.


def test_a_finisher_scores_one_for_finishing_and_one_per_racer_placed_behind() -> None:
    assert [place_points(2, p, True) for p in (1, 2)] == [2, 1]
    assert [place_points(3, p, True) for p in (1, 2, 3)] == [3, 2, 1]
    assert [place_points(4, p, True) for p in (1, 2, 3, 4)] == [4, 3, 2, 1]
    assert heat_points(heat("h", "a", "b", "c", finished=2), {}) == {"a": 3, "b": 2, "c": 0}


def test_a_racer_who_did_not_finish_scores_nothing_whatever_their_place() -> None:
    assert [place_points(4, p, False) for p in (1, 2, 3, 4)] == [0, 0, 0, 0]
    with pytest.raises(ArenaLogError, match="no place 5"):
        place_points(4, 5, True)


# 4. A heat nobody finishes scores 0 for everyone and counts as a heat played.


def test_a_heat_nobody_finishes_scores_nothing_and_counts_as_played() -> None:
    log: list[Entry] = [heat("h", "a", "b", "c", finished=0)]
    assert table(log) == {"a": 0, "b": 0, "c": 0}
    assert [line.heats for line in standings(log)] == [1, 1, 1]


# 5. The streak is the count of heats won in a row; a win is 1st as a finisher.


def test_the_streak_counts_heats_won_in_a_row() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "c"), heat("3", "a", "b")]
    assert line(log, "a").streak == 3
    assert line(log, "a").wins == 3


def test_placing_first_without_finishing_is_no_win() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b", finished=0)]
    assert line(log, "a").wins == 1


# 6. From 2 wins in a row every heat is worth twice its place points.


def test_the_third_win_in_a_row_is_the_first_worth_double() -> None:
    log: list[Entry] = [heat(str(i), "a", "b") for i in range(4)]
    assert table(log)["a"] == 2 + 2 + 4 + 4
    assert not line(log[:1], "a").on_streak
    assert line(log[:2], "a").on_streak


def test_on_a_streak_a_heat_not_won_still_pays_double_its_place() -> None:
    log: list[Entry] = [heat("1", "a", "c"), heat("2", "a", "c"), heat("3", "b", "a", "c")]
    assert heat_points(log[2], {"a": 2}) == {"b": 3, "a": 4, "c": 1}
    assert table(log)["a"] == 2 + 2 + 4


# 7. A counted heat not won ends the streak after it is scored.


def test_a_heat_not_won_ends_the_streak() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b"), heat("3", "b", "a")]
    assert line(log, "a").streak == 0
    assert table([*log, heat("4", "a", "b")])["a"] == 2 + 2 + 2 + 2


def test_a_heat_the_player_does_not_finish_ends_the_streak() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b"), heat("3", "b", "a", finished=1)]
    assert line(log, "a").streak == 0


# 8. A heat nobody finishes leaves every streak as it was.


def test_a_heat_nobody_finishes_leaves_streaks_as_they_were() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b"), heat("3", "b", "a", finished=0)]
    assert line(log, "a").streak == 2
    assert table([*log, heat("4", "a", "b")])["a"] == 2 + 2 + 0 + 4


# 9. Pausing or withdrawing ends the streak.


def test_withdrawing_ends_the_streak_but_keeps_the_points() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b"), Withdrawn("a")]
    assert line(log, "a").streak == 0
    assert table([*log, heat("3", "a", "b")])["a"] == 2 + 2 + 2
    assert line([*log[:2], Withdrawn("b")], "a").streak == 2  # only the one who left


# 10. Risk mode pays 2 more for a win only, after the doubling, never doubled.


def test_a_win_in_risk_mode_pays_two_more() -> None:
    assert heat_points(heat("h", "a", "b", risk="a"), {}) == {"a": 2 + RISK_BONUS, "b": 1}


def test_risk_mode_pays_nothing_more_without_a_win() -> None:
    assert heat_points(heat("h", "a", "b", risk="b"), {}) == {"a": 2, "b": 1}
    assert heat_points(heat("h", "a", "b", finished=0, risk="a"), {}) == {"a": 0, "b": 0}


def test_the_risk_bonus_is_added_after_the_streak_doubling() -> None:
    assert heat_points(heat("h", "a", "b", "c", risk="a"), {"a": 2})["a"] == 3 * 2 + RISK_BONUS


# 11. A heat whose log shows an undo by a risk racer is refused.


def test_an_undo_in_risk_mode_is_refused_while_undo_without_it_is_fine() -> None:
    with pytest.raises(ArenaLogError, match="undid in risk mode"):
        HeatResult("h", (Racer("a", 1, True, 1, 9, risk=True, undos=1), Racer("b", 2, True, 1, 9)))
    fine = HeatResult("h", (Racer("a", 1, True, 1, 9, undos=4), Racer("b", 2, True, 1, 9)))
    assert heat_points(fine, {}) == {"a": 2, "b": 1}


# 12. A held heat scores nothing, counts as no heat and moves no streak.


def test_a_held_heat_scores_nothing_counts_as_no_heat_and_moves_no_streak() -> None:
    held = heat("2", "b", "a", held=True)
    log: list[Entry] = [heat("1", "a", "b"), held]
    assert table(log) == {"a": 2, "b": 1}
    assert (line(log, "a").heats, line(log, "a").streak) == (1, 1)
    assert heat_points(held, {}) == {"b": 0, "a": 0}


# 13. A cleared heat counts where the clearing stands, with that moment's streaks.


def test_a_cleared_heat_counts_where_the_clearing_stands() -> None:
    log: list[Entry] = [
        heat("1", "a", "b", held=True),
        heat("2", "a", "b"),
        heat("3", "a", "b"),
        Cleared("1"),
    ]
    assert table(log)["a"] == 2 + 2 + 4  # cleared third in a row: doubled
    assert line(log, "a").heats == 3


def test_clearing_a_heat_takes_back_no_points_scored_since() -> None:
    before: list[Entry] = [
        heat("1", "b", "a", held=True),
        *(heat(str(i), "a", "b") for i in (2, 3, 4)),
    ]
    after = [*before, Cleared("1")]
    assert table(after)["a"] == table(before)["a"] + 2  # doubled 2nd place
    assert line(after, "a").streak == 0


def test_a_heat_never_cleared_never_counts_and_a_clearing_of_no_held_heat_is_refused() -> None:
    assert table([heat("1", "a", "b", held=True)]) == {"a": 0, "b": 0}
    with pytest.raises(ArenaLogError, match="cleared but not held"):
        standings([heat("1", "a", "b"), Cleared("1")])
    with pytest.raises(ArenaLogError, match="twice"):
        standings([heat("1", "a", "b"), heat("1", "a", "b")])


# 14. A removed player leaves the standings; in all their heats they did not finish.


def test_a_removed_player_leaves_the_standings_and_the_rest_move_up() -> None:
    log: list[Entry] = [heat("1", "x", "a", "b"), Removed("x"), heat("2", "x", "b", "a")]
    assert table(log) == {"a": 3 + 2, "b": 2 + 3}
    assert [line.player for line in standings(log)] == ["a", "b"]


def test_a_heat_only_the_removed_player_finished_becomes_a_heat_nobody_finished() -> None:
    log: list[Entry] = [heat("1", "a", "b"), heat("2", "a", "b"), heat("3", "x", "a", finished=1)]
    assert line(log, "a").streak == 0
    assert line([*log, Removed("x")], "a").streak == 2


# 15. Ties broken by performance, then wins, then player id; not by racers' order.


def test_equal_points_are_ordered_by_performance_not_by_player_id() -> None:
    log: list[Entry] = [
        heat("1", "z", "b", "x", "y"),
        heat("2", "d", "c"),
        heat("3", "c", "e", "f"),
    ]
    z, c = line(log, "z"), line(log, "c")
    assert (z.points, z.wins) == (c.points, c.wins) == (4, 1)
    assert (z.performance, c.performance) == (Fraction(3, 3), Fraction(2, 3))
    assert z.rank < c.rank


def test_equal_points_and_performance_are_ordered_by_wins_then_player_id() -> None:
    log: list[Entry] = [heat("1", "a", "b", "x", "y"), heat("2", "c", "d"), heat("3", "c", "e")]
    a, c = line(log, "a"), line(log, "c")
    assert (a.points, a.performance) == (c.points, c.performance) == (4, 1)
    assert (a.wins, c.wins) == (1, 2)
    assert c.rank < a.rank
    twins: list[Entry] = [heat("1", "b", "a"), heat("2", "a", "b")]
    assert [line.player for line in standings(twins)] == ["a", "b"]


def test_the_standings_do_not_depend_on_the_order_racers_are_listed_in() -> None:
    forward = heat("1", "a", "b", "c")
    backward = HeatResult("1", tuple(reversed(forward.racers)))
    assert standings([forward]) == standings([backward])


# 16. Each line holds rank, points, heats, wins, streak, risk heats and wins, beaten and met.


def test_a_line_holds_every_figure_of_the_player() -> None:
    log: list[Entry] = [heat("1", "a", "b", "c", risk="a"), heat("2", "b", "a", risk="a")]
    assert line(log, "a") == Standing(
        rank=1,
        player="a",
        points=3 + RISK_BONUS + 1,
        heats=2,
        wins=1,
        streak=0,
        risk_heats=2,
        risk_wins=1,
        beaten=2,
        met=3,
    )


# 17. A heat pays at most n(n+1) + 2; never negative; appending never lowers points.


def test_a_heat_pays_at_most_n_times_n_plus_one_plus_two() -> None:
    for size in (2, 3, 4):
        best = heat("h", *"abcd"[:size], risk="a")
        paid = sum(heat_points(best, dict.fromkeys("abcd", 2)).values())
        assert paid == max_heat_points(size) == size * (size + 1) + 2


PLAYERS = "abcdef"


@st.composite
def logs(draw: st.DrawFn) -> list[Entry]:
    """Any arena log among six players: heats (some held, some cleared later),
    withdrawals and removals."""
    log: list[Entry] = []
    held: list[str] = []
    for number in range(draw(st.integers(0, 12))):
        kind = draw(st.sampled_from(["heat", "heat", "heat", "withdraw", "clear", "remove"]))
        if kind == "heat":
            order = draw(st.permutations(PLAYERS))[: draw(st.integers(2, 4))]
            finished = draw(st.integers(0, len(order)))
            risk = " ".join(p for p in order if draw(st.booleans()))
            is_held = draw(st.integers(0, 4)) == 0
            log.append(heat(f"h{number}", *order, finished=finished, risk=risk, held=is_held))
            held += [f"h{number}"] if is_held else []
        elif kind == "withdraw":
            log.append(Withdrawn(draw(st.sampled_from(PLAYERS))))
        elif kind == "clear" and held:
            log.append(Cleared(held.pop(draw(st.integers(0, len(held) - 1)))))
        elif kind == "remove":
            log.append(Removed(draw(st.sampled_from(PLAYERS))))
    return log


@settings(max_examples=200, deadline=None)
@given(logs())
def test_standings_are_a_pure_function_of_the_log(log: list[Entry]) -> None:
    assert standings(log) == standings(list(log))
    assert [line.rank for line in standings(log)] == list(range(1, len(standings(log)) + 1))


@settings(max_examples=200, deadline=None)
@given(logs(), st.randoms(use_true_random=False))
def test_standings_are_the_same_whatever_order_racers_are_listed_in(
    log: list[Entry], rng: random.Random
) -> None:
    shuffled: list[Entry] = []
    for entry in log:
        if isinstance(entry, HeatResult):
            racers = list(entry.racers)
            rng.shuffle(racers)
            entry = HeatResult(entry.heat, tuple(racers), entry.held)
        shuffled.append(entry)
    assert standings(shuffled) == standings(log)


@settings(max_examples=200, deadline=None)
@given(logs())
def test_points_are_never_negative_and_every_heat_pays_within_its_bound(log: list[Entry]) -> None:
    assert all(line.points >= 0 for line in standings(log))
    for entry in log:
        if isinstance(entry, HeatResult):
            streaks = dict.fromkeys(PLAYERS, 5)
            paid = heat_points(HeatResult(entry.heat, entry.racers), streaks)
            assert 0 <= sum(paid.values()) <= max_heat_points(len(entry.racers))


@settings(max_examples=300, deadline=None)
@given(logs(), logs())
def test_a_new_entry_never_lowers_anyone_s_points_a_removal_aside(
    log: list[Entry], more: list[Entry]
) -> None:
    renamed = [
        HeatResult("more-" + e.heat, e.racers, False) if isinstance(e, HeatResult) else e
        for e in more
        if not isinstance(e, Cleared)
    ]
    before = table(log)
    for entry in renamed:
        log = [*log, entry]
        after = table(log)
        assert all(after[p] >= points for p, points in before.items() if p in after)
        gone = set(before) - set(after)
        assert gone <= ({entry.player} if isinstance(entry, Removed) else set())
        before = after


@settings(max_examples=300, deadline=None)
@given(logs(), st.lists(st.integers(0, 12), max_size=6))
def test_standings_kept_as_the_log_grows_are_those_of_the_whole_log(
    log: list[Entry], cuts: list[int]
) -> None:
    scorer, counted = Scorer(), 0
    for cut in [*sorted(cuts), len(log)]:
        scorer.add(log[counted:cut])
        counted = max(counted, min(cut, len(log)))
        assert scorer.table() == standings(log[:counted])
        assert scorer.table() is scorer.table()  # kept while nothing is added
