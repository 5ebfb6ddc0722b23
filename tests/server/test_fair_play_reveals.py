"""Clairvoyance through a real server (docs/fairness.md, "Measured, not kept:
clairvoyance"): a ranked daily run's review keeps its reveals (the cards it turned up
unseen, the useful ones, their expectation, variance and z) computed from its log against the
day's deal; no rule flags a run for one run's (``lucky_account`` sums an account's runs:
tests/server/test_fair_play_account.py). On the in-memory store and on a real Redis."""

from __future__ import annotations

import time

from harness import member_at, player, running_server
from test_fair_play_review import (
    GAME,
    MODERATED,
    admin,
    play_like_a_person,
    play_the_solver_s_line,
    until,
)

from protocol.daily import day_of
from protocol.fairplay_reveals import reveals_of
from protocol.games import rules_for
from server.store import Store

REVEAL_FIELDS = ("blind_reveals", "lucky_reveals", "lucky_expected", "lucky_variance", "lucky_z")


async def test_a_review_keeps_the_run_s_reveals_against_the_day_s_deal(store: Store) -> None:
    async with running_server(store, **MODERATED, trusted_proxies=("127.0.0.1",)) as server:
        deal, _ = await server.daily.deal_for(GAME, day_of(int(time.time() * 1000)))
        line = await server.daily.line(GAME, deal)
        assert line is not None
        knower = await member_at(server, "Kenny", "203.0.113.1")
        person = await member_at(server, "Perry", "203.0.113.2")
        races = [await play_the_solver_s_line(knower, list(line))]
        races.append((await play_like_a_person(person, list(line)))[0])
        moderator = await player(server, "Mod")
        rules = rules_for(GAME)
        for race, client in zip(races, (knower, person), strict=True):

            async def reviewed(race: str = race) -> bool:
                return bool((await admin(moderator, "review", race=race)).get("review"))

            await until(reviewed)
            seen = (await admin(moderator, "review", race=race))["review"]["players"]
            signals = seen[client.player]["signals"]
            log = await client.race_log(race)
            actions = [action for _, action, _ in log["racers"][0]["actions"]]
            expected = reveals_of(rules, rules.deal(deal), actions)
            z = expected.z()
            assert [signals[field] for field in REVEAL_FIELDS] == [
                expected.blind,
                expected.lucky,
                expected.expected,
                expected.variance,
                round(z, 2) if z is not None else None,
            ]
            assert not any("reveal" in reason for reason in seen[client.player]["reasons"])
        knowing = (await admin(moderator, "review", race=races[0]))["review"]["players"]
        assert knowing[knower.player]["signals"]["blind_reveals"] >= 1  # the line turns cards up
