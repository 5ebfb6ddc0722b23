"""Storage behind one narrow interface: daily challenges, leaderboards, races and their logs.

``Store`` is the interface the server calls; ``MemoryStore`` (``server/store/memory.py``)
keeps everything in this process (the default, so ``solrace serve`` needs nothing else);
``RedisStore`` (``server/store/redis_store.py``; ``redis`` is imported only by the
``redis_*`` modules of this package) shares it between server processes. Both keep the
same promises, checked by one contract test suite (``tests/server/test_stores_*.py``);
``docs/storage.md`` describes them.

Boards are ordered by ``(run.score(), run.member())``, the sorted-set encoding of the total
order of ``protocol/ranking.py``: it sorts exactly as ``Run.sort_key`` within the ranges
that module documents, and both stores sort the same way beyond them.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from protocol.errors import SolraceError
from protocol.race import LogEntry
from protocol.ranking import Run
from protocol.ratings import Rating
from server.jobs import Job
from server.store.account import Account as Account  # kept here for its users
from server.store.moderation import Moderation

DAYS_KEPT = 400  # a player's ranked daily days remembered for their streak


# What a player is answered when the store could not do what they asked: one code, one
# sentence, whatever the request (an ``act`` among them)
STORE_UNAVAILABLE = "store_unavailable"
STORE_UNAVAILABLE_SENTENCE = (
    "the store is not answering, so nothing was done (a move was not played): send it again shortly"
)


class StoreError(SolraceError):
    """The store could not do what was asked; the message says why, for an operator (a
    player is told ``STORE_UNAVAILABLE_SENTENCE``)."""

    code = STORE_UNAVAILABLE


class StoreUnavailable(StoreError):
    """The storage backend cannot be reached (after the store's own retries)."""


class Identity(NamedTuple):
    """Who a resume token names: the player, their name, and their account's username
    (None for a guest)."""

    player: str
    name: str
    account: str | None = None
    played: bool = False  # a guest who has played (a race, a daily attempt, a pool)


@dataclass(frozen=True, slots=True)
class History:
    """A player's past: their latest races and runs (newest first), per game the
    head-to-head races played and won, and the days of their ranked daily runs (in order,
    the last 400)."""

    recent: list[dict[str, Any]]
    played: dict[str, int]
    won: dict[str, int]
    days: list[str]


@dataclass(frozen=True, slots=True)
class Listed:
    """Where a race is listed: ``live`` (not over), ``open`` (anyone may join it),
    ``watchable`` (live and public); and its racers (each finds their live races)."""

    live: bool
    open: bool
    watchable: bool
    racers: tuple[str, ...]


def race_channel(race: str) -> str:
    """The channel on which nodes hear of a race's changes and new actions."""
    return f"race:{race}"


def node_channel(node: str) -> str:
    """The channel on which a node hears what concerns its own sessions."""
    return f"node:{node}"


class Fenced(StoreError):
    """A log entry written with a fence lower than the racer's: another node took the
    player over, and this node must let them go."""


@dataclass(frozen=True)
class Entry:
    """One run on a board and its rank (1 = best)."""

    rank: int
    run: Run


@dataclass(frozen=True)
class Board:
    """One consistent view of a leaderboard."""

    total: int  # number of entries on the board
    top: list[Entry]  # the best ``top`` entries
    around: list[Entry]  # ranks rank-``around`` .. rank+``around`` of ``player`` ([] if none)
    me: Entry | None  # the player's own entry, if any


class Store(ABC):
    """Identities, races (records and logs), daily challenges, leaderboards, results, and
    the messages between nodes.

    Every method is atomic: concurrent callers (tasks, or server processes sharing Redis)
    never observe half of an update. Every write is idempotent, so a write repeated after
    a lost answer changes nothing more. Failures raise ``StoreError``; an unreachable
    backend raises ``StoreUnavailable`` within a few seconds.
    """

    node: str = ""  # the node this store serves (the messages it sends say so)
    shared = True  # other processes (nodes) may use it too; else races need no following
    listener: Callable[[str, dict[str, Any]], None] | None = None  # messages subscribed to
    # False: the "log" messages this node published are not handed to the listener (a node
    # knows its own racers' actions; a server sets it, so it does not parse them again)
    hear_own_logs: bool = True
    moderation: Moderation  # the moderation role (``server/store/moderation.py``)

    # daily challenge

    @abstractmethod
    async def daily_secret(self, proposed: str) -> str:
        """The deployment's secret for the daily deal rule: ``proposed`` unless a secret is
        stored already; return the stored one (the first writer wins, and it is kept)."""

    # signed results (protocol/signing.py)

    @abstractmethod
    async def signing_key(self, proposed: str) -> str:
        """The deployment's Ed25519 private key (hex) when no operator gives one:
        ``proposed`` unless one is stored already; the stored one (first writer wins)."""

    @abstractmethod
    async def publish_key(self, key_id: str, public_hex: str) -> dict[str, str]:
        """Add a public key to the published ones (kept for good, so logs signed before a
        rotation still check); every published key, id -> public key hex."""

    @abstractmethod
    async def daily_deal(self, game: str, day: str) -> int | None:
        """The deal number stored for ``game`` on ``day``, or None."""

    @abstractmethod
    async def set_daily_deal(self, game: str, day: str, number: int, nonce: str = "") -> int:
        """Store ``number`` and the ``nonce`` of its commitment unless a deal is already
        stored; return the stored one (the first writer wins: deal and nonce never
        change)."""

    @abstractmethod
    async def daily_nonce(self, game: str, day: str) -> str | None:
        """The nonce stored with the day's deal, or None."""

    @abstractmethod
    async def claim_daily(self, game: str, day: str, player: str, attempt: str) -> bool:
        """True iff ``attempt`` is the player's ranked attempt of the day: the first one
        claimed (remembered), or that same attempt id claimed again. False for every other
        attempt (practice)."""

    @abstractmethod
    async def ranked_attempt(self, game: str, day: str, player: str) -> str | None:
        """The attempt id the player claimed that day, if any."""

    @abstractmethod
    async def record_daily(self, game: str, day: str, run: Run) -> bool:
        """Put the run of the player's claimed attempt on the day's board, once.

        True when the board now holds this run (stored by this call, or an identical run
        stored before). False, storing nothing, when ``run.race`` is not the claimed
        attempt or another run is already recorded for the player that day. A finished
        run is also offered to the game's all-time board (``offer_best``).
        """

    @abstractmethod
    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        """The day's board: the best ``top`` runs and the window around ``player``."""

    @abstractmethod
    async def offer_best(self, game: str, run: Run) -> bool:
        """Keep the run on the all-time board if it is the player's best finished run.

        The run replaces the player's stored run iff ``run.better_than(stored)`` (an equal
        later run never displaces an earlier one). True when the board now holds this run;
        False for a run that did not finish or is not better.
        """

    @abstractmethod
    async def best_board(
        self, game: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        """The game's all-time board (one entry per player, finished runs only)."""

    # races

    @abstractmethod
    async def save_race(self, race: str, record: dict[str, Any]) -> None:
        """Store the race's record as it is, replacing any before (for tools and tests;
        the server changes records with ``save_race_if``)."""

    @abstractmethod
    async def load_race(self, race: str) -> dict[str, Any] | None:
        """The race's record as saved (with its ``version``), or None."""

    @abstractmethod
    async def save_race_if(
        self, race: str, record: dict[str, Any], version: int, listed: Listed
    ) -> bool:
        """Store ``record`` as version ``version + 1`` if the stored one is version
        ``version`` (0: none is stored), list the race as ``listed`` says, and tell every
        node that subscribes to the race (``race_channel``); False, changing nothing, if
        another version is stored (someone else changed the race first)."""

    @abstractmethod
    async def load_races(self, races: Sequence[str]) -> list[dict[str, Any] | None]:
        """The records of ``races``, in order (None for an unknown one)."""

    @abstractmethod
    async def listed_races(self, kind: str) -> list[str]:
        """The races listed as ``open`` (anyone may join) or ``watchable`` (live, public)."""

    async def append_action(self, race: str, entry: LogEntry) -> None:
        """Append one accepted action to the race's log, in order."""
        await self.append_actions([(race, entry)])

    @abstractmethod
    async def append_actions(self, entries: list[tuple[str, LogEntry]]) -> None:
        """Append ``(race, entry)`` pairs to the racers' logs, each in the given order.

        Idempotent, so a batch may be sent again after a failure: a player's seqs grow
        along their log, so an entry whose seq is not above the last one logged for its
        player is a resend and is skipped. (An action is never logged twice, even when a
        write whose answer was lost is made again with another time.)
        """

    @abstractmethod
    async def racer_log(self, race: str, player: str, after_seq: int = 0) -> list[LogEntry]:
        """``player``'s logged actions in ``race`` whose seq is above ``after_seq``."""

    @abstractmethod
    async def racers_logged(self, race: str) -> list[str]:
        """The players with a log in ``race``."""

    async def actions(self, race: str) -> list[LogEntry]:
        """Every entry of the race's log: each racer's in order, racers merged by time."""
        entries = [
            entry
            for player in await self.racers_logged(race)
            for entry in await self.racer_log(race, player)
        ]
        return sorted(entries, key=lambda entry: entry.t_ms)

    @abstractmethod
    async def claim_racer(self, race: str, player: str, fence: int) -> bool:
        """Make ``fence`` the writer of ``player``'s log in ``race``: from now on an entry
        written with a lower fence is refused (``Fenced``). False if a higher fence holds
        it already (another node took the player over since)."""

    @abstractmethod
    async def save_result(self, race: str, result: dict[str, Any]) -> None:
        """Store the race's result (a JSON-able dict), replacing any before."""

    @abstractmethod
    async def load_result(self, race: str) -> dict[str, Any] | None:
        """The race's result as saved, or None."""

    # live races, players, leases

    @abstractmethod
    async def live_races(self) -> list[str]:
        """Every race listed as live (saved, not ended)."""

    @abstractmethod
    async def player_races(self, player: str) -> list[str]:
        """The live races whose record names ``player`` as a racer."""

    # nodes and messages between them

    @abstractmethod
    async def subscribe(self, channels: Sequence[str]) -> None:
        """Receive the messages sent on ``channels`` (given to ``listener``)."""

    @abstractmethod
    async def unsubscribe(self, channels: Sequence[str]) -> None:
        """Stop receiving the messages of ``channels``."""

    @abstractmethod
    async def publish(self, channel: str, message: dict[str, Any]) -> None:
        """Send ``message`` to every node that subscribes to ``channel``."""

    @abstractmethod
    async def node_alive(self, node: str, ttl_ms: int) -> None:
        """``node`` is alive for ``ttl_ms`` more (it says so again before then)."""

    @abstractmethod
    async def nodes(self) -> dict[str, bool]:
        """Every node known, and whether it is alive."""

    @abstractmethod
    async def take_player(self, player: str, node: str) -> str | None:
        """``player``'s session is on ``node`` now; the node it was on before, if any."""

    @abstractmethod
    async def player_node(self, player: str) -> str | None:
        """The node ``player``'s session is on (or was last on)."""

    @abstractmethod
    async def node_players(self, node: str) -> list[str]:
        """The players whose session went to ``node`` (and not elsewhere since)."""

    @abstractmethod
    async def forget_node(self, node: str) -> None:
        """``node`` is gone and its players are seen to: forget it."""

    @abstractmethod
    async def identity(self, token_hash: str) -> Identity | None:
        """Who a resume token's hash names, if it is kept."""

    @abstractmethod
    async def revoke_tokens(self, player: str, token_hashes: Sequence[str] | None) -> None:
        """Forget these resume tokens of ``player`` (None: every token of their account)."""

    # ------------------------------------------------------------------ accounts

    @abstractmethod
    async def create_account(self, account: Account) -> bool:
        """Store ``account`` unless its username is taken (in any case: see
        ``protocol.accounts.username_key``); False, changing nothing, when it is."""

    @abstractmethod
    async def account(self, username: str) -> Account | None:
        """The account of ``username`` (in any case)."""

    @abstractmethod
    async def set_password_hash(self, username: str, password_hash: str) -> None:
        """Replace the account's password hash (made again with today's parameters)."""

    @abstractmethod
    async def account_of(self, player: str) -> str | None:
        """The username of ``player``'s account; None for a guest."""

    @abstractmethod
    async def ratings(self, game: str, players: Sequence[str]) -> dict[str, Rating]:
        """The players' ratings in ``game`` (only those who have one)."""

    @abstractmethod
    async def rate_race(
        self, game: str, race: str, runs: Sequence[Run], now_ms: int, keep_s: int
    ) -> dict[str, tuple[Rating, Rating]] | None:
        """Rate a finished race once (``protocol.ratings.race_updates`` on the runs' players'
        ratings as they are now): each player's rating before and after; None, changing
        nothing, when the race was rated already (by this node or another). The mark that
        it was rated is kept ``keep_s`` seconds."""

    @abstractmethod
    async def history(self, player: str) -> History:
        """What ``player``'s profile shows of their past (``RecordHistory`` jobs)."""

    # ------------------------------------------------------------------ fair play

    @abstractmethod
    async def note_address(self, day: str, player: str, address: str) -> None:
        """``player`` (an account) was seen on client ``address`` on ``day`` (kept two days)."""

    @abstractmethod
    async def shared_address(self, day: str, players: Sequence[str]) -> bool:
        """Whether any two of ``players`` were seen on one client address on ``day``."""

    # ------------------------------------------------------------------ quick pairing

    @abstractmethod
    async def join_pool(self, game: str, entry: dict[str, Any]) -> str | None:
        """Put ``entry`` (``player``, ``name``, ``rating``, ``joined_ms``, ``account``) in
        ``game``'s pool, unless the player waits in a pool already: then the game of that
        pool, changing nothing (None when they joined)."""

    @abstractmethod
    async def leave_pool(self, player: str) -> str | None:
        """Take ``player`` out of the pool they wait in; its game, or None."""

    @abstractmethod
    async def pool(self, game: str) -> list[dict[str, Any]]:
        """Every entry waiting in ``game``'s pool."""

    @abstractmethod
    async def take_pair(self, game: str, first: str, second: str) -> bool:
        """Take both players out of ``game``'s pool if both still wait in it (True), else
        change nothing (one left, or another node paired them)."""

    @abstractmethod
    async def count_attempt(self, scope: str, window_s: int) -> int:
        """Count one more attempt in ``scope`` (e.g. sign-ins from one address) in the
        current ``window_s``-second window; the count so far in that window."""

    @abstractmethod
    async def failures(self, scope: str) -> int:
        """Failures noted in ``scope`` and not yet forgotten."""

    @abstractmethod
    async def note_failure(self, scope: str, keep_s: int) -> int:
        """One more failure in ``scope``, all forgotten ``keep_s`` after the last one; the
        count."""

    @abstractmethod
    async def clear_failures(self, scope: str) -> None:
        """Forget ``scope``'s failures (a sign-in succeeded)."""

    @abstractmethod
    async def next_event_generation(self, player: str) -> int:
        """A number greater than every one this method returned for ``player`` before (a
        process numbers the player's events after it, so numbers are never reused)."""

    @abstractmethod
    async def claim_lease(self, name: str, holder: str, ttl_ms: int) -> bool:
        """Hold the lease ``name`` for ``ttl_ms`` more if nobody else holds it (renewing it
        when ``holder`` does); True when ``holder`` holds it now."""

    @abstractmethod
    async def release_lease(self, name: str, holder: str) -> None:
        """Give the lease up if ``holder`` holds it (another process may take it at once)."""

    @abstractmethod
    async def write(self, jobs: Sequence[Job]) -> list[StoreError | None]:
        """Carry out ``jobs`` (see ``server/jobs.py``) in order, in one round trip where
        the backend allows; for each, None when it was done, or the error that stopped it.
        Raises ``StoreUnavailable`` when none could be done."""

    def write_now(self, jobs: Sequence[Job]) -> list[StoreError | None] | None:
        """``write`` done before returning, by a store that needs no I/O for it (the
        memory store); None from a store that cannot (the writer then queues the jobs)."""
        return None

    @abstractmethod
    async def ping(self) -> bool:
        """Health check: True when the backend answers."""

    @abstractmethod
    async def close(self) -> None:
        """Release connections; the store is not used afterwards."""


# shared encodings and checks


def encode_json(value: Any) -> str:
    """The canonical JSON text both stores keep (sorted keys, no NaN)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def any_shared(address_sets: Sequence[set[str]]) -> bool:
    """Whether two of the sets have an address in common (``Store.shared_address``)."""
    seen: set[str] = set()
    for addresses in address_sets:
        if seen & addresses:
            return True
        seen |= addresses
    return False


def run_json(run: Run) -> str:
    return encode_json(run.as_dict())


def run_from_json(text: str) -> Run:
    return Run.from_dict(json.loads(text))


def board_key(run: Run) -> tuple[float, str]:
    """Where a run sits on a board: the sorted-set score, then the member's byte order."""
    return (run.score(), run.member())


def log_batches(entries: list[tuple[str, LogEntry]]) -> dict[str, list[LogEntry]]:
    """Each race's entries, in the given order."""
    batches: dict[str, list[LogEntry]] = {}
    for race, entry in entries:
        batches.setdefault(race, []).append(entry)
    return batches


def check_window(top: int, around: int) -> None:
    if top < 0 or around < 0:
        raise ValueError(f"top and around must not be negative (got {top} and {around})")


def check_game(game: str, run: Run) -> None:
    if run.game != game:
        raise ValueError(f"a {run.game} run cannot go on the {game} board")
