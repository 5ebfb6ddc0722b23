"""A live race read back from the store and compared with what this node knows was stored.

The race is rebuilt from the store after a write of its log failed (``reconcile``: the
decider, handed ``ReconcileDue``), once the store's connection is back (``read_back``: the
decider, handed ``ReadBackDue`` by the relay on ``Resync``) and when a racer's session
comes to a node that followed their race (``read_back``: the session desk, after the
welcome). Where the store holds fewer of a racer's actions than
this node knows it stored (a Redis that came back with less than it acknowledged:
``appendfsync everysec`` and a power loss, a lagging replica promoted), nothing is carried
on silently: the loss is logged at ERROR and counted (``FollowedRaces.actions_lost``,
``history_losses``: ``/metrics``), the race goes on from what the store holds, with each
racer's last lost seq kept in its record (``Racer.lost_to``: a resend of a lost action is
refused, and the race is never rated nor ranked), and each racer here is told
(``history_lost``, with their game as it is now).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from protocol.race import Now, Phase
from server.handover.effects import Effects
from server.races.log_sync import loss_told, lost_actions, reconciled, rewrite, take_loss
from server.state.rooms import Room

if TYPE_CHECKING:  # FollowedRaces reads its races back through this module
    from server.races.followed import FollowedRaces

log = logging.getLogger("solrace.director")


async def reconcile(
    races: FollowedRaces, room: Room, moment: Now, fence_of: Callable[[str], int]
) -> Effects:
    """Read ``room``'s race back from the store (a write whose answer was lost may have
    gone in) and take that as the truth; if the store lost it, write it again from what
    was stored before; if it lost acknowledged actions, that is said and told (as in
    ``read_back``). StoreError while the store is out."""
    async with room.lock:
        rebuilt, lost = await _compared(races, room, moment)
        if rebuilt is None:
            log.error(
                "a live race was lost by the store: writing it again", extra={"race": room.id}
            )
            room.lost.clear()  # nothing stored is lost: this node writes it all again
            return rewrite(room, fence_of)
        if not lost and not room.lost:
            return reconciled(room, rebuilt)
        _take_loss(races, room, rebuilt, lost)
    return await _loss_stored(races, room, moment)


async def read_back(races: FollowedRaces, room: Room, moment: Now) -> Effects:
    """The store may hold less than this node saw stored: read ``room``'s race back and
    compare each racer's log with what was known stored; where it holds less, the loss
    is taken, stored and told; nothing otherwise. StoreError while the store is out."""
    async with room.lock:
        rebuilt, lost = await _compared(races, room, moment)
        if rebuilt is None or room.race.phase is Phase.DONE or not (lost or room.lost):
            return []
        _take_loss(races, room, rebuilt, lost)
    return await _loss_stored(races, room, moment)


async def _compared(
    races: FollowedRaces, room: Room, moment: Now
) -> tuple[Room | None, dict[str, tuple[int, int]]]:
    """``room``'s race rebuilt from the store (None: the store has none), and what it
    lacks of what was known stored before it was read (``lost_actions``)."""
    known = dict(room.durable)
    rebuilt = await races.rebuild(room.id, moment, fresh=True)
    return rebuilt, {} if rebuilt is None else lost_actions(room, known, rebuilt)


def _take_loss(
    races: FollowedRaces, room: Room, rebuilt: Room, lost: dict[str, tuple[int, int]]
) -> None:
    """Log and count a loss found now (``lost``; none: one found before, not yet told),
    and take the race as the store holds it."""
    if lost:
        races.actions_lost += sum(count for count, _ in lost.values())
        races.history_losses += 1
        log.error(
            "the store lost acknowledged actions: the race goes on from what it holds, "
            "never rated nor ranked",
            extra={
                "race": room.id,
                "lost": {p: {"actions": n, "last_seq": seq} for p, (n, seq) in lost.items()},
            },
        )
    take_loss(room, rebuilt, lost)


async def _loss_stored(races: FollowedRaces, room: Room, moment: Now) -> Effects:
    """The race's record keeps what was lost (a step that changes nothing else: the racers'
    ``lost_to`` are set), then its racers here are told; actions stored while it was read
    are applied from the store."""
    effects = await races.step(room, moment, lambda: None)
    effects += loss_told(room, races.here)
    for player in list(room.race.racers):
        effects += await races.pull(room, player, moment)
    return effects
