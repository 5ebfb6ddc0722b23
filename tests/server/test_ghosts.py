"""Racing the day's best as a ghost: after their ranked attempt, a player practises against
the day's best run, shown only as its progress over time (never its moves or cards)."""

from __future__ import annotations

import asyncio
import time

import pytest
from harness import member, player, running_server, winning_actions

from client.api import ServerError
from protocol.daily import day_of
from protocol.games import rules_for
from server.store import Store

GAME, DEAL = "mount_sunflower", 18


async def test_after_the_ranked_attempt_the_day_s_best_run_comes_as_a_ghost(store: Store) -> None:
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    wins = winning_actions(GAME, DEAL)
    async with running_server(store) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        attempt = (await ann.daily_start(GAME))["race"]["race"]
        for action in wins:
            finished = await ann.act(attempt, action)
        own = (await bob.daily_start(GAME))["race"]["race"]
        await bob.act(own, wins[0])
        await bob.resign(own)
        for _ in range(100):  # the board is written just after the results are told
            if (await bob.daily_board(GAME))["total"] == 2:
                break
            await asyncio.sleep(0.02)

        practice = await bob.daily_start(GAME, ghost=True)
        assert practice["ranked"] is False and practice["claimable"] is False
        ghost = practice["ghost"]
        assert (ghost["name"], ghost["finished"]) == ("Ann", True)
        assert ghost["time_ms"] == finished["time_ms"]
        timeline = ghost["progress"]
        every_card = rules_for(GAME).card_total
        assert timeline[0] == [0, 0, 0] and timeline[-1][:2] == [ghost["time_ms"], every_card]
        assert [t for t, _, _ in timeline] == sorted(t for t, _, _ in timeline)
        assert [p for _, p, _ in timeline] == sorted({p for _, p, _ in timeline})
        assert not set(wins) & {str(x) for point in timeline for x in point}  # no moves
        await bob.resign(practice["race"]["race"])


async def test_no_ghost_before_the_ranked_attempt_is_over(store: Store) -> None:
    await store.days.set_daily_deal(GAME, day_of(int(time.time() * 1000)), DEAL)
    async with running_server(store) as server:
        cy, gus = await member(server, "Cy"), await player(server, "Gus")
        for client in (cy, gus):
            with pytest.raises(ServerError) as refused:
                await client.daily_start(GAME, ghost=True)
            assert refused.value.code == "ghost_refused"
        first = await cy.daily_start(GAME)  # the refusal took nothing: this one is ranked
        assert first["ranked"] is True and first["ghost"] is None
