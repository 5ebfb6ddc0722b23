"""The server's settings: one frozen value, from command-line arguments or the environment."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from protocol.arena_pairing import REPEAT_AFTER_MS
from protocol.daily_choice import CERTIFY_BUDGET_S, SOLVER_NODES
from protocol.pairing import UNLIMITED_AFTER_MS
from server.store.replication import SERVICE_DEFAULT, WAIT_MS_DEFAULT


@dataclass(frozen=True, slots=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None  # None: keep everything in this process
    redis_prefix: str = "solrace:"
    # Redis Sentinel: host:port[,host:port...] asked for the primary of ``redis_service``
    # (the URL, if given, then only says user, password, database and TLS); None: the URL's
    redis_sentinels: str | None = None
    redis_service: str = SERVICE_DEFAULT
    redis_sentinel_password: str | None = field(default=None, repr=False)  # the sentinels' own
    # Redis Cluster: host:port[,host:port...] of some of its nodes (the URL, if given, then
    # only says user, password and TLS); None: no cluster
    redis_cluster: str | None = None
    # a write counts (is answered) once this many replicas have it too (WAIT), within
    # ``redis_wait_ms``; 0: once the primary has it
    redis_wait_replicas: int = 0
    redis_wait_ms: int = WAIT_MS_DEFAULT
    grace_ms: int = 30_000  # how long a dropped player may come back and resume
    countdown_ms: int = 3_000  # default countdown before a race starts
    max_race_ms: int = 4 * 3600_000  # a race ends (did not finish) after this long
    # a quick-race player waiting this long accepts any rating (a small site may want less)
    any_rating_after_ms: int = UNLIMITED_AFTER_MS
    # instead of the calendar's schedules, one arena of each game every this many ms,
    # lasting as long, heats of 2 (0: the calendar; a trial or a bench sets it)
    arena_every_ms: int = 0
    # in an arena, two last opponents who have both waited this long may meet again, when
    # the wave finds nobody else for them (a trial or a test may want less)
    arena_repeat_after_ms: int = REPEAT_AFTER_MS
    # finished races stay in memory this long once stored; None: 15 minutes with the memory
    # store (it is their only copy), 0 with Redis (read back from there when asked for)
    done_race_keep_ms: int | None = None
    keep_race_logs_days: int = 30  # ended races' records, results and logs in the store
    keep_identities_days: int = 365  # an account's resume token: this long after its last use
    keep_guests_days: int = 30  # a guest's who has played; one who never played: a day
    spill_path: Path | None = Path("solrace-spill.jsonl")  # writes left at shutdown
    sweep_every_s: float = 2.0  # the lease holder looks for lost nodes' players this often
    rate_per_s: float = 30.0  # requests per second per connection, sustained
    burst: int = 60  # requests per connection in a burst
    flood_strikes: int = 100  # over-limit requests within 10 s that close the connection
    origins: tuple[str, ...] = ()  # allowed Origin headers; empty: any
    # proxies (addresses or CIDRs) whose X-Forwarded-For names the client; empty: none
    trusted_proxies: tuple[str, ...] = ()
    auth_per_connection: int = 10  # register and sign-in attempts per minute per connection
    auth_per_address: int = 60  # ... per client address per 10 minutes, all nodes together
    auth_per_username: int = 20  # sign-ins of one username per 10 minutes, from anywhere
    registrations_per_address_day: int = 3  # accounts made from one address in a day
    # an account made today may make today's ranked daily attempt (off: from tomorrow on)
    new_accounts_ranked_today: bool = False
    # ranked daily attempts and rated races need an account this many days old that has
    # finished this many games (protocol/standing.py); 0: that part is off
    ranked_account_days: int = 3
    ranked_account_games: int = 10
    connections_per_address: int = 100  # open websockets per client address, per node; 0: any
    ping_interval_s: float = 20.0  # keepalive pings find dead connections
    ping_timeout_s: float = 20.0
    close_timeout_s: float = 2.0  # a peer that does not finish the closing handshake
    event_buffer: int = 512  # events kept per player for resume
    standings_interval_ms: int = 500  # idle racers get opponents' progress this often
    standings_every_ms: int = 200  # an acting racer's results carry it at most this often
    feed_interval_ms: int = 50  # delayed spectator feeds and spectator counts flush this often
    # a feed item (several, when they queued) is written to this many spectators per loop
    # turn, players' requests read between chunks; then this long before the next chunk
    # (0: in the next loop turn)
    spectator_chunk: int = 100
    spectator_pause_ms: float = 0.0
    max_write_buffer: int = 256 << 10  # a connection this far behind is closed (players)
    spectator_write_buffer: int = 256 << 10  # a spectator this far behind stops watching
    # mixed into the daily deal rule, so the deal can't be worked out ahead; None: a random
    # one, kept in the store (first start of a deployment on Redis, or per process)
    daily_secret: str | None = None
    daily_certify: bool = True  # daily deals must be proven winnable by the solver
    daily_solver_nodes: int = SOLVER_NODES  # per candidate deal
    daily_certify_budget_s: float = CERTIFY_BUDGET_S  # one worker core, at most this long a day
    # (Shady Lanes needs minutes; the other games under a second: docs/solver.md)
    shutdown_grace_s: float = 10.0  # time to finish writes on SIGTERM
    # a node whose wall clock is further off the store's (Redis TIME) takes no lease and no
    # new connection (server/carry/clock_check.py)
    max_clock_offset_ms: int = 2_000
    # the Ed25519 key (PEM) race logs and boards are signed with; None: one kept in the store
    signing_key_path: Path | None = None
    static_dir: str | None = None  # the browser client's files; None: the packaged ones
    # moderators' token for `solrace admin` (32+ characters); None: no admin requests at all
    admin_token: str | None = field(default=None, repr=False)
    # the solver's budget for the line a ranked run is compared with (fair-play signals);
    # 0: no solver line (the other signals still count)
    fair_play_solver_nodes: int = 200_000
    hold_flagged: bool = True  # flagged runs wait for a moderator; False: flagged, not held
    log_level: str = "INFO"
