"""Challenges: a player challenges another to a private race for two (``challenge``), and
the challenged player may decline it (``decline_challenge``); docs/protocol.md."""

from __future__ import annotations

from protocol.messages import Challenge, CreateRace
from protocol.player_events import Challenged, ChallengeDeclined
from protocol.race import Now, Phase, RaceError
from server.handover.effects import PushAnywhere
from server.races.race_desk import Answer, RaceDesk


class ChallengeDesk:
    def __init__(self, race_desk: RaceDesk) -> None:
        self.race_desk = race_desk

    async def challenge(
        self, player: str, name: str, request: Challenge, moment: Now, account: bool = False
    ) -> Answer:
        """A private race for two of ``request.game`` hosted by ``player``, and its other
        seat offered to ``request.player`` (``Challenged``) on whichever node holds them.
        RaceError ``challenge_refused`` for oneself, ``player_offline`` for a player not
        connected now (nobody would see it)."""
        if request.player == player:
            raise RaceError("you cannot challenge yourself", "challenge_refused")
        if await self.race_desk.store.bus.player_node(request.player) is None:
            raise RaceError(
                "that player is not connected now: a challenge goes to someone who can answer",
                "player_offline",
            )
        create = CreateRace(request.id, request.game, request.options, max_players=2, public=False)
        answer, effects = await self.race_desk.create_race(
            player, name, create, moment, account, invited=request.player
        )
        told = Challenged(answer["race"]["race"], request.game, player, name, account)
        return answer, [*effects, PushAnywhere(request.player, told)]

    async def decline_challenge(self, player: str, name: str, race_id: str, moment: Now) -> Answer:
        """``player`` declines the challenge to ``race_id``: its host is told
        (``ChallengeDeclined``) wherever they are. RaceError ``no_such_challenge`` unless
        ``player`` was challenged to that race and it still waits for them."""
        race = (await self.race_desk.races.find(race_id, moment)).race
        if race.settings.invited != player or race.phase is not Phase.OPEN or player in race.racers:
            raise RaceError("no challenge to you waits in that race", "no_such_challenge")
        told = ChallengeDeclined(race.id, player, name)
        return {"race": race.id, "declined": True}, [PushAnywhere(p, told) for p in race.racers]
