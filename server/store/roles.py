"""The roles the store plays, one interface each (``store.days``, ``store.races``,
``store.bus``, ``store.accounts``, ``store.pairing``, ``store.limits``; ``store.moderation``
is in ``moderation.py``). ``Store`` (``base.py``) holds them, with the jobs the writer hands
it. Every method is atomic and every write idempotent, as ``Store`` promises.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from protocol.race import LogEntry
from protocol.ranking import Run
from protocol.ratings import Rating
from server.store.account import Account
from server.store.records import Board, History, Identity, Listed, Relation


class Days(ABC):
    """The daily challenge: each game's deal of the day and its commitment's nonce, the
    players' ranked attempts, the day's boards and the all-time boards. ``RecordDaily`` jobs
    (``write``) put runs on the boards as ``record_daily`` does."""

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
        run is also offered to the game's all-time board, in the same step: it replaces
        the player's run there iff ``run.better_than(stored)`` (an equal later run never
        displaces an earlier one).
        """

    @abstractmethod
    async def daily_board(
        self, game: str, day: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        """The day's board: the best ``top`` runs and the window around ``player``."""

    @abstractmethod
    async def best_board(
        self, game: str, top: int, player: str | None = None, around: int = 0
    ) -> Board:
        """The game's all-time board (one entry per player, finished runs only)."""


class Races(ABC):
    """Races: their records (changed by compare-and-set), where they are listed, the
    racers' action logs and the results. ``AppendActions`` and ``EndRace`` jobs (``write``)
    log actions and end races."""

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
    async def load_result(self, race: str) -> dict[str, Any] | None:
        """The race's result as its ``EndRace`` job stored it, or None. (The server never
        reads it back, a race's result being derived from its record and logs; it is
        kept for operators and audits, and this read is how the tests see it kept.)"""

    @abstractmethod
    async def player_races(self, player: str) -> list[str]:
        """The live races whose record names ``player`` as a racer."""


class Bus(ABC):
    """What nodes share about each other: messages on channels, which nodes are alive,
    which node serves which player, the players' event generations and the leases of the
    jobs one node does for all."""

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

    async def clock_ms(self) -> int | None:
        """The store's own clock, in ms since the epoch (Redis ``TIME``), which every node
        sharing it reads alike; None for a store with no clock of its own (memory)."""
        return None

    async def replication(self) -> Replication | None:
        """Where the store stands in its replication (Redis ``INFO replication``); None for
        a store that has none (memory)."""
        return None


@dataclass(frozen=True, slots=True)
class Replication:
    """A Redis server's replication: ``replicas`` following it whose link is ``online``;
    ``replid``, the history its data continues; ``replid2``, the one it continued before
    it was promoted from replica to primary (a primary's replica keeps its ``replid``)."""

    replicas: int
    replid: str
    replid2: str


class Accounts(ABC):
    """Who players are: resume tokens' identities, accounts, ratings, the past their
    profiles show and the addresses they were seen on. ``SaveIdentity`` and
    ``RecordHistory`` jobs (``write``) keep identities and past runs."""

    @abstractmethod
    async def identity(self, token_hash: str) -> Identity | None:
        """Who a resume token's hash names, if it is kept."""

    @abstractmethod
    async def revoke_tokens(self, player: str, token_hashes: Sequence[str] | None) -> None:
        """Forget these resume tokens of ``player`` (None: every token of their account)."""

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
    async def was_rated(self, game: str, race: str) -> bool:
        """Whether ``rate_race`` rated ``race`` (while its mark is kept)."""

    @abstractmethod
    async def rating_history(self, game: str, player: str) -> list[tuple[int, int]]:
        """``player``'s rating in ``game`` after each of their latest ``RATINGS_KEPT``
        rated races, oldest first: (when it was rated, epoch ms; the rating, rounded)."""

    @abstractmethod
    async def history(self, player: str) -> History:
        """What ``player``'s profile shows of their past (``RecordHistory`` jobs)."""

    @abstractmethod
    async def note_address(self, day: str, player: str, address: str) -> None:
        """``player`` (an account) was seen on client ``address`` on ``day`` (kept two days)."""

    @abstractmethod
    async def shared_address(self, day: str, players: Sequence[str]) -> bool:
        """Whether any two of ``players`` were seen on one client address on ``day``."""

    @abstractmethod
    async def note_sighting(
        self, player: str, how: str, value: str, at_ms: int, keep_ms: int
    ) -> None:
        """``player`` (an account) was seen on the ``how`` (``"address"``, ``"device"``,
        ``"session"``: a token hash of its connection's lineage) ``value`` at ``at_ms``
        (replacing its sighting there noted before): kept at least ``keep_ms``
        (``related`` asks no further back), all of a value's sightings forgotten
        ``keep_ms`` after its last."""

    @abstractmethod
    async def related(self, player: str, since_ms: int) -> list[Relation]:
        """The other accounts seen since ``since_ms`` on an address, a device or a session
        that ``player`` was seen on since then: one ``Relation`` per account and ``how``, with
        the last noted sighting of that account there, in account order."""


class Pairing(ABC):
    """Quick pairing's pools: who waits for a race in which game."""

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


class Limits(ABC):
    """Counts that limit what one address or account may try: attempts per window and
    failures kept a while."""

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
