"""The account requests: ``register`` (the guest becomes an account: the same player, so
their races, runs and history stay theirs), ``sign_in`` and ``sign_out``.

The desk checks credentials with ``Credentials`` (``server/desks/accounts.py``: hashing and the
limits that keep guessing slow) and forgets the tokens signed out. An account's new resume
token is returned as effects, never awaited here: a ``Write`` of it, which the answer that
gives it out waits for; at a register, once it is written (``TokenStored``), the guest's
token is revoked and the session named by the new one (``server/desks/deciding.py``). The desk
holds no writer and no session registry. What belongs to the connection stays with the
edge: ending the guest session at a sign-in, attaching the account's session to the
connection (``Attach``) and catching it up (``server/desks/session_desk.py``), and closing the
connection after a sign-out.
"""

from __future__ import annotations

from typing import Any

from protocol.daily import day_of, day_start_ms
from protocol.messages import Register, SignIn, SignOut
from protocol.players import is_bot
from protocol.race import Now, Phase
from server.config import Settings
from server.desks.accounts import AccountError, Credentials
from server.handover.effects import Effects, Write
from server.handover.inputs import TokenStored
from server.handover.jobs import SaveIdentity
from server.races.race_desk import RaceDesk
from server.state.sessions import Session, new_token, token_hash
from server.store import Account, Store


class AccountDesk:
    def __init__(
        self,
        store: Store,
        settings: Settings,
        race_desk: RaceDesk,
    ) -> None:
        self.store = store
        self.race_desk = race_desk
        self.credentials = Credentials(store, settings)
        self.durable_identities = settings.keep_identities_days * 86_400
        self.new_accounts_ranked_today = settings.new_accounts_ranked_today

    async def register(
        self, session: Session, request: Register, allowed: bool, address: str
    ) -> tuple[dict[str, Any], Effects]:
        """This guest becomes an account: same player, so their races and runs stay
        theirs (a guest's daily runs are yesterday's practice: ``claimed`` is always empty,
        kept for older clients). The account's token is written before the answer gives
        it out; then the guest's is revoked and the session is the account's."""
        self._no_account_yet(session)
        account = await self.credentials.register(
            allowed, address, session.player, request.username, request.password
        )
        token, identity = self._account_token(account.player, account.username)
        stored = TokenStored(session.player, token, account.username, (session.token_hash,))
        answer = signed_in_answer(session.player, account.username, token, session.last_event)
        return {**answer, "claimed": []}, [Write(identity, stored)]

    async def sign_in(
        self, session: Session, request: SignIn, allowed: bool, address: str
    ) -> tuple[Account, str, Effects]:
        """The account ``request`` names, a new resume token of it and its ``Write`` (the
        answer that gives it out waits for it), for the guest ``session``, who must finish
        their races first and waits in no pool after; the gateway then ends the guest
        session and continues as the account."""
        self._no_account_yet(session)
        if any(
            room.race.phase is not Phase.DONE
            for room in self.race_desk.races.racing(session.player)
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
        token, identity = self._account_token(account.player, account.username)
        await self.store.pairing.leave_pool(session.player)  # the guest waits no more
        return account, token, [Write(identity)]

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

    def _account_token(self, player: str, username: str) -> tuple[str, SaveIdentity]:
        """A new resume token of the account, and what keeps it (to be stored before it
        is given out)."""
        token = new_token()
        identity = SaveIdentity(
            token_hash(token), player, username, self.durable_identities, username
        )
        return token, identity

    def close(self) -> None:
        self.credentials.close()


def signed_in_answer(player: str, account: str, token: str, last_event: int) -> dict[str, Any]:
    """The answer to a register or sign-in: who the connection speaks for now (an account's
    name is its username)."""
    return {
        "player": player,
        "name": account,
        "account": account,
        "token": token,
        "last_event": last_event,
    }
