"""Which races move ratings (protocol/rated.py): only a race the server paired, on a random
usual deal, between two or more accounts and no bot, in which every racer made a few
actions and someone finished or the time limit ended it. One test per rule, allowed and
refused."""

from __future__ import annotations

from typing import Any

import pytest

from protocol.games import rules_for
from protocol.race import Badge, Ending, Now, Race, RaceSettings
from protocol.race_views import racer_view
from protocol.rated import MIN_ACTIONS, UNRATED, pairs, unrated_because

GAME = "sanibel"
START = Now(1_000, 1_700_000_000_000)
BADGE = Badge(1500, True)


def a_race(
    *players: str, badges: tuple[Badge | None, ...] = (), actions: int = MIN_ACTIONS, **changes: Any
) -> Race:
    """A quick-paired race of ``players`` (accounts unless ``badges`` says), started; each
    plays ``actions`` legal actions; nobody has ended yet."""
    rules = rules_for(GAME, changes.pop("options", None))
    settings = RaceSettings(
        game=GAME,
        options=rules.options,
        deal=7,
        max_players=len(players),
        countdown_ms=0,
        **{"ranked": True, **changes},
    )
    race = Race("r1", settings, rules, players[0])
    for index, player in enumerate(players):
        race.join(player, player, badges[index] if badges else BADGE)
    race.schedule_start(None, START)
    race.begin()
    for player in players:
        for seq in range(1, actions + 1):
            legal = racer_view(race, player)["you"]["legal"]
            at = Now(START.mono_ms + seq * 100, START.wall_ms + seq * 100)
            assert race.act(player, seq, legal[0], at).ok
    return race


def over(race: Race, *endings: Ending) -> Race:
    for player, ending in zip(list(race.racers), endings, strict=True):
        race.racers[player].outcome = ending
    return race


def test_a_paired_race_of_real_play_that_someone_finished_or_the_clock_ended_is_rated() -> None:
    assert unrated_because(over(a_race("pann", "pbob"), Ending.FINISHED, Ending.RESIGNED)) is None
    assert unrated_because(over(a_race("pann", "pbob"), Ending.TIMED_OUT, Ending.TIMED_OUT)) is None


def test_a_race_its_players_chose_is_not_rated() -> None:
    race = over(a_race("pann", "pbob", ranked=False), Ending.FINISHED, Ending.RESIGNED)
    assert unrated_because(race) == "not_paired"


def test_an_arena_heat_is_not_rated_it_scores_arena_points() -> None:
    heat = a_race("pann", "pbob", arena="sanibel-hourly-20261206T0500")
    assert unrated_because(over(heat, Ending.FINISHED, Ending.RESIGNED)) == "arena"


@pytest.mark.parametrize("changes", [{"deal_chosen": True}, {"options": {"undo": False}}])
def test_a_chosen_deal_or_other_options_are_not_rated(changes: dict[str, Any]) -> None:
    race = over(a_race("pann", "pbob", **changes), Ending.FINISHED, Ending.RESIGNED)
    assert unrated_because(race) == "chosen_deal"


def test_fewer_than_two_accounts_are_not_rated() -> None:
    race = over(a_race("pann", "pgus", badges=(BADGE, None)), Ending.FINISHED, Ending.RESIGNED)
    assert unrated_because(race) == "guests"


def test_a_race_with_a_bot_is_not_rated() -> None:
    race = over(a_race("pann", "b0123456789ab"), Ending.FINISHED, Ending.RESIGNED)
    assert unrated_because(race) == "bot"


def test_a_race_one_side_abandoned_at_once_is_not_rated() -> None:
    race = a_race("pann", "pbob", actions=MIN_ACTIONS - 1)
    assert unrated_because(over(race, Ending.FINISHED, Ending.RESIGNED)) == "few_actions"


def test_a_race_nobody_finished_is_not_rated() -> None:
    race = over(a_race("pann", "pbob"), Ending.RESIGNED, Ending.DROPPED)
    assert unrated_because(race) == "nobody_finished"


def test_a_race_with_a_bot_says_so_whoever_chose_it() -> None:
    race = over(a_race("pann", "b0123456789ab", ranked=False), Ending.FINISHED, Ending.RESIGNED)
    assert unrated_because(race) == "bot"


def test_every_reason_has_a_sentence() -> None:
    assert all(m.startswith("Not rated: ") and m.endswith(".") for m in UNRATED.values())


def test_pairs_are_every_two_players_in_byte_order() -> None:
    assert pairs(["pc", "pa", "pb"]) == [("pa", "pb"), ("pa", "pc"), ("pb", "pc")]


def test_a_race_whose_store_lost_acknowledged_actions_is_not_rated() -> None:
    race = over(a_race("pann", "pbob"), Ending.FINISHED, Ending.RESIGNED)
    race.racers["pbob"].lost_to = MIN_ACTIONS + 2
    assert unrated_because(race) == "history_lost"
