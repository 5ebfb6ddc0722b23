"""A race's replica (``server/state/rooms.py``) kept in step with its stored logs. It promises
that a replica holds the actions its racers' logs hold, in their order, and beyond them
only this node's racers' actions still being written: another node's logged actions are
applied at their own times, as if played here (``apply_logged``, with what they tell; from
a "log" message's entries when they continue the replica's log, ``carried_entries``);
actions that could not be written are taken back, every one not known to be stored
(``undo_unstored``) or a racer's whom another node holds now (``let_go``); then the race
as the store has it is taken (``reconciled``), or written again from its stored part if
the store lost it (``rewrite``); when the store holds fewer of a racer's actions than were
known stored (it came back with less than it acknowledged), the race as it holds it is
taken all the same, and what was lost remembered (``lost_actions``, ``take_loss``) and
told (``loss_told``). Plain functions of the room: the race desk
(``server/races/race_desk.py``) calls them with what it reads from the store, the decider
(``server/desks/deciding.py``) when a write fails (``ActRefused``).
"""

from __future__ import annotations

from collections.abc import Callable

from protocol.player_events import HistoryLost, Snapshot
from protocol.race import LogEntry, Now, Phase, Race, RaceError
from protocol.race_record import record_of, restore
from protocol.race_views import racer_view
from server.config import Settings
from server.handover.effects import Effects, PostAct, Push, Rewatch, Write
from server.handover.jobs import AppendActions
from server.handover.node_news import CarriedEntries
from server.races.announcements import begin, racer_done
from server.state.rooms import Room


def carried_entries(race: Race, player: str, carried: CarriedEntries) -> list[LogEntry] | None:
    """``player``'s entries carried in a ``Logged`` news (stored, in order) that this
    replica lacks, when they continue its log (seen ones are skipped); None when they do
    not (a message missed, an action refused between two batches, a replica not started):
    then the log is read."""
    racer = race.racers.get(player)
    if racer is None or race.start_mono is None or race.start_wall is None:
        return None
    last = racer.last_seq
    entries: list[LogEntry] = []
    for seq, t_ms, action in carried:
        if seq > last:
            if seq != last + 1:
                return None
            entries.append(LogEntry(player, seq, action, t_ms))
            last = seq
    return entries


def apply_logged(
    room: Room,
    player: str,
    entries: list[LogEntry],
    moment: Now,
    settings: Settings,
    here: Callable[[str], bool],
) -> Effects:
    """Apply ``player``'s stored ``entries`` (another node logged them) at their own times,
    as if they had been played here: standings, the spectator feed, a finish follow (a
    countdown still running here begins first). Entries seen already are skipped."""
    race = room.race
    assert race.start_mono is not None and race.start_wall is not None
    effects: Effects = []
    for entry in entries:
        if race.phase is Phase.COUNTDOWN:
            effects += begin(room)
        at = Now(race.start_mono + entry.t_ms, race.start_wall + entry.t_ms)
        try:
            result = race.act(player, entry.seq, entry.action, at)
        except RaceError:
            continue  # seen already, or the race is over
        if not result.ok or result.repeated:
            continue
        room.durable[player] = room.durable.get(player, 0) + 1
        room.standings_version += 1
        effects.append(PostAct(room, player, result.reply))
        if result.racer_done:
            effects += racer_done(room, player, moment, settings, here)
    return effects


def undo_unstored(room: Room, moment: Now) -> None:
    """Writing ``room``'s log failed: take back every action not known to be stored
    (their answers say ``store_unavailable``), and rebuild the race from the store
    before it takes another action (a write whose answer was lost may have gone in)."""
    race = room.race
    log_entries = sorted(
        (
            entry
            for player, racer in race.racers.items()
            for entry in racer.log[: room.durable.get(player, 0)]
        ),
        key=lambda entry: entry.t_ms,
    )
    room.race = restore(record_of(race), race.rules, log_entries, moment)
    room.suspect = True


def let_go(room: Room, player: str) -> None:
    """Another node holds ``player`` now: take back their actions this node could not
    store (the other node's are read from the log, as for any racer elsewhere)."""
    room.race.rewind(player, room.durable.get(player, 0))


def reconciled(room: Room, rebuilt: Room) -> Effects:
    """``room``'s race as the store has it, after a failed write: every racer gets a
    snapshot (their position may have changed under them)."""
    room.race, room.durable, room.suspect = rebuilt.race, rebuilt.durable, False
    room.version = rebuilt.version
    return [Push(player, Snapshot([racer_view(room.race, player)])) for player in room.race.racers]


def lost_actions(room: Room, known: dict[str, int], rebuilt: Room) -> dict[str, tuple[int, int]]:
    """What the store's ``rebuilt`` race lacks of what was known stored (``known``: each
    racer's entries known stored before it was read): per racer who lost any, how many and
    the seq of the last one lost (acknowledged); empty when nothing was lost."""
    lost = {}
    for player, count in known.items():
        held = rebuilt.durable.get(player, 0)
        racer = room.race.racers.get(player)
        if held < count and racer is not None and len(racer.log) >= count:
            lost[player] = (count - held, racer.log[count - 1].seq)
    return lost


def take_loss(room: Room, rebuilt: Room, lost: dict[str, tuple[int, int]]) -> None:
    """``room`` takes the race as the store holds it (``rebuilt``); each racer keeps the seq
    of their last action lost, and the loss waits in ``room.lost`` to be stored and told
    (what was there before, not yet told, is kept)."""
    for player, (count, acked) in lost.items():
        before = room.lost.get(player, (0, 0))
        room.lost[player] = (before[0] + count, max(before[1], acked))
    room.race, room.durable, room.suspect = rebuilt.race, rebuilt.durable, False
    room.version = rebuilt.version
    room.feed_anew()
    for player, (_, acked) in room.lost.items():
        racer = room.race.racers.get(player)
        if racer is not None:
            racer.lost_to = max(racer.lost_to, acked)


def lost_under(room: Room, player: str, seq: int) -> None:
    """``player``'s action ``seq`` was refused as decided on top of actions the store lost:
    its seq is spent with the lost ones (sent again, it is refused too) once the loss is
    taken (``take_loss``)."""
    count, acked = room.lost.get(player, (0, 0))
    room.lost[player] = (count, max(acked, seq))


def loss_told(room: Room, here: Callable[[str], bool]) -> Effects:
    """Every racer here is told that the race's history was lost (``history_lost``), with
    their game as the store holds it and how many of their actions were lost, and its
    spectators here watch it again from there; the loss is told then (``room.lost``
    emptied)."""
    lost, room.lost = room.lost, {}
    effects: Effects = [
        Push(player, HistoryLost(racer_view(room.race, player), lost.get(player, (0, 0))[0]))
        for player in room.race.racers
        if here(player)
    ]
    return [*effects, Rewatch(room, "history_lost")]


def rewrite(room: Room, fence_of: Callable[[str], int]) -> Effects:
    """The store lost ``room``'s race (a Redis restarted without its data): write the
    stored part of each racer's log again, with the fence of that racer's session
    (``fence_of``: this node's, or 1 for a racer held elsewhere, whose newer node's fence
    then refuses it for good: the writer drops it); its record follows with the next step,
    as the first version of a record the store does not hold."""
    room.suspect = False
    room.version = 0
    effects: Effects = []
    for player, racer in room.race.racers.items():
        stored = tuple(racer.log[: room.durable.get(player, 0)])
        if stored:
            effects.append(Write(AppendActions(room.id, stored, fence_of(player))))
    return effects
