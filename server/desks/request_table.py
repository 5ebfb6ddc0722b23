"""Which desk answers each request (all but ``hello`` and ``act``, which the gateway answers
itself): one table. A request a desk answers as it is asked is one line here naming the
desk's method; a request that needs more (a signed answer, the player's standing, a
session changed) is a method of ``Handlers`` (server/desks/handlers.py)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple

from protocol.messages import (
    Admin,
    ArenaResult,
    ArenaStandings,
    BestBoard,
    Challenge,
    ChangeArena,
    CreateRace,
    DailyBoard,
    DailyStart,
    DeclineChallenge,
    JoinArena,
    JoinRace,
    LeaveRace,
    ListArenas,
    ListLive,
    ListRaces,
    MyRaces,
    Profile,
    QuickCancel,
    QuickRace,
    RaceLog,
    Register,
    Rematch,
    Request,
    Resign,
    SignIn,
    SignOut,
    Snapshot,
    Spectate,
    StartRace,
    Unspectate,
    UnwatchArena,
    WatchArena,
)
from protocol.race import Now
from server.desks.handlers import Handler, Handlers
from server.handover.effects import Effects
from server.state.askers import Asker
from server.state.sessions import Session

Answered = tuple[dict[str, Any], Effects]  # the answer's data, and what else is to be done


class Asking(NamedTuple):
    """One request being answered: who asks (as their connection told), by which session,
    and when."""

    asker: Asker
    session: Session
    request: Any  # the request type's own (the table's key)
    moment: Now

    @property
    def player(self) -> str:
        return self.session.player

    @property
    def name(self) -> str:
        return self.session.name

    @property
    def account(self) -> bool:
        """The player has an account (is no guest)."""
        return self.session.account is not None

    @property
    def race(self) -> str:
        race: str = self.request.race
        return race


Answerer = Callable[[Asking], Awaitable[Answered]]


async def only(answer: dict[str, Any] | Awaitable[dict[str, Any]]) -> Answered:
    """A desk's answer that asks for nothing else to be done."""
    return (answer if isinstance(answer, dict) else await answer), []


def whole(handler: Handler) -> Answerer:
    """A handler of server/desks/handlers.py, which takes the request as it is asked."""
    return lambda asking: handler(*asking)


def request_table(handlers: Handlers) -> dict[type[Request], Answerer]:
    race_desk, challenges, daily = handlers.race_desk, handlers.challenges, handlers.daily
    spectating, pairing, arenas = handlers.spectating, handlers.pairing, handlers.arenas
    return {
        CreateRace: lambda a: race_desk.create_race(
            a.player, a.name, a.request, a.moment, a.account
        ),
        ListRaces: lambda a: only(race_desk.list_races(a.moment)),
        MyRaces: lambda a: only(race_desk.my_races(a.player)),
        JoinRace: lambda a: race_desk.join_race(a.player, a.name, a.race, a.moment, a.account),
        StartRace: lambda a: race_desk.start_race(a.player, a.race, a.moment),
        LeaveRace: lambda a: race_desk.leave_race(a.player, a.race, a.moment),
        Resign: lambda a: race_desk.resign(a.player, a.race, a.moment),
        Rematch: lambda a: race_desk.rematch(a.player, a.name, a.race, a.moment, a.account),
        Challenge: lambda a: challenges.challenge(a.player, a.name, a.request, a.moment, a.account),
        DeclineChallenge: lambda a: challenges.decline_challenge(
            a.player, a.name, a.race, a.moment
        ),
        BestBoard: lambda a: only(daily.best_board(a.player, a.request)),
        QuickCancel: lambda a: only(pairing.cancel(a.player)),
        ListLive: lambda a: only(spectating.list_live(a.moment)),
        Unspectate: lambda a: only(spectating.unspectate(a.session, a.request)),
        ListArenas: lambda a: only(arenas.list_arenas(a.request.game, a.moment)),
        JoinArena: lambda a: only(
            arenas.join(a.player, a.session.account, a.request.arena, a.moment, a.request.risk)
        ),
        ChangeArena: lambda a: only(
            arenas.change(a.player, a.request.arena, a.request.change, a.moment)
        ),
        ArenaStandings: lambda a: only(
            arenas.standings_page(
                a.request.arena, a.player, a.request.top, a.request.around, a.moment
            )
        ),
        WatchArena: lambda a: only(arenas.watch(a.player, a.request.arena, a.moment)),
        UnwatchArena: lambda a: only(arenas.unwatch(a.player, a.request.arena)),
        # more than one desk's method, or more than asking it: server/desks/handlers.py
        Register: whole(handlers.register),
        SignIn: whole(handlers.sign_in),
        SignOut: whole(handlers.sign_out),
        Snapshot: whole(handlers.snapshot),
        RaceLog: whole(handlers.race_log),
        ArenaResult: whole(handlers.arena_result),
        DailyStart: whole(handlers.daily_start),
        DailyBoard: whole(handlers.daily_board),
        QuickRace: whole(handlers.quick_race),
        Profile: whole(handlers.profile),
        Admin: whole(handlers.admin),
        Spectate: whole(handlers.spectate),
    }
