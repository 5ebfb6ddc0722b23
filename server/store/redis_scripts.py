"""The Lua scripts of the Redis store (``server/store/redis_store.py`` registers them):
every update that touches more than one key is one script, so it is atomic. Each script's
comment names its KEYS and ARGV; ``docs/storage.md`` lists the keys themselves. Plain
text, kept apart so the store's module holds only what talks to Redis."""

from __future__ import annotations

# KEYS[1] a value; ARGV[1] the value proposed, ARGV[2] its time to live (seconds; 0:
# for good). The first writer wins.
FIRST_WRITER = """
local stored = redis.call('GET', KEYS[1])
if stored then return stored end
redis.call('SET', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return ARGV[1]
"""

# KEYS[1] the day's deal, KEYS[2] its nonce; ARGV[1] the deal, ARGV[2] the nonce, ARGV[3]
# their time to live. The first writer wins: the deal and its nonce never change.
SET_DEAL = """
local stored = redis.call('GET', KEYS[1])
if stored then return stored end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[3])
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return ARGV[1]
"""

# KEYS[1] the account (by its username's key); ARGV: its fields and values. 1 iff created.
CREATE_ACCOUNT = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1
"""

# Quick pairing. KEYS[1] the game's pool (player -> entry), KEYS[2] where the player waits.
# ARGV[1] the player, ARGV[2] the entry, ARGV[3] the game, ARGV[4] the marker's time to live.
# The game of the pool they wait in already, or nothing when they joined.
JOIN_POOL = """
local waiting = redis.call('GET', KEYS[2])
if waiting then return waiting end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
return false
"""

# KEYS[1] the pool, KEYS[2] where ARGV[1] waits: 1 iff they were in it.
LEAVE_POOL = """
redis.call('DEL', KEYS[2])
return redis.call('HDEL', KEYS[1], ARGV[1])
"""

# KEYS[1] the pool, KEYS[2] and KEYS[3] where ARGV[1] and ARGV[2] wait: both out, or none.
TAKE_PAIR = """
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 or redis.call('HEXISTS', KEYS[1], ARGV[2]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1], ARGV[2])
redis.call('DEL', KEYS[2], KEYS[3])
return 1
"""

# A player's history, once per race. KEYS: the player's races (race -> entry), their
# order (score: at_ms), stats (GAME:played, GAME:won, GAME:finished, GAME:time_ms), ranked
# daily days (score: ordinal). ARGV: race, entry, at_ms, counted, won, game, day or '', day's
# ordinal, entries kept, days kept, time to live, a finish's time or ''. 1 iff recorded now.
RECORD_HISTORY = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
local extra = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[9])
if extra > 0 then
  local old = redis.call('ZRANGE', KEYS[2], 0, extra - 1)
  redis.call('ZREMRANGEBYRANK', KEYS[2], 0, extra - 1)
  redis.call('HDEL', KEYS[1], unpack(old))
end
if ARGV[4] == '1' then redis.call('HINCRBY', KEYS[3], ARGV[6] .. ':played', 1) end
if ARGV[5] == '1' then redis.call('HINCRBY', KEYS[3], ARGV[6] .. ':won', 1) end
if ARGV[7] ~= '' then
  redis.call('ZADD', KEYS[4], ARGV[8], ARGV[7])
  redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -tonumber(ARGV[10]) - 1)
end
if ARGV[12] ~= '' then
  redis.call('HINCRBY', KEYS[3], ARGV[6] .. ':finished', 1)
  redis.call('HINCRBY', KEYS[3], ARGV[6] .. ':time_ms', ARGV[12])
end
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[11]) end
return 1
"""

# KEYS[1] claims; ARGV[1] player, ARGV[2] attempt, ARGV[3] the day's keys' time to live.
# 1 iff the attempt is the claimed one.
CLAIM = """
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2]) == 1 then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  return 1
end
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then return 1 end
return 0
"""

# offer(board, members, runs, player, score, member, run JSON, progress, time_ms, actions):
# keep a finished run on an all-time board if it is the player's best. 1 when the board
# holds it now. The comparison is Run.better_than on finished runs: (less time, fewer
# actions), strictly; progress is equal (every card) for all of them.
OFFER = """
local function offer(board, members, runs, player, score, member, run, time_ms, actions)
  local stored_member = redis.call('HGET', members, player)
  if stored_member then
    local stored_json = redis.call('HGET', runs, stored_member)
    if stored_json == run then return 1 end
    local old = cjson.decode(stored_json)
    local better = time_ms < old.time_ms or (time_ms == old.time_ms and actions < old.actions)
    if not better then return 0 end
    redis.call('ZREM', board, stored_member)
    redis.call('HDEL', runs, stored_member)
  end
  redis.call('ZADD', board, score, member)
  redis.call('HSET', runs, member, run)
  redis.call('HSET', members, player, member)
  return 1
end
"""

# KEYS[1] the day's claims, KEYS[2..4] its board, members, runs, KEYS[5..7] the game's
# all-time board, members, runs; ARGV[1] player, ARGV[2] race, ARGV[3] score,
# ARGV[4] member, ARGV[5] run JSON, ARGV[6] '1' when finished, ARGV[7] time_ms,
# ARGV[8] actions, ARGV[9] the day's keys' time to live. One step: the day's board, then
# (a finished run) the all-time board.
RECORD_DAILY = (
    OFFER
    + """
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[2] then return 0 end
local recorded = redis.call('HGET', KEYS[3], ARGV[1])
if recorded then
  if redis.call('HGET', KEYS[4], recorded) == ARGV[5] then return 1 end
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
redis.call('HSET', KEYS[4], ARGV[4], ARGV[5])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
for i = 2, 4 do redis.call('EXPIRE', KEYS[i], ARGV[9]) end
if ARGV[6] == '1' then
  offer(KEYS[5], KEYS[6], KEYS[7], ARGV[1], ARGV[3], ARGV[4], ARGV[5],
        tonumber(ARGV[7]), tonumber(ARGV[8]))
end
return 1
"""
)

# KEYS[1] board, KEYS[2] members, KEYS[3] runs; ARGV[1] top, ARGV[2] around,
# ARGV[3] '1' when a player is asked for, ARGV[4] player.
# Returns {total, rank0 (-1: none), start0 of around, top run JSONs, around run JSONs}.
READ_BOARD = """
local function records(members)
  local out = {}
  for i = 1, #members, 500 do
    local chunk = {}
    for j = i, math.min(i + 499, #members) do chunk[#chunk + 1] = members[j] end
    for _, record in ipairs(redis.call('HMGET', KEYS[3], unpack(chunk))) do
      out[#out + 1] = record
    end
  end
  return out
end
local total = redis.call('ZCARD', KEYS[1])
local top = tonumber(ARGV[1])
local top_members = {}
if top > 0 then top_members = redis.call('ZRANGE', KEYS[1], 0, top - 1) end
local rank = -1
local start = 0
local around_members = {}
if ARGV[3] == '1' then
  local member = redis.call('HGET', KEYS[2], ARGV[4])
  if member then
    local found = redis.call('ZRANK', KEYS[1], member)
    if found then
      rank = found
      start = math.max(0, rank - tonumber(ARGV[2]))
      around_members = redis.call('ZRANGE', KEYS[1], start, rank + tonumber(ARGV[2]))
    end
  end
end
return {total, rank, start, records(top_members), records(around_members)}
"""

# KEYS[1] a race's record (hash: v the version, r the JSON); ARGV[1] the version expected
# (0: none), ARGV[2] the new JSON, ARGV[3] the channel, ARGV[4] the message to publish on it
# (its "v" is filled in here). 1 when stored as the next version, 0 (nothing changed) else.
SAVE_RACE_IF = """
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if stored ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', stored + 1, 'r', ARGV[2])
redis.call('PUBLISH', ARGV[3], ARGV[4])
return 1
"""

# A batch's action entries for one race, and the news of them, in one step. KEYS[1] the
# race's racers (a set), KEYS[1 + i] racer i's log (a stream). ARGV[1] the race's channel,
# ARGV[2] n, the racers; then per racer i: its id, '1' to add it to the racers, the message
# that carries its entries, the bare hint, the seq its first entry was decided on top of
# (-1: unchecked); then per entry: its racer's i, its stream id, action and t_ms. A racer
# whose log's newest action is below that seq (the store lost acknowledged entries) has
# every entry refused with a LOGGAP error, never stored above the hole. Every other entry
# is appended (an id not above its log's last is refused, the others still go in); then
# each racer's message is published: the one that carries the entries if every entry went
# in, else the hint (followers read the log). In the same step, so the news is never of an
# entry a fence refused, and it reaches the followers before anything the racer's next
# request changes. 1 when every entry went in, else every XADD's reply (an error reply in
# its place).
APPEND_LOG = """
local n = tonumber(ARGV[2])
local function newest_seq(key)
  local top, count = '+', 1
  while true do
    local page = redis.call('XREVRANGE', key, top, '-', 'COUNT', count)
    for _, entry in ipairs(page) do
      local seq = tonumber(string.match(entry[1], '%-(%d+)$'))
      if seq > 0 then return seq end
      top = '(' .. entry[1]
    end
    if #page < count then return 0 end
    count = 16
  end
end
local gap = {}
for i = 1, n do
  local at = 5 * i - 2
  if ARGV[at + 1] == '1' then redis.call('SADD', KEYS[1], ARGV[at]) end
  local after = tonumber(ARGV[at + 4])
  if after >= 0 and newest_seq(KEYS[1 + i]) < after then gap[i] = after end
end
local replies = {}
local ok = true
for at = 3 + 5 * n, #ARGV, 4 do
  local i = tonumber(ARGV[at])
  local reply
  if gap[i] then
    reply = redis.error_reply('LOGGAP ' .. ARGV[5 * i - 2] .. ': the log ends below ' .. gap[i])
  else
    reply = redis.pcall('XADD', KEYS[1 + i], ARGV[at + 1], 'a', ARGV[at + 2], 't', ARGV[at + 3])
  end
  if type(reply) == 'table' and reply.err then ok = false end
  replies[#replies + 1] = reply
end
for i = 1, n do
  redis.call('PUBLISH', ARGV[1], ok and ARGV[5 * i] or ARGV[5 * i + 1])
end
if ok then return 1 end
return replies
"""

# KEYS[1] a race's record; ARGV[1] the version the final record follows, ARGV[2] its JSON.
# Stored only if nobody moved the record on meanwhile (who ends a race first writes it).
END_RACE = """
local stored = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if stored ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', stored + 1, 'r', ARGV[2])
return 1
"""

# KEYS[1] the lease; ARGV[1] holder, ARGV[2] ttl ms. 1 when the holder holds it now.
LEASE = """
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""

# KEYS[1] the lease; ARGV[1] holder. Deleted only by its holder.
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0
"""


def published(script: str, sharded: bool) -> str:
    """``script`` publishing its news with ``SPUBLISH`` on a Redis Cluster (``sharded``: its
    channel carries its keys' hash tag, so it is in their slot, ``RedisKeys.channel``), else
    as written (``PUBLISH``)."""
    return script.replace("redis.call('PUBLISH'", "redis.call('SPUBLISH'") if sharded else script
