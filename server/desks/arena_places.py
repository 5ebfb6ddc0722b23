"""An ended arena's final places on its players' profiles (docs/arenas.md, "Playing an
arena", 6 and 8): written at the end, and again whenever a moderator's clearing after the
end changes the standings; a line that did not change is not written again."""

from __future__ import annotations

from protocol.arena import standings
from server.store.arena_records import ArenaPlace, ArenaRecord
from server.store.arenas import Arenas

KEEP_PLACES_S = 365 * 86_400  # a player's arena lines on their profile


async def record_final_places(arenas: Arenas, record: ArenaRecord) -> int:
    """Each placed player's line of the arena ``record``, from its log's standings as they
    stand now: the number of log entries they were computed from."""
    log = await arenas.log(record.arena)
    table = standings(log)
    for standing in table:
        place = ArenaPlace(
            record.arena, record.game, standing.rank, len(table), standing.points, record.ends_at_ms
        )
        await arenas.record_place(standing.player, place, KEEP_PLACES_S)
    return len(log)
