"""The account requests: ``register`` (the guest becomes an account: the same player, so
their races, runs and history stay theirs), ``sign_in`` and ``sign_out``.

The desk checks credentials with ``Credentials`` (``server/accounts.py``: hashing and the
limits that keep guessing slow), stores an account's resume token before it is given out
and forgets the tokens signed out. What belongs to the connection stays with the
gateway: ending the guest session at a sign-in, attaching the account's session to the
connection and catching it up (done by ``server/session_desk.py``), and closing the
connection after a sign-out.
"""

from __future__ import annotations

from typing import Any

from protocol.daily import day_of, day_start_ms
from protocol.messages import Register, SignIn, SignOut
from protocol.players import is_bot
from protocol.race import Now, Phase
from server.accounts import AccountError, Credentials
from server.config import Settings
from server.director import RaceDirector
from server.effects import Effects
from server.jobs import SaveIdentity
from server.sessions import Session, Sessions, new_token, token_hash
from server.store import Account, Store
from server.writer import Writer


class AccountDesk:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        sessions: Sessions,
        director: RaceDirector,
        writer: Writer,
    ) -> None:
        self.store = store
        self.sessions = sessions
        self.director = director
        self.writer = writer
        self.credentials = Credentials(store, settings)
        self.durable_identities = settings.keep_identities_days * 86_400
        self.new_accounts_ranked_today = settings.new_accounts_ranked_today

    async def register(
        self, session: Session, request: Register, allowed: bool, address: str
    ) -> tuple[dict[str, Any], Effects]:
        """This guest becomes an account: same player, so their races and runs stay
        theirs (a guest's daily runs are yesterday's practice: ``claimed`` is always empty,
        kept for older clients)."""
        self._no_account_yet(session)
        account = await self.credentials.register(
            allowed, address, session.player, request.username, request.password
        )
        guest_token = session.token_hash
        token = await self._account_token(account.player, account.username)
        await self.store.accounts.revoke_tokens(session.player, [guest_token])
        session.account = session.name = account.username
        self.sessions.retoken(session, token)
        return {**signed_in_answer(session, token), "claimed": []}, []

    async def sign_in(
        self, session: Session, request: SignIn, allowed: bool, address: str
    ) -> tuple[Account, str]:
        """The account ``request`` names and a new resume token of it, for the guest
        ``session``, who must finish their races first and waits in no pool after; the
        gateway then ends the guest session and continues as the account."""
        self._no_account_yet(session)
        if any(
            room.race.phase is not Phase.DONE for room in self.director.races.racing(session.player)
        ):
            raise AccountError(
                "finish or leave your races as a guest before you sign in", "in_race"
            )
        account = await self.credentials.sign_in(
            allowed, address, request.username, request.password
        )
        if is_bot(session.player) and not is_bot(account.player):
            raise AccountError(
                "a bot cannot sign in to a person's account: it would no longer show as a bot",
                "bot_mismatch",
            )
        token = await self._account_token(account.player, account.username)
        await self.store.pairing.leave_pool(session.player)  # the guest waits no more
        return account, token

    async def registered_today(self, session: Session, moment: Now) -> bool:
        """Whether ``session``'s account was made on today's (UTC) day: its daily attempts
        are practice until tomorrow (a second account made for a day's deal is not ranked)."""
        if session.account is None or self.new_accounts_ranked_today:
            return False
        account = await self.store.accounts.account(session.account)
        today_began = day_start_ms(day_of(moment.wall_ms))
        return account is not None and account.created_ms >= today_began

    async def sign_out(self, session: Session, request: SignOut) -> dict[str, Any]:
        """Forget this session's token (or all the account's); the gateway then ends the
        session and closes the connection."""
        await self.store.accounts.revoke_tokens(session.player, [session.token_hash])
        if request.everywhere:
            await self.store.accounts.revoke_tokens(session.player, None)
        return {"signed_out": True, "everywhere": request.everywhere}

    def _no_account_yet(self, session: Session) -> None:
        if session.account is not None:
            raise AccountError(
                f"you are signed in as {session.account}: sign out first", "already_signed_in"
            )

    async def _account_token(self, player: str, username: str) -> str:
        """A new resume token of the account, stored before it is given out."""
        token = new_token()
        identity = SaveIdentity(
            token_hash(token), player, username, self.durable_identities, username
        )
        await self.writer.stored(identity)
        return token

    def close(self) -> None:
        self.credentials.close()


def signed_in_answer(session: Session, token: str) -> dict[str, Any]:
    """The answer to a register or sign-in: who the connection speaks for now."""
    return {
        "player": session.player,
        "name": session.name,
        "account": session.account,
        "token": token,
        "last_event": session.last_event,
    }
