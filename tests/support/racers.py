"""A racing client for tests across restarts: it remembers every action the server
acknowledged, and resends an action with the same number after reconnecting."""

from __future__ import annotations

import asyncio

from client.api import Client, ServerError


class Racer:
    """A client that remembers every action the server acknowledged, in order."""

    def __init__(self, client: Client, race: str) -> None:
        self.client, self.race = client, race
        self.acked: list[str] = []

    async def play(self, actions: list[str], pace_s: float = 0.0) -> dict[str, object]:
        reply: dict[str, object] = {}
        for action in actions:
            if pace_s:
                await asyncio.sleep(pace_s)
            reply = await self.act(action)
        return reply

    async def act(self, action: str) -> dict[str, object]:
        """Play ``action``; across a restart, resend it with the same number."""
        seq = self.client.seqs.get(self.race, 0) + 1
        while True:
            try:
                reply = await self.client.act(self.race, action, seq=seq)
            except ConnectionError:
                await self.client.reconnect()
                continue
            except ServerError as error:
                if error.code != "store_unavailable":
                    raise
                await asyncio.sleep(0.1)
                continue
            self.acked.append(action)
            return reply
