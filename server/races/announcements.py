"""What a race's changes tell, as effects (``server/handover/effects.py``): the racers and
spectators followed here hear of a racer joining or leaving, the countdown (its start
signal is armed), the start (every racer gets the same deal at the same moment), a
retirement, and the standings when someone's changed; a race that ends or closes goes on
to ``server/races/results.py``. A change tells the same whether it was made here or
absorbed from another node, and standings go only to the racers whose session is on this
node (``here``: other nodes send theirs). Plain functions of the room: the race desk
(``server/races/race_desk.py``) calls them on its steps and the act hot path,
``server/races/log_sync.py`` on the actions it applies from other nodes, and the decider
when a start signal is due (``StartDue``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol.player_events import (
    CountdownSet,
    PlayerEvent,
    RacerJoined,
    RacerLeft,
    Standings,
    Started,
)
from protocol.race import Now, Phase, view_json
from protocol.race_record import Countdown, Joined, Left, RaceChange, Retired
from protocol.race_views import public_info, racer_view
from server.config import Settings
from server.handover.effects import Effects, Post, Push, StartAt
from server.races.results import closed, finished
from server.state.rooms import Room


def told(
    room: Room,
    changes: list[RaceChange],
    moment: Now,
    settings: Settings,
    here: Callable[[str], bool],
) -> Effects:
    """The effects of changes of the race itself (made here, or absorbed): what the
    racers and spectators followed here are told, timers, the end."""
    race = room.race
    effects: Effects = []
    for change in changes:
        if isinstance(change, Joined):
            effects += tell_racers(room, RacerJoined(public_info(race)), but=change.player)
        elif isinstance(change, Left):
            if race.racers:
                effects += tell_racers(room, RacerLeft(public_info(race)))
        elif isinstance(change, Countdown) and race.start_mono is not None:
            starts_in_ms = max(0, race.start_mono - moment.mono_ms)
            announce = CountdownSet(room.id, race.start_wall, starts_in_ms)
            effects += tell_racers(room, announce)
            effects += [Post(room, "countdown", announce.data()), StartAt(room, race.start_mono)]
        elif isinstance(change, Retired):
            player = change.player
            racer = race.racers[player]
            outcome = racer.outcome.value if racer.outcome else None
            room.standings_version += 1
            effects.append(
                Post(room, "retired", {"player": player, "outcome": outcome}, racer=player)
            )
            if race.phase is not Phase.DONE:
                effects += standings(room, moment, here, but=player)
    if not race.racers:  # an open race everyone left: it closes
        effects += closed(room, settings)
    elif race.phase is Phase.DONE:
        effects += finished(room, moment, settings)
    return effects


def begin(room: Room) -> Effects:
    """The start signal: every racer gets the same deal at the same moment."""
    race = room.race
    room.start_handle = None
    if race.phase is not Phase.COUNTDOWN:
        return []  # everyone left or dropped during the countdown, or begun already
    race.begin()
    effects: Effects = [Push(player, Started(racer_view(race, player))) for player in race.racers]
    first = next(iter(race.racers.values())).state
    assert first is not None
    effects.append(Post(room, "started", {"view": view_json(race.rules.view(first))}))
    return effects


def racer_done(
    room: Room, player: str, moment: Now, settings: Settings, here: Callable[[str], bool]
) -> Effects:
    """``player``'s action ended their race (they finished, or are stuck): the race ends
    if they were the last, else the others here hear the standings."""
    if room.race.phase is Phase.DONE:
        return finished(room, moment, settings)
    return standings(room, moment, here, but=player)


def tell_racers(room: Room, event: PlayerEvent, but: str | None = None) -> Effects:
    return [Push(player, event) for player in room.race.racers if player != but]


def standings(
    room: Room,
    moment: Now,
    here: Callable[[str], bool],
    *,
    idle_since: int | None = None,
    but: str | None = None,
) -> Effects:
    """The standings for every racer here (but ``but``). With ``idle_since``, only for
    racers who are behind and have not acted since then: the others get them on their
    next ``act`` result."""
    players: list[dict[str, Any]] | None = None
    effects: Effects = []
    for player in room.race.racers:
        if player == but or not here(player):
            continue
        if idle_since is not None and (
            room.told.get(player, (0, 0))[0] == room.standings_version
            or room.last_act.get(player, 0) > idle_since
        ):
            continue
        room.told[player] = (room.standings_version, moment.mono_ms)
        if players is None:
            players = room.race.standings()
        effects.append(Push(player, Standings(room.id, players)))
    return effects
