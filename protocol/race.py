"""A race as a small explicit state machine, pure: the server calls it with the time and
delivers what it returns.

Phases: ``open`` (players join) -> ``countdown`` (the start time is set and announced) ->
``running`` (actions are validated and timed) -> ``done`` (everyone finished or did not;
the ranking is final). A daily-challenge attempt is a race of one player that starts at
once. Every time comes in as an argument (``Now``), so a race can be replayed exactly.

What each party may see is decided here, by ``racer_view``, ``spectator_view`` and
``public_info``: a racer sees their own cards and only the progress of the others; a
spectator sees every racer's face-up cards; nobody ever sees a face-down or stock card.

A race's stored form (its record, the race rebuilt from a record and its action log, a
replica made to match another node's record) is ``protocol/race_record.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple

from protocol.actionlog import ActionLog
from protocol.engine import GameState, Rules, View
from protocol.errors import SolraceError
from protocol.fairness import commitment, daily_scope, race_scope
from protocol.notation import Undo, parse_canonical
from protocol.phases import TRANSITIONS as TRANSITIONS
from protocol.phases import BadTransition as BadTransition
from protocol.phases import Phase as Phase
from protocol.phases import RaceError as RaceError
from protocol.players import is_bot
from protocol.receipts import first_receipt, next_receipt

REPLY_CACHE = 16  # answers kept per racer for resent actions (only in-flight ones are resent)


RETIREMENTS = ("resigned", "dropped", "timed_out")  # outcomes a race record must keep


class Ending(StrEnum):
    """How a racer's race ended."""

    FINISHED = "finished"
    RESIGNED = "resigned"
    DROPPED = "dropped"  # away longer than the reconnection grace
    STUCK = "stuck"  # no legal action and undo switched off
    TIMED_OUT = "timed_out"  # the race reached its longest allowed duration


class Now(NamedTuple):
    """The server's clocks: ``mono_ms`` for durations, ``wall_ms`` (epoch) for display."""

    mono_ms: int
    wall_ms: int


@dataclass(frozen=True, slots=True)
class RaceSettings:
    game: str
    options: dict[str, Any]
    deal: int
    max_players: int = 2
    public: bool = True
    countdown_ms: int = 3000
    spectator_delay_ms: int = 0
    mode: str = "race"  # "race" or "daily"
    day: str | None = None  # daily: the UTC day of the challenge
    ranked: bool = True  # daily: the player's first attempt of the day; race: may be rated
    paired: bool = False  # a race the server paired (``quick_race``), rated or not
    deal_chosen: bool = False  # the deal number was known before play (so may be shown)
    nonce: str = ""  # the secret half of the deal's commitment (``protocol/fairness.py``)
    invited: str | None = None  # a challenge: the player challenged to it (not shown)
    risk: tuple[str, ...] = ()  # the racers in risk mode: no undo (an arena heat's choice)
    arena: str | None = None  # an arena heat: the arena's id (scores arena points, not ratings)

    def as_dict(self) -> dict[str, Any]:
        """Everything, the deal number and nonce included: for storage, never for players."""
        stored = {**self.public_dict(), "deal": str(self.deal), "nonce": self.nonce}
        return {**stored, "invited": self.invited} if self.invited else stored

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RaceSettings:
        """The settings ``as_dict`` wrote."""
        return cls(
            **{"nonce": "", **data, "deal": int(data["deal"]), "risk": tuple(data.get("risk", ()))}
        )

    def scope(self, race: str) -> str:
        """What the deal was fixed for: the day of a daily deal, or the race."""
        return daily_scope(self.day) if self.mode == "daily" and self.day else race_scope(race)

    def public_dict(self) -> dict[str, Any]:
        """The settings without the deal number."""
        return {
            "game": self.game,
            "options": self.options,
            "deal_chosen": self.deal_chosen,
            "max_players": self.max_players,
            "public": self.public,
            "countdown_ms": self.countdown_ms,
            "spectator_delay_ms": self.spectator_delay_ms,
            "mode": self.mode,
            "day": self.day,
            "ranked": self.ranked,
            "paired": self.paired,
            "risk": list(self.risk),
            "arena": self.arena,
        }


class LogEntry(NamedTuple):
    """One accepted action: who, their sequence number, the action, ms since the start.
    (A tuple of plain values: the garbage collector stops tracking it, which keeps its
    pauses short on a server holding millions of them.)"""

    player: str
    seq: int
    action: str
    t_ms: int

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "seq": self.seq, "action": self.action, "t_ms": self.t_ms}


@dataclass(frozen=True, slots=True)
class Badge:
    """What a racer with an account shows: their rating in the race's game, rounded, and
    whether it is still provisional."""

    rating: int
    provisional: bool


@dataclass
class Racer:
    player: str
    name: str
    badge: Badge | None = None  # an account's: its rating in this game when it joined
    account: bool = False  # plays with an account (a daily attempt's has no badge)
    state: GameState | None = None
    last_seq: int = 0
    # the last answers, (seq, ok, reply), in slot seq % REPLY_CACHE
    replies: list[tuple[int, bool, dict[str, Any]] | None] = field(
        default_factory=lambda: [None] * REPLY_CACHE
    )
    actions: int = 0
    progress: int = 0
    progress_ms: int = 0  # ms from the start to the last change of progress
    progress_at: int = 0  # wall clock of that change
    outcome: Ending | None = None
    time_ms: int | None = None  # finishers: start signal to the winning action
    done_at: int | None = None  # wall clock of the finish or of dropping out
    log: ActionLog[LogEntry] = field(default_factory=lambda: ActionLog(LogEntry))
    receipt: bytes = b""  # the running hash of ``log`` (protocol/receipts.py); b"": none yet
    # the seq of their last action acknowledged before the store lost it (0: none lost);
    # an action sent again with a seq up to it is refused (``history_lost``)
    lost_to: int = 0

    def anew(self) -> Racer:
        """The same racer before their first action."""
        return Racer(self.player, self.name, self.badge, account=self.account)

    def standing(self) -> dict[str, Any]:
        """What anyone in or watching the race may know of this racer: ``account`` says
        they play with an account (a guest otherwise), ``rating`` its rating in this game
        when they joined (null for a guest)."""
        return {
            "player": self.player,
            "name": self.name,
            "bot": is_bot(self.player),
            "account": self.account or self.badge is not None,
            "rating": self.badge.rating if self.badge else None,
            "provisional": self.badge.provisional if self.badge else None,
            "progress": self.progress,
            "actions": self.actions,
            "outcome": self.outcome and self.outcome.value,
            "time_ms": self.time_ms,
        }


class ActResult(NamedTuple):
    """The answer to ``act``: ``ok`` and the reply fields (or an error's code and message),
    whether it was a resend answered from the cache, and what else follows from it."""

    ok: bool
    reply: dict[str, Any]
    repeated: bool = False
    entry: LogEntry | None = None  # the accepted action, for the action log
    racer_done: bool = False


class Race:
    """One race (or daily attempt) with its racers. Mutable; methods take the time."""

    def __init__(self, race_id: str, settings: RaceSettings, rules: Rules, host: str) -> None:
        self.id = race_id
        self.settings = settings
        self.rules = rules
        self.risk_rules = rules.without_undo() if settings.risk else rules
        self.host = host
        self.phase = Phase.OPEN
        self.racers: dict[str, Racer] = {}
        self.start_mono: int | None = None
        self.start_wall: int | None = None
        self.rematch: str | None = None  # the race a rematch was asked for in, once asked
        self.rematch_by: str | None = None  # who asked for it
        self._commitment = ""

    def move(self, event: str) -> None:
        """Take the transition ``event`` from the current phase (see ``TRANSITIONS``);
        ``BadTransition`` if the table has none."""
        following = TRANSITIONS.get((self.phase, event))
        if following is None:
            raise BadTransition(
                f"a race that is {self.phase.value} cannot {event.replace('_', ' ')}"
            )
        self.phase = following

    # ------------------------------------------------------------------ membership

    def join(
        self, player: str, name: str, badge: Badge | None = None, account: bool = False
    ) -> None:
        if player in self.racers:
            return
        if self.phase is not Phase.OPEN:
            raise RaceError("this race has already started", "race_started")
        if len(self.racers) >= self.settings.max_players:
            raise RaceError(f"this race is full ({self.settings.max_players} players)", "race_full")
        self.racers[player] = Racer(player, name, badge, account=account or badge is not None)

    def leave(self, player: str) -> None:
        self.racer(player)
        if self.phase is not Phase.OPEN:
            raise RaceError("the race has started: resign instead", "race_started")
        del self.racers[player]
        if self.host == player and self.racers:
            self.host = next(iter(self.racers))

    @property
    def full(self) -> bool:
        return len(self.racers) >= self.settings.max_players

    @property
    def joinable(self) -> bool:
        """Listed for anyone to join: an open public race (not a daily attempt, nor a race
        the server paired: it holds its paired racers only) with room."""
        return (
            self.phase is Phase.OPEN
            and self.settings.public
            and self.settings.mode == "race"
            and not self.settings.paired
            and not self.full
        )

    @property
    def starts_by_itself(self) -> bool:
        """Full and not started: the server sets the countdown (a race for one at once)."""
        return self.phase is Phase.OPEN and self.full

    @property
    def live(self) -> bool:
        """Counting down or running: listed for spectators."""
        return self.phase in (Phase.COUNTDOWN, Phase.RUNNING)

    def may_watch(self, player: str) -> None:
        """RaceError unless ``player`` may spectate: nobody watches a race they are in
        until it is over (it would show them nothing new, and a daily attempt's deal is
        judged by the daily rule, see ``server/desks/daily.py``)."""
        if player in self.racers and self.phase is not Phase.DONE:
            raise RaceError("you cannot watch a race you are in", "spectate_refused")

    # ------------------------------------------------------------------ start

    def schedule_start(self, by: str | None, now: Now) -> int:
        """Set the start ``countdown_ms`` from now; ``by`` must be the host (None: the
        server, when the race is full). Returns the start time on the monotonic clock."""
        if by is not None:
            self.racer(by)
            if by != self.host:
                raise RaceError("only the race's host can start it", "not_host")
        if self.phase is not Phase.OPEN:
            raise RaceError("this race has already started", "race_started")
        self.move("schedule_start")
        self.start_mono = now.mono_ms + self.settings.countdown_ms
        self.start_wall = now.wall_ms + self.settings.countdown_ms
        return self.start_mono

    def begin(self) -> None:
        """The start signal: every racer gets the same deal at this moment."""
        self.move("begin")
        start = self.rules.start(self.settings.deal)
        for racer in self.racers.values():
            racer.state = start
            racer.progress = start.position.progress()
            racer.progress_at = self.start_wall or 0

    # ------------------------------------------------------------------ play

    def act(
        self, player: str, seq: int, text: str, now: Now, want_legal: bool = False
    ) -> ActResult:
        """Validate and apply one action. A resent ``seq`` gets its first answer again and
        changes nothing; an error answer is final for that ``seq`` too."""
        racer = self.racer(player)
        if seq <= racer.last_seq:
            cached = racer.replies[seq % REPLY_CACHE]
            if cached is None or cached[0] != seq:
                raise RaceError(
                    f"action {seq} was answered long ago; number new actions after "
                    f"{racer.last_seq}",
                    "stale_seq",
                )
            return ActResult(cached[1], cached[2], repeated=True)
        if seq <= racer.lost_to:
            raise RaceError(
                f"action {seq} was accepted before the store lost it and is not played "
                f"again; your game goes on from action {racer.last_seq} (the history_lost "
                f"event shows it): number new actions after {racer.lost_to}",
                "history_lost",
            )
        if self.phase in (Phase.OPEN, Phase.COUNTDOWN) or now.mono_ms < (self.start_mono or 0):
            raise RaceError("the race has not started yet", "race_not_started")
        if racer.outcome is not None or self.phase is Phase.DONE:
            raise RaceError("you have already finished this race", "already_finished")
        state = racer.state
        assert state is not None and self.start_mono is not None
        racer.last_seq = seq
        rules = self.rules_of(player)
        try:
            action, text = parse_canonical(text)
            outcome = rules.apply(state, action)
        except SolraceError as error:
            refusal = error.as_dict()
            self._remember(racer, seq, False, refusal)
            return ActResult(False, refusal)
        t_ms = now.mono_ms - self.start_mono
        racer.state = outcome.state
        racer.actions += outcome.counted
        position = outcome.state.position
        # The same foundations (the very tuple, as after most moves) hold the same cards.
        same = position.foundations is state.position.foundations
        progress = racer.progress if same else position.progress()
        at = (self.start_wall or 0) + t_ms  # wall clock of the action, by the start signal
        if progress != racer.progress:
            racer.progress, racer.progress_ms, racer.progress_at = progress, t_ms, at
        entry = LogEntry(player, seq, text, t_ms)
        racer.log.append(entry)
        racer.receipt = next_receipt(
            racer.receipt or first_receipt(self.id, player), seq, text, t_ms
        )
        if progress == self.rules.card_total:  # won: every card home (progress is at hand)
            racer.outcome, racer.time_ms, racer.done_at = Ending.FINISHED, t_ms, at
        elif not rules.undo_allowed and rules.is_stuck(outcome.state):
            racer.outcome, racer.done_at = Ending.STUCK, at
        reply: dict[str, Any] = {
            "race": self.id,
            "seq": seq,
            "action": text,
            "events": [event.as_dict() for event in outcome.events],
            "progress": racer.progress,
            "actions": racer.actions,
            "outcome": racer.outcome and racer.outcome.value,
            "time_ms": racer.time_ms,
            "receipt": racer.receipt.hex(),
        }
        if type(action) is Undo:
            reply["view"] = view_json(rules.view(outcome.state))
        if want_legal:
            reply["legal"] = [str(a) for a in rules.legal_actions(outcome.state)]
        self._remember(racer, seq, True, reply)
        if racer.outcome is not None:
            self._finish_if_all_done()
        return ActResult(True, reply, entry=entry, racer_done=racer.outcome is not None)

    def rules_of(self, player: str) -> Rules:
        """The rules ``player`` plays by: the race's, without undo in risk mode."""
        return self.risk_rules if player in self.settings.risk else self.rules

    def _remember(self, racer: Racer, seq: int, ok: bool, reply: dict[str, Any]) -> None:
        racer.replies[seq % REPLY_CACHE] = (seq, ok, reply)

    def retire(self, player: str, outcome: Ending, now: Now) -> bool:
        """``player`` stops without finishing (resigned, dropped, timed out). True if that
        changed anything. Before the start, a dropped player just leaves."""
        racer = self.racer(player)
        if self.phase is Phase.OPEN:
            if outcome is Ending.RESIGNED:
                raise RaceError("the race has not started: leave it instead", "race_not_started")
            self.leave(player)
            return True
        if racer.outcome is not None or self.phase is Phase.DONE:
            if outcome is Ending.RESIGNED:
                raise RaceError("you have already finished this race", "already_finished")
            return False
        racer.outcome, racer.done_at = outcome, now.wall_ms
        self._finish_if_all_done()
        return True

    def time_out(self, now: Now) -> None:
        """The race reached its longest duration: everyone still playing did not finish."""
        for racer in self.racers.values():
            if racer.outcome is None:
                racer.outcome, racer.done_at = Ending.TIMED_OUT, now.wall_ms
        self._finish_if_all_done()

    @property
    def history_lost(self) -> bool:
        """The store lost actions of this race that had been acknowledged: it goes on from
        what the store holds, and it is never rated nor put on a board."""
        return any(racer.lost_to for racer in self.racers.values())

    def _finish_if_all_done(self) -> None:
        if self.live and all(r.outcome for r in self.racers.values()):
            self.move("everyone_done")

    # ------------------------------------------------------------------ taking back

    def rewind(self, player: str, count: int) -> None:
        """Take back ``player``'s actions after their first ``count`` (they could not be
        stored): the racer is replayed from the start to there."""
        old = self.racer(player)
        if len(old.log) <= count or self.start_mono is None or self.start_wall is None:
            return
        entries = old.log[:count]
        self.racers[player] = fresh = old.anew()
        fresh.state = self.rules.start(self.settings.deal)
        fresh.progress = fresh.state.position.progress()
        fresh.progress_at = self.start_wall
        if self.phase is Phase.DONE:
            self.move("taken_back")  # the finish taken back was never told
        for entry in entries:
            at = Now(self.start_mono + entry.t_ms, self.start_wall + entry.t_ms)
            self.act(player, entry.seq, entry.action, at)
        if old.outcome is not None and old.outcome.value in RETIREMENTS:
            fresh.outcome, fresh.done_at = old.outcome, old.done_at
        fresh.lost_to = old.lost_to  # after the replay: the lost seqs stay spent
        self._finish_if_all_done()

    # ------------------------------------------------------------------ what people see

    def deal_shown(self, today: str | None = None, arena_over: bool = False) -> bool:
        """The deal number may be shown now (see ``deal_shown``)."""
        return deal_shown(self.settings, self.phase, today, arena_over)

    @property
    def commitment(self) -> str:
        """The commitment to this race's deal (``protocol/fairness.py``), shown from the
        start; the deal and nonce it hides are revealed with them."""
        if not self._commitment:
            settings = self.settings
            self._commitment = commitment(
                settings.game,
                settings.scope(self.id),
                settings.options,
                settings.deal,
                settings.nonce,
            )
        return self._commitment

    def standings(self) -> list[dict[str, Any]]:
        """Every racer's standing, in joining order."""
        return [r.standing() for r in self.racers.values()]

    def racer(self, player: str) -> Racer:
        """The racer ``player``; RaceError if they are not in this race."""
        racer = self.racers.get(player)
        if racer is None:
            raise RaceError("you are not a racer in this race", "not_in_race")
        return racer


def deal_shown(
    settings: RaceSettings, phase: Phase, today: str | None = None, arena_over: bool = False
) -> bool:
    """The one rule for showing a deal number, which reveals every hidden card (anyone
    can deal it): a daily deal once its day is over (``today``, the UTC day now, is
    later: every message about a daily run goes through here, boards included), or from
    the start of an attempt begun once its day was over (``deal_chosen``: a guest's
    practice at yesterday's deal); an arena heat's once its arena is over (``arena_over``:
    other heats of its wave race the same deal until then); a race's when the creator
    chose it, or once the race is done."""
    if settings.arena is not None:
        return arena_over
    if settings.mode == "daily":
        return settings.deal_chosen or daily_deal_shown(settings.day, today)
    return settings.deal_chosen or phase is Phase.DONE


def daily_deal_shown(day: str | None, today: str | None) -> bool:
    """A daily deal of ``day`` may be shown on ``today``: its day is over."""
    return day is not None and today is not None and day < today


def view_json(view: View) -> dict[str, Any]:
    """A player's view on the wire: face-up cards, counts of hidden ones, undo available."""
    return {**view.position.view_json(), "can_undo": view.can_undo}
