"""The arenas role of the Redis store (``server/store/arenas.py``).

Every key of one arena carries its hash tag (``arena:{ARENA}:...``, ``RedisKeys.arena``), so
each script below touches one slot. What must be atomic is one script: creating the record,
joining, a participant's change with the ``Withdrawn`` entry it logs, starting a heat under
the lease's token, appending an entry once (its identity checked and written with it),
taking, renewing and releasing the lease. What a script needs to know beforehand and never
changes once true (the arena exists, a heat was started with these racers, a player
joined, a heat's result is held) is read before it. Every arena key expires at the
arena's end plus ``KEEP_ARENA_MS`` (``PEXPIREAT``, set by each write); the lease lapses
after its time; a player's arena lines ``keep_s`` after their latest.
"""

from __future__ import annotations

import time

from protocol.arena import Entry, HeatResult, Withdrawn
from server.store.arena_records import (
    KEEP_ARENA_MS,
    MAX_ENTRIES,
    MAX_HEATS,
    MAX_PARTICIPANTS,
    ArenaPlace,
    ArenaRecord,
    HeatStart,
    Participant,
    changed,
    check_entry,
    check_id,
    check_time,
    checked_change,
    entry_from_json,
    entry_heat,
    entry_identity,
    entry_json,
    entry_players,
    full,
    no_arena,
    not_joined,
    stale,
    status_reached,
    streak_ends,
)
from server.store.arenas import (
    PLACES_KEPT,
    Arenas,
    checked_keep,
    checked_start,
    checked_ttl,
    newest_first,
)
from server.store.base import StoreError
from server.store.redis_calls import RedisCalls, acknowledged_once_replicated
from server.store.redis_keys import RedisKeys

TRIES = 10  # a compare-and-set, when other writes to the same participant interleave
FULL, STALE, GONE = -1, -3, -2  # what the scripts answer for ArenaFull, StaleLease, no arena

# KEYS[1] the record; ARGV[1] its content, ARGV[2] when it expires. 1 when stored (now or
# the same before), 0 when another arena has the id.
CREATE = """
local stored = redis.call('HGET', KEYS[1], 'record')
if stored then return stored == ARGV[1] and 1 or 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[1], 'status', 'scheduled')
redis.call('PEXPIREAT', KEYS[1], ARGV[2])
return 1
"""

# KEYS[1] the operators' arenas (id -> when its keys expire); ARGV[1] the arena, ARGV[2]
# when its keys expire, ARGV[3] now. Forgets the expired; the index expires with its last.
INDEX_MADE = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
redis.call('PEXPIREAT', KEYS[1], last[2])
return 1
"""

# KEYS[1] the record; ARGV[1] the status expected, ARGV[2] the new one. 1 when set.
SET_STATUS = """
if redis.call('HGET', KEYS[1], 'status') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2])
return 1
"""

# KEYS[1] the record, KEYS[2] the participants; ARGV[1] the player, ARGV[2] their record,
# ARGV[3] the most participants, ARGV[4] when the keys expire.
JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('PEXPIREAT', KEYS[2], ARGV[4])
return 1
"""

# Appends ARGV[2] (entry) to KEYS[1] (log) and ARGV[1] (its identity; "": none, a
# withdrawal) to KEYS[2] (identities) with ARGV[3] ("held" or "1"), unless the identity is
# there; ARGV[4] the most entries, ARGV[5] when the keys expire. Shared by APPEND, CHANGE.
ADD_ENTRY = """
local function add(identity, entry, mark, most, expires)
  if identity ~= '' and redis.call('HEXISTS', KEYS[2], identity) == 1 then return 0 end
  if redis.call('LLEN', KEYS[1]) >= tonumber(most) then return -1 end
  redis.call('RPUSH', KEYS[1], entry)
  redis.call('PEXPIREAT', KEYS[1], expires)
  if identity ~= '' then
    redis.call('HSET', KEYS[2], identity, mark)
    redis.call('PEXPIREAT', KEYS[2], expires)
  end
  return 1
end
"""

APPEND = ADD_ENTRY + "return add(ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])"

# KEYS[1] the log, KEYS[2] its identities, KEYS[3] the participants; ARGV[2..5] as
# ADD_ENTRY (ARGV[2] "": no entry; a withdrawal has no identity), ARGV[6] the player,
# ARGV[7] their record expected, ARGV[8] the new one. 1 when changed, 0 when the record
# expected is not the one stored.
CHANGE = (
    ADD_ENTRY
    + """
if redis.call('HGET', KEYS[3], ARGV[6]) ~= ARGV[7] then return 0 end
if ARGV[2] ~= '' and add('', ARGV[2], ARGV[3], ARGV[4], ARGV[5]) == -1 then return -1 end
redis.call('HSET', KEYS[3], ARGV[6], ARGV[8])
return 1
"""
)

# KEYS[1] the heats, KEYS[2] the newest lease's token, KEYS[3] the heats' order; ARGV[1]
# the heat, ARGV[2] its record, ARGV[3] the token it was started under, ARGV[4] the most
# heats, ARGV[5] when the keys expire. 1 stored (now or the same before), 0 another heat
# has the id.
START_HEAT = """
if tonumber(ARGV[3]) ~= tonumber(redis.call('GET', KEYS[2]) or '0') then return -3 end
local stored = redis.call('HGET', KEYS[1], ARGV[1])
if stored then return stored == ARGV[2] and 1 or 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then return -1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[3], ARGV[1])
for i = 1, 3, 2 do redis.call('PEXPIREAT', KEYS[i], ARGV[5]) end
return 1
"""

# KEYS[1] the heats, KEYS[2] the newest lease's token, KEYS[3] the log's identities;
# ARGV[1] the heat, ARGV[2] the token. 1 taken back, 0 no such heat or its result logged.
TAKE_BACK_HEAT = """
if tonumber(ARGV[2]) ~= tonumber(redis.call('GET', KEYS[2]) or '0') then return -3 end
if redis.call('HEXISTS', KEYS[3], 'heat:' .. ARGV[1]) == 1 then return 0 end
return redis.call('HDEL', KEYS[1], ARGV[1])
"""

# KEYS[1] the lease ("NODE TOKEN"), KEYS[2] the newest token; ARGV[1] the node, ARGV[2] its
# time (ms), ARGV[3] when the token expires. The node's token, or 0 (another holds it).
TAKE_LEASE = """
local current = redis.call('GET', KEYS[1])
if current then
  local holder, token = string.match(current, '^(.*) (%d+)$')
  if holder ~= ARGV[1] then return 0 end
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return tonumber(token)
end
local token = redis.call('INCR', KEYS[2])
redis.call('PEXPIREAT', KEYS[2], ARGV[3])
redis.call('SET', KEYS[1], ARGV[1] .. ' ' .. token, 'PX', ARGV[2])
return token
"""

# KEYS[1] the lease; ARGV[1] "NODE TOKEN", ARGV[2] the time (ms; 0: release). 1 when held.
RENEW_LEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if tonumber(ARGV[2]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2])
else redis.call('DEL', KEYS[1]) end
return 1
"""

# KEYS[1] the lines (arena -> JSON), KEYS[2] their order (by end), KEYS[3] the best place;
# ARGV[1] the arena, ARGV[2] its line, ARGV[3] its end, ARGV[4] the place, ARGV[5] the keep
# time (s), ARGV[6] the most lines kept. 1 when kept now, 0 when kept before.
RECORD_PLACE = """
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[5])
if extra > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[2], 0, extra - 1)) do
    local place = cjson.decode(redis.call('HGET', KEYS[1], old)).place
    local best = redis.call('GET', KEYS[3])
    if not best or place < tonumber(best) then redis.call('SET', KEYS[3], place) end
    redis.call('HDEL', KEYS[1], old)
  end
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
end
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[4]) end
return 1
"""


class RedisArenas(Arenas):
    def __init__(self, calls: RedisCalls, keys: RedisKeys) -> None:
        self._keys, self._calls, self._redis, self._call = keys, calls, calls.redis, calls.call
        register = self._redis.register_script
        self._create, self._set_status, self._join = (
            register(CREATE),
            register(SET_STATUS),
            register(JOIN),
        )
        self._append, self._change, self._start_heat = (
            register(APPEND),
            register(CHANGE),
            register(START_HEAT),
        )
        self._take_lease, self._renew_lease = register(TAKE_LEASE), register(RENEW_LEASE)
        self._take_back_heat = register(TAKE_BACK_HEAT)
        self._record_place, self._index_made = register(RECORD_PLACE), register(INDEX_MADE)
        self._expiry: dict[str, int] = {}  # arena -> when its keys expire (never changes)

    def _key(self, arena: str, part: str) -> str:
        return self._keys.arena(arena, part)

    async def _expires(self, arena: str) -> int:
        """When the arena's keys expire; ``ArenaNotFound`` when there is no such arena."""
        if arena in self._expiry:
            return self._expiry[arena]
        record = await self.arena(arena)
        if record is None:
            raise no_arena(arena)
        return self._expiry.setdefault(arena, record.expires_at_ms())

    @acknowledged_once_replicated
    async def create_arena(self, record: ArenaRecord) -> bool:
        args: list[str | int] = [record.content_json(), record.expires_at_ms()]
        keys = [self._key(record.arena, "record")]
        created = bool(await self._call(self._create(keys=keys, args=args)))
        if created and record.made:  # listed after it is stored: a retry lists it
            now_ms = int(time.time() * 1000)
            made: list[str | int] = [record.arena, record.expires_at_ms(), now_ms]
            await self._call(self._index_made(keys=[self._keys.made_arenas()], args=made))
        return created

    async def made_arenas(self, ending_after_ms: int) -> list[ArenaRecord]:
        check_time(ending_after_ms)
        low = ending_after_ms + KEEP_ARENA_MS + 1  # its keys expire its end + KEEP after
        ids = await self._call(self._redis.zrangebyscore(self._keys.made_arenas(), low, "+inf"))
        records = [await self.arena(arena) for arena in ids]
        made = [record for record in records if record is not None and record.made]
        return sorted(made, key=lambda record: (record.starts_at_ms, record.arena))

    async def arena(self, arena: str) -> ArenaRecord | None:
        check_id("arena id", arena)
        content, status = await self._call(
            self._redis.hmget(self._key(arena, "record"), ["record", "status"])
        )
        return ArenaRecord.from_json(content, status) if content is not None else None

    @acknowledged_once_replicated
    async def set_status(self, arena: str, status: str) -> bool:
        for _ in range(TRIES):
            record = await self.arena(arena)
            if record is None:
                raise no_arena(arena)
            if not status_reached(record.status, status):
                return False
            keys, args = [self._key(arena, "record")], [record.status, status]  # both str
            if await self._call(self._set_status(keys=keys, args=args)):
                return True
        raise StoreError(f"arena {arena}'s status kept changing under it ({TRIES} tries)")

    @acknowledged_once_replicated
    async def join(self, arena: str, player: str, at_ms: int, risk: bool = False) -> bool:
        check_id("arena id", arena)
        check_id("player id", player)
        check_time(at_ms)
        expires = await self._expires(arena)
        keys = [self._key(arena, "record"), self._key(arena, "players")]
        args: list[str | int] = [
            player,
            Participant(player, at_ms, risk=risk).as_json(),
            MAX_PARTICIPANTS,
            expires,
        ]
        done = await self._call(self._join(keys=keys, args=args))
        if done == GONE:
            raise no_arena(arena)
        if done == FULL:
            raise full(arena, "participants", MAX_PARTICIPANTS)
        return bool(done)

    @acknowledged_once_replicated
    async def change(self, arena: str, player: str, change: str, at_ms: int) -> bool:
        check_id("player id", player)
        kind = checked_change(change)
        expires = await self._expires(arena)
        players = self._key(arena, "players")
        keys = [self._key(arena, "log"), self._key(arena, "logged"), players]
        for _ in range(TRIES):
            text = await self._call(self._redis.hget(players, player))
            after = changed(Participant.from_json(text) if text else None, kind, at_ms)
            if after is None:
                return False
            entry = entry_json(Withdrawn(player)) if streak_ends(kind) else ""
            args = ["", entry, "1", MAX_ENTRIES, expires, player, text, after.as_json()]
            done = await self._call(self._change(keys=keys, args=args))
            if done == FULL:
                raise full(arena, "log entries", MAX_ENTRIES)
            if done:
                return True
        raise StoreError(f"{player} in arena {arena} kept changing under it ({TRIES} tries)")

    async def participants(self, arena: str) -> list[Participant]:
        await self._expires(arena)
        found = await self._call(self._redis.hgetall(self._key(arena, "players")))
        return [Participant.from_json(found[player]) for player in sorted(found)]

    @acknowledged_once_replicated
    async def take_lease(self, arena: str, node: str, ttl_ms: int) -> int | None:
        check_id("node id", node)
        expires = await self._expires(arena)
        keys = [self._key(arena, "lease"), self._key(arena, "lease-token")]
        token = await self._call(
            self._take_lease(keys=keys, args=[node, checked_ttl(ttl_ms), expires])
        )
        return int(token) or None

    async def renew_lease(self, arena: str, node: str, token: int, ttl_ms: int) -> bool:
        await self._expires(arena)
        args: list[str | int] = [f"{node} {token}", checked_ttl(ttl_ms)]
        return bool(
            await self._call(self._renew_lease(keys=[self._key(arena, "lease")], args=args))
        )

    async def release_lease(self, arena: str, node: str, token: int) -> None:
        await self._expires(arena)
        args: list[str | int] = [f"{node} {token}", 0]
        await self._call(self._renew_lease(keys=[self._key(arena, "lease")], args=args))

    @acknowledged_once_replicated
    async def start_heat(self, arena: str, heat: HeatStart, token: int) -> bool:
        expires = await self._expires(arena)
        joined = await self._call(self._redis.hmget(self._key(arena, "players"), heat.racers))
        if None in joined:
            raise not_joined(arena)
        keys = [
            self._key(arena, "heats"),
            self._key(arena, "lease-token"),
            self._key(arena, "order"),
        ]
        args: list[str | int] = [heat.heat, heat.as_json(), token, MAX_HEATS, expires]
        done = await self._call(self._start_heat(keys=keys, args=args))
        if done == STALE:
            raise stale(arena)
        if done == FULL:
            raise full(arena, "heats", MAX_HEATS)
        return bool(done)

    @acknowledged_once_replicated
    async def take_back_heat(self, arena: str, heat: str, token: int) -> bool:
        await self._expires(arena)
        keys = [
            self._key(arena, "heats"),
            self._key(arena, "lease-token"),
            self._key(arena, "logged"),
        ]
        done = await self._call(self._take_back_heat(keys=keys, args=[heat, token]))
        if done == STALE:
            raise stale(arena)
        return bool(done)

    async def heats(self, arena: str) -> list[HeatStart]:
        await self._expires(arena)
        found = await self._call(self._redis.hvals(self._key(arena, "heats")))
        started = [HeatStart.from_json(text) for text in found]
        return sorted(started, key=lambda heat: (heat.at_ms, heat.heat))

    async def heats_from(self, arena: str, start: int) -> list[HeatStart | None]:
        checked_start(start)
        await self._expires(arena)
        ids = await self._call(self._redis.lrange(self._key(arena, "order"), start, -1))
        if not ids:
            return []
        texts = await self._call(self._redis.hmget(self._key(arena, "heats"), ids))
        return [None if text is None else HeatStart.from_json(text) for text in texts]

    @acknowledged_once_replicated
    async def append(self, arena: str, entry: Entry) -> bool:
        identity = entry_identity(entry)
        expires = await self._expires(arena)
        logged, players, heat = self._key(arena, "logged"), entry_players(entry), entry_heat(entry)
        async with self._calls.pipeline() as pipe:  # what the script relies on, one trip
            pipe.hexists(logged, identity)
            pipe.hmget(self._key(arena, "players"), players or ["-"])
            pipe.hget(self._key(arena, "heats"), heat or "-")
            pipe.hget(logged, f"heat:{heat}")
            there, joined, started, held = await pipe.execute()
        if there:
            return False
        if players and None in joined:
            raise not_joined(arena)
        check_entry(entry, HeatStart.from_json(started) if started else None, held == "held")
        mark = "held" if isinstance(entry, HeatResult) and entry.held else "1"
        keys = [self._key(arena, "log"), logged]
        args: list[str | int] = [identity, entry_json(entry), mark, MAX_ENTRIES, expires]
        done = await self._call(self._append(keys=keys, args=args))
        if done == FULL:
            raise full(arena, "log entries", MAX_ENTRIES)
        return bool(done)

    async def log(self, arena: str, start: int = 0) -> list[Entry]:
        check_id("arena id", arena)
        checked_start(start)
        await self._expires(arena)
        texts = await self._call(self._redis.lrange(self._key(arena, "log"), start, -1))
        return [entry_from_json(text) for text in texts]

    def _places_keys(self, player: str) -> list[str]:
        check_id("player id", player)
        return [self._keys.player(player, part) for part in ("arenas", "arena-order", "arena-best")]

    @acknowledged_once_replicated
    async def record_place(self, player: str, place: ArenaPlace, keep_s: int) -> bool:
        keep = checked_keep(keep_s)
        args: list[str | int] = [
            place.arena,
            place.as_json(),
            place.ended_ms,
            keep,
            PLACES_KEPT,
        ]
        keys = self._places_keys(player)
        return bool(await self._call(self._record_place(keys=keys, args=args)))

    async def places(self, player: str) -> list[ArenaPlace]:
        texts = await self._call(self._redis.hvals(self._places_keys(player)[0]))
        return newest_first([ArenaPlace.from_json(text) for text in texts])

    async def best_place(self, player: str) -> int | None:
        dropped = await self._call(self._redis.get(self._places_keys(player)[2]))
        places = [line.place for line in await self.places(player)]
        return min([*places, *([int(dropped)] if dropped is not None else [])], default=None)
