"""The requests that ask more of the desks than one method each: a handler per request type,
each ``(asker, session, request, moment) -> (answer data, effects)``; server/desks/request_table.py
says which request each answers (and which desk method answers the others). The gateway
calls them and carries the effects out; the desks are built by the server
(``server/app.py``) and handed in."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from protocol.daily import day_of
from protocol.messages import (
    Admin,
    ArenaResult,
    DailyBoard,
    DailyStart,
    Profile,
    ProtocolError,
    QuickRace,
    RaceLog,
    Register,
    SignIn,
    SignOut,
    Snapshot,
    Spectate,
)
from protocol.player_events import WatchEnded
from protocol.race import Now
from server.config import Settings
from server.desks.account_desk import AccountDesk, signed_in_answer
from server.desks.admin import AdminDesk, AdminError
from server.desks.arena_desk import ArenaDesk
from server.desks.challenges import ChallengeDesk
from server.desks.daily import DailyDesk
from server.desks.pairing import PairingDesk
from server.desks.profiles import ProfileDesk
from server.desks.session_desk import SessionDesk
from server.desks.signing import Seal
from server.desks.spectating import SpectatingDesk
from server.handover.effects import AfterAnswer, Attach, Effects, HangUp, Push
from server.races.race_desk import RaceDesk
from server.races.standing import Seen, daily_gate, note_seen, told_standing
from server.state.askers import Asker
from server.state.sessions import Session, Sessions, token_hash
from server.store import Identity, Store, StoreError

log = logging.getLogger("solrace.gateway")

CLOSE_SIGNED_OUT = 4003  # the player signed out

Handler = Callable[[Asker, Session, Any, Now], Awaitable[tuple[dict[str, Any], Effects]]]


class Handlers:
    def __init__(
        self,
        settings: Settings,
        store: Store,
        sessions: Sessions,
        race_desk: RaceDesk,
        daily: DailyDesk,
        spectating: SpectatingDesk,
        session_desk: SessionDesk,
        accounts: AccountDesk,
        pairing: PairingDesk,
        profiles: ProfileDesk,
        admin_desk: AdminDesk,
        seal: Seal,
        arenas: ArenaDesk,
    ) -> None:
        self.store = store
        self.settings = settings
        self.sessions = sessions
        self.race_desk = race_desk
        self.challenges = ChallengeDesk(race_desk)
        self.daily = daily
        self.spectating = spectating
        self.session_desk = session_desk
        self.accounts = accounts
        self.pairing = pairing
        self.profiles = profiles
        self.admin_desk = admin_desk
        self.seal = seal
        self.arenas = arenas

    async def seen(
        self, asker: Asker, player: str, account: str | None, token: str, moment: Now
    ) -> None:
        """An account's address is noted for the day (two accounts seen on one address
        are never rated against each other that day: ``protocol/rated.py``), and with its
        device, if its client gave one, and the asker's token lineage (the session's
        tokens by hash, ``token`` now, the one presented at hello), for a week
        (``server/races/standing.py``). Best effort: the store being down loses a note, never
        the request's answer."""
        asker.lineage.add(token)
        if account is None:
            return
        address = asker.address
        seen = Seen(address, asker.device, tuple(sorted(asker.lineage)))
        try:  # after the answer's work is done: a failure here must not answer again
            await self.store.accounts.note_address(day_of(moment.wall_ms), player, address)
            await note_seen(self.store, player, seen, moment.wall_ms)
        except StoreError:
            log.warning("could not note an account's address", extra={"player": player})

    async def seen_at_hello(self, asker: Asker, session: Session, moment: Now) -> None:
        """``seen`` for the session a hello opened for ``asker``."""
        await self.seen(asker, session.player, session.account, session.token_hash, moment)

    # ================================================================== accounts

    async def register(
        self, asker: Asker, session: Session, request: Register, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        answer, effects = await self.accounts.register(
            session, request, asker.attempts_allowed.popleft(), asker.address
        )
        player, account = session.player, request.username
        await self.seen(asker, player, account, token_hash(answer["token"]), moment)
        standing = await told_standing(self.store, self.settings, player, account, moment.wall_ms)
        return {**answer, "standing": standing}, effects

    async def sign_in(
        self, asker: Asker, session: Session, request: SignIn, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """This connection continues as the account (resuming its session, wherever it
        was); the guest session ends, so a guest who is racing must finish first."""
        account, token, stored = await self.accounts.sign_in(
            session, request, asker.attempts_allowed.popleft(), asker.address
        )
        known = Identity(account.player, account.username, account.username)
        signed_in, resumed, restored = await self.session_desk.session_for(
            token, account.username, known=known
        )
        self._end(session)  # only once the account's session is there: a failure keeps it
        player = signed_in.player
        await self.seen(asker, player, signed_in.account, signed_in.token_hash, moment)
        caught_up = AfterAnswer(
            lambda: self.session_desk.catch_up(signed_in, resumed, restored, None)
        )
        standing = await self.standing(signed_in, moment)
        answer = signed_in_answer(player, account.username, token, signed_in.last_event)
        return {**answer, "standing": standing}, [Attach(signed_in), *stored, caught_up]

    async def sign_out(
        self, asker: Asker, session: Session, request: SignOut, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """Forget this token (or all the account's), then end the session and close the
        connection."""
        answer = await self.accounts.sign_out(session, request)

        def end() -> Effects:
            self._end(session)
            self.sessions.expire(session.player)
            return []

        return answer, [AfterAnswer(end), HangUp(CLOSE_SIGNED_OUT, "signed out")]

    async def standing(self, session: Session, moment: Now) -> dict[str, Any] | None:
        """May this session's player play ranked (``protocol/standing.py``; None: the
        store could not tell)."""
        return await told_standing(
            self.store, self.settings, session.player, session.account, moment.wall_ms
        )

    def _end(self, session: Session) -> None:
        """Forget ``session`` here and stop its watching (its player is not coming back
        on it)."""
        self.spectating.left(session)
        self.sessions.remove(session)

    # ================================================================== requests

    async def snapshot(
        self, asker: Asker, session: Session, request: Snapshot, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        room = await self.race_desk.races.find(request.race, moment)
        return self.race_desk.snapshot(session.player, room, room.id in session.watching), []

    async def race_log(
        self, asker: Asker, session: Session, request: RaceLog, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        log = await self.race_desk.race_log(session.player, request.race, moment)
        return {"log": self.seal.sign(log)}, []

    async def arena_result(
        self, asker: Asker, session: Session, request: ArenaResult, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return self.seal.sign(await self.arenas.final_result(request.arena)), []

    async def daily_start(
        self, asker: Asker, session: Session, request: DailyStart, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        gate, standing = await daily_gate(
            self.store,
            self.settings,
            session.player,
            session.account,
            request.game,
            day_of(moment.wall_ms),
            moment.wall_ms,
            await self.accounts.registered_today(session, moment),
        )
        data, effects = await self.daily.daily_start(
            session.player, session.name, session.account is not None, request, moment, gate
        )
        return {**data, "standing": standing}, effects

    async def daily_board(
        self, asker: Asker, session: Session, request: DailyBoard, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        return self.seal.sign(await self.daily.daily_board(session.player, request, moment)), []

    async def quick_race(
        self, asker: Asker, session: Session, request: QuickRace, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        account = session.account is not None
        standing = await self.standing(session, moment)
        answer = await self.pairing.join(
            session.player, session.name, account, request.game, moment, request.bots
        )
        return {**answer, "standing": standing}, []

    async def profile(
        self, asker: Asker, session: Session, request: Profile, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        if (request.player is None) == (request.username is None):
            raise ProtocolError("profile needs a 'player' or a 'username' (one)", "missing_field")
        return await self.profiles.profile(request.player, request.username, moment), []

    async def admin(
        self, asker: Asker, session: Session, request: Admin, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        """A moderator's request (``server/desks/admin.py``); its tries share the connection's
        budget of sign-in attempts, so the admin token cannot be guessed quickly."""
        if not asker.attempts_allowed.popleft():
            raise AdminError("too many attempts: wait a minute", "rate_limited")
        return await self.admin_desk.answer(request, moment, asker.address), []

    async def spectate(
        self, asker: Asker, session: Session, request: Spectate, moment: Now
    ) -> tuple[dict[str, Any], Effects]:
        answer = await self.spectating.spectate(session, request, moment)
        if answer["race"]["phase"] == "done":  # no feed: said once the answer is out
            ended = WatchEnded(request.race, "over")
            return answer, [AfterAnswer(lambda: [Push(session.player, ended)])]
        return answer, []
