"""What a race's changes tell, pure: a joiner's fellow racers hear of them, a countdown is
announced and its start signal armed, the start gives every racer the deal, a retirement
goes to the spectators and the standings to the racers here, an open race everyone left
closes, and idle racers get the standings only when they are behind."""

from __future__ import annotations

from protocol.games import rules_for
from protocol.player_events import CountdownSet, RacerJoined, RacerLeft, Standings, Started
from protocol.race import Ending, Now, Phase, Race, RaceSettings
from protocol.race_record import record_changes, record_of
from protocol.race_views import public_info, racer_view
from server.config import Settings
from server.handover.effects import Forget, Post, Push, StartAt, Write
from server.races.announcements import begin, standings, told
from server.state.rooms import Feeding, Room

GAME = "sanibel"
START = Now(1_000, 50_000)
SETTINGS = Settings()


def everywhere(player: str) -> bool:
    return True


def room_of(*players: str, countdown_ms: int = 3_000) -> Room:
    rules = rules_for(GAME)
    settings = RaceSettings(
        game=GAME, options=rules.options, deal=1, max_players=3, countdown_ms=countdown_ms
    )
    race = Race("r1", settings, rules, players[0])
    for player in players:
        race.join(player, player.title())
    return Room(race, START.mono_ms, Feeding())


def running(*players: str) -> Room:
    room = room_of(*players, countdown_ms=0)
    room.race.schedule_start(None, START)
    room.race.begin()
    return room


def test_a_joiner_s_fellow_racers_hear_of_them_and_a_leaver_s_of_their_going() -> None:
    room = room_of("ann", "bob")
    before = record_of(room.race)
    room.race.join("cy", "Cy")
    changes = record_changes(before, record_of(room.race))
    joined = RacerJoined(public_info(room.race))
    assert told(room, changes, START, SETTINGS, everywhere) == [
        Push("ann", joined),
        Push("bob", joined),
    ]
    before = record_of(room.race)
    room.race.leave("bob")
    changes = record_changes(before, record_of(room.race))
    gone = RacerLeft(public_info(room.race))
    left = told(room, changes, START, SETTINGS, everywhere)
    assert left == [Push("ann", gone), Push("cy", gone)]


def test_a_countdown_is_announced_to_racers_and_spectators_and_its_start_armed() -> None:
    room = room_of("ann", "bob")
    before = record_of(room.race)
    start_mono = room.race.schedule_start("ann", START)
    changes = record_changes(before, record_of(room.race))
    announce = {"race": "r1", "start_at_ms": START.wall_ms + 3_000, "starts_in_ms": 3_000}
    assert told(room, changes, START, SETTINGS, everywhere) == [
        Push("ann", CountdownSet(**announce)),
        Push("bob", CountdownSet(**announce)),
        Post(room, "countdown", announce),
        StartAt(room, start_mono),
    ]


def test_the_start_gives_every_racer_the_deal_once() -> None:
    room = room_of("ann", "bob")
    room.race.schedule_start("ann", START)
    effects = begin(room)
    assert [(e.player, e.event) for e in effects if isinstance(e, Push)] == [
        ("ann", Started(racer_view(room.race, "ann"))),
        ("bob", Started(racer_view(room.race, "bob"))),
    ]
    assert isinstance(effects[-1], Post) and effects[-1].kind == "started"
    assert room.race.phase is Phase.RUNNING
    assert begin(room) == []  # begun already


def test_a_retirement_goes_to_the_spectators_and_the_standings_to_the_racers_here() -> None:
    room = running("ann", "bob", "cy")
    before = record_of(room.race)
    room.race.retire("ann", Ending.RESIGNED, START)
    changes = record_changes(before, record_of(room.race))
    effects = told(room, changes, START, SETTINGS, lambda player: player != "cy")
    assert effects == [
        Post(room, "retired", {"player": "ann", "outcome": "resigned"}, racer="ann"),
        Push("bob", Standings("r1", room.race.standings())),
    ]
    assert room.standings_version == 1


def test_an_open_race_everyone_left_closes() -> None:
    room = room_of("ann")
    before = record_of(room.race)
    room.race.leave("ann")
    effects = told(room, record_changes(before, record_of(room.race)), START, SETTINGS, everywhere)
    assert [type(effect) for effect in effects] == [Forget, Write]


def test_idle_racers_get_the_standings_only_when_behind_and_idle_since_then() -> None:
    room = running("ann", "bob", "cy")
    room.standings_version = 2
    room.told = {"ann": (2, 0), "bob": (1, 0), "cy": (1, 0)}  # ann knows the latest
    room.last_act = {"bob": 500, "cy": 2_000}  # cy acted since
    idle = standings(room, START, everywhere, idle_since=1_000)
    assert idle == [Push("bob", Standings("r1", room.race.standings()))]
    assert room.told["bob"] == (2, START.mono_ms)
    assert standings(room, START, everywhere, idle_since=1_000) == []  # told now
