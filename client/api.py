"""The Python client library: one object per connection to a solrace server.

    async with await Client.connect("ws://127.0.0.1:8765/ws", "Ann") as me:
        race = await me.create_race("sanibel", max_players=2)
        ...
        async for event in me.events():
            ...

Requests are awaited and return the result's fields (a dict) or raise ``ServerError``
with the server's code and sentence. Events (numbered per player) and spectator feed items
arrive on ``events()``. ``resume()`` reconnects with the resume token and the number of the
last event seen, so nothing is missed. A ``history_lost`` event (the server's store lost
actions it had acknowledged) carries the racer view to play on from; ``act`` keeps
numbering above every action sent, so a lost one is never sent again as new.
"""

from __future__ import annotations

from typing import Any, Self

from client.link import Link
from client.link import ServerError as ServerError
from protocol.messages import (
    Act,
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
from protocol.wire import MSGPACK


class Client(Link):
    """The protocol's requests on a ``Link``, each built from its typed class (checked as
    the server checks it) and answered with the result's fields."""

    @classmethod
    async def signed_in(
        cls, url: str, username: str, password: str, *, encoding: str = MSGPACK
    ) -> Self:
        """Connect and sign in to the account ``username``."""
        client = await cls.connect(url, username, encoding=encoding)
        await client.sign_in(username, password)
        return client

    async def register(self, username: str, password: str) -> dict[str, Any]:
        """Make this player the account ``username``; its token replaces ours."""
        return self._adopt(await self.ask(Register(0, username=username, password=password)))

    async def sign_in(self, username: str, password: str) -> dict[str, Any]:
        """Continue as the account ``username`` (this guest's session ends)."""
        return self._adopt(await self.ask(SignIn(0, username=username, password=password)))

    async def sign_out(self, everywhere: bool = False) -> dict[str, Any]:
        """Forget our token (or all the account's) and end the session; the server
        closes the connection."""
        return await self.ask(SignOut(0, everywhere=everywhere))

    def _adopt(self, signed_in: dict[str, Any]) -> dict[str, Any]:
        self.player, self.name, self.token = (
            signed_in["player"],
            signed_in["name"],
            signed_in["token"],
        )
        self.account = signed_in["account"]
        self.last_event = signed_in["last_event"]  # the session's numbering from here
        return signed_in

    # ------------------------------------------------------------------ requests

    async def create_race(
        self,
        game: str,
        *,
        options: dict[str, Any] | None = None,
        deal: int | None = None,
        max_players: int = 2,
        public: bool = True,
        countdown_ms: int | None = None,
        spectator_delay_ms: int = 0,
    ) -> dict[str, Any]:
        data = await self.ask(
            CreateRace(
                0,
                game=game,
                options=options,
                deal=None if deal is None else str(deal),
                max_players=max_players,
                public=public,
                countdown_ms=countdown_ms,
                spectator_delay_ms=spectator_delay_ms,
            )
        )
        race: dict[str, Any] = data["race"]
        return race

    async def list_races(self) -> list[dict[str, Any]]:
        races: list[dict[str, Any]] = (await self.ask(ListRaces(0)))["races"]
        return races

    async def my_races(self) -> list[dict[str, Any]]:
        """The races I am in that are not over (racer views)."""
        races: list[dict[str, Any]] = (await self.ask(MyRaces(0)))["races"]
        return races

    async def join_race(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.ask(JoinRace(0, race=race)))["race"]
        return info

    async def start_race(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.ask(StartRace(0, race=race)))["race"]
        return info

    async def leave_race(self, race: str) -> None:
        await self.ask(LeaveRace(0, race=race))

    async def act(
        self, race: str, action: str, *, seq: int | None = None, legal: bool = False
    ) -> dict[str, Any]:
        """Play ``action``; ``seq`` defaults to the next number for this race (give an
        earlier one to resend)."""
        if seq is None:
            seq = self.seqs.get(race, 0) + 1
        self.seqs[race] = max(self.seqs.get(race, 0), seq)
        return await self.ask(Act(0, race=race, seq=seq, action=action, legal=legal))

    async def resign(self, race: str) -> dict[str, Any]:
        return await self.ask(Resign(0, race=race))

    async def rematch(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.ask(Rematch(0, race=race)))["race"]
        return info

    async def challenge(self, player: str, game: str) -> dict[str, Any]:
        """A private race for two, its other seat offered to ``player`` (a ``challenged``
        event tells them)."""
        info: dict[str, Any] = (await self.ask(Challenge(0, player=player, game=game)))["race"]
        return info

    async def decline_challenge(self, race: str) -> dict[str, Any]:
        """Decline the challenge to ``race``: its host is told."""
        return await self.ask(DeclineChallenge(0, race=race))

    async def snapshot(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.ask(Snapshot(0, race=race)))["race"]
        return info

    async def profile(
        self, player: str | None = None, *, username: str | None = None
    ) -> dict[str, Any]:
        return await self.ask(Profile(0, player=player, username=username))

    async def quick_race(self, game: str, bots: bool = False) -> dict[str, Any]:
        """Wait to be paired (a ``paired`` event names the race); with ``bots``, a bot may
        be the opponent."""
        return await self.ask(QuickRace(0, game=game, bots=bots))

    async def quick_cancel(self) -> dict[str, Any]:
        return await self.ask(QuickCancel(0))

    async def list_arenas(self, game: str | None = None) -> list[dict[str, Any]]:
        """The arenas running and to come, soonest first, each with its ``status``."""
        arenas: list[dict[str, Any]] = (await self.ask(ListArenas(0, game=game)))["arenas"]
        return arenas

    async def join_arena(self, arena: str, risk: bool = False) -> dict[str, Any]:
        """Enter ``arena`` (in risk mode, no undo, if ``risk``): while it runs, a ``paired``
        event names each heat's race, and ``arena_standings`` events tell its standings as
        they change."""
        return await self.ask(JoinArena(0, arena=arena, risk=risk))

    async def change_arena(self, arena: str, change: str) -> dict[str, Any]:
        """``pause``, ``resume`` or ``withdraw``."""
        return await self.ask(ChangeArena(0, arena=arena, change=change))

    async def arena_standings(
        self, arena: str, top: int = 10, around: str | None = None
    ) -> dict[str, Any]:
        """A page of the standings: the ``top`` lines, and those around ``around`` (me)."""
        return await self.ask(ArenaStandings(0, arena=arena, top=top, around=around))

    async def arena_result(self, arena: str) -> dict[str, Any]:
        """An ended arena's signed final result (``solrace verify arena`` checks it)."""
        return await self.ask(ArenaResult(0, arena=arena))

    async def watch_arena(self, arena: str) -> dict[str, Any]:
        return await self.ask(WatchArena(0, arena=arena))

    async def unwatch_arena(self, arena: str) -> dict[str, Any]:
        return await self.ask(UnwatchArena(0, arena=arena))

    async def race_log(self, race: str) -> dict[str, Any]:
        """A finished race's public log (``solrace verify`` checks it)."""
        log: dict[str, Any] = (await self.ask(RaceLog(0, race=race)))["log"]
        return log

    async def daily_start(self, game: str, *, ghost: bool = False) -> dict[str, Any]:
        return await self.ask(DailyStart(0, game=game, ghost=ghost))

    async def daily_board(
        self, game: str, *, day: str | None = None, top: int = 10, around: int = 3
    ) -> dict[str, Any]:
        return await self.ask(DailyBoard(0, game=game, day=day, top=top, around=around))

    async def best_board(self, game: str, *, top: int = 10, around: int = 3) -> dict[str, Any]:
        return await self.ask(BestBoard(0, game=game, top=top, around=around))

    async def list_live(self) -> list[dict[str, Any]]:
        races: list[dict[str, Any]] = (await self.ask(ListLive(0)))["races"]
        return races

    async def spectate(self, race: str) -> dict[str, Any]:
        info: dict[str, Any] = (await self.ask(Spectate(0, race=race)))["race"]
        return info

    async def unspectate(self, race: str) -> None:
        await self.ask(Unspectate(0, race=race))
