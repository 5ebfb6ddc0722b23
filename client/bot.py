"""Bots that race through the real server, seeing only what a person would see.

A bot's brain knows its own view (face-up cards, counts of face-down and stock cards) and,
like any player, which cards it has not seen yet. To plan it *guesses* where those unseen
cards lie, asks the solver for a win in that guessed world, and plays the plan for as long
as what turns up matches the guess; when a revealed card differs, it guesses again. When
the solver finds nothing, it plays the best-looking legal move (foundations first, then
moves that turn a card up or empty a pile, never back into a position it has seen).
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from client.api import Client, ServerError
from client.views import after_action
from protocol import cards as C
from protocol.cards import HIDDEN, Card
from protocol.engine import GameState, Rules, View
from protocol.games import rules_for
from protocol.notation import ANY_FOUNDATION, AUTO, DEAL, UNDO, Action, Move, parse_action
from protocol.position import Position
from protocol.solver import WON, solve

MAX_ACTIONS = 5000  # a bot that has not finished by then resigns


def position_from_view(view: dict[str, Any], rules: Rules) -> Position:
    """The masked position a view describes (HIDDEN where the player sees a card's back)."""
    tableau = tuple(
        (HIDDEN,) * down + tuple(C.parse(c) for c in pile)
        for pile, down in zip(view["tableau"], view["face_down"], strict=True)
    )
    return Position(
        tableau=tableau,
        face_down=tuple(view["face_down"]),
        foundations=tuple(tuple(C.parse(c) for c in p) for p in view["foundations"]),
        reserves=tuple(tuple(C.parse(c) for c in p) for p in view.get("reserves", [])),
        waste=tuple(C.parse(c) for c in view["waste"]),
        stock=(HIDDEN,) * view["stock"],
    )


def unseen_cards(position: Position, rules: Rules) -> list[Card]:
    """The cards of the game not face up anywhere in ``position``."""
    seen = Counter(c for pile in position.tableau for c in pile if c != HIDDEN)
    for group in (position.foundations, position.reserves, (position.waste,)):
        for pile in group:
            seen.update(pile)
    left = Counter(C.deck(rules.decks)) - seen
    return list(left.elements())


def guess(position: Position, rules: Rules, rng: random.Random) -> Position:
    """``position`` with every hidden card replaced by one of the unseen cards, at random."""
    pool = unseen_cards(position, rules)
    rng.shuffle(pool)
    tableau = tuple(
        tuple(pool.pop() if card == HIDDEN else card for card in pile) for pile in position.tableau
    )
    stock = tuple(pool.pop() for _ in position.stock)
    return position._replace(tableau=tableau, stock=stock)


@dataclass
class Brain:
    """Chooses the next action from the player's view alone."""

    rules: Rules
    nodes: int = 50_000
    rng: random.Random = field(default_factory=lambda: random.Random(1))
    plan: list[str] = field(default_factory=list)
    expected: GameState | None = None  # the guessed world after the plan's last step
    seen: set[bytes] = field(default_factory=set)

    def choose(self, view: dict[str, Any]) -> str:
        position = position_from_view(view, self.rules)
        self.seen.add(position.canonical_bytes())
        if self.plan and self.expected is not None and self.expected.position.masked() == position:
            return self._step()
        world = GameState(guess(position, self.rules, self.rng))
        solution = solve(self.rules, world.position, max_nodes=self.nodes)
        if solution.verdict == WON and solution.actions:
            self.plan, self.expected = list(solution.actions), world
            return self._step()
        self.plan, self.expected = [], None
        return self._fallback(position, view.get("can_undo", False))

    def _step(self) -> str:
        assert self.expected is not None
        action = self.plan.pop(0)
        self.expected = self.rules.apply(self.expected, parse_action(action)).state
        return action

    def _fallback(self, position: Position, can_undo: bool) -> str:
        legal = [
            a for a in self.rules.legal_actions_in_view(View(position, can_undo)) if a is not UNDO
        ]
        if not legal:
            return "resign"
        scored = sorted(legal, key=lambda a: self._score(position, a), reverse=True)
        return str(scored[0])

    def _score(self, position: Position, action: Action) -> int:
        if action is AUTO:
            return 100
        if action is DEAL:
            return 1
        assert isinstance(action, Move)
        if action.dst is ANY_FOUNDATION:
            return 90
        score = 0
        if action.src.kind == "t" and action.src.index is not None:
            i = action.src.index
            rest = len(position.tableau[i]) - action.count
            if rest == 0:
                score += (
                    20
                    if action.dst.kind == "t" and position.tableau[action.dst.index or 0]
                    else -50
                )
            elif rest == position.face_down[i]:
                score += 40  # turns a card face up
        try:
            after = self.rules.play_move(position, action)[0]
        except Exception:
            return -1000
        return score - (200 if after.canonical_bytes() in self.seen else 0) + self.rng.randrange(5)


async def play_race(
    client: Client, race: str, start: dict[str, Any], brain: Brain, pace_s: float
) -> dict[str, Any]:
    """Play ``race`` to its end from the ``started`` picture; the final reply's fields."""
    view = start["you"]["view"]
    reply: dict[str, Any] = {}
    for _ in range(MAX_ACTIONS):
        if pace_s:
            await asyncio.sleep(pace_s)
        action = brain.choose(view)
        if action == "resign":
            return await client.resign(race)
        try:
            reply = await act_politely(client, race, action)
        except ServerError as error:
            if error.code in ("already_finished", "race_not_found"):
                return reply
            brain.plan, brain.expected = [], None
            view = (await client.snapshot(race))["you"]["view"]
            continue
        if reply["outcome"] is not None:
            return reply
        view = after_action(view, reply, brain.rules.undo_allowed)
    return await client.resign(race)


async def act_politely(client: Client, race: str, action: str) -> dict[str, Any]:
    """``act``, resending with the same number while the server says to slow down or that
    it cannot store moves right now, and after reconnecting when the connection is lost
    (a restart or a deploy): the server answers a resend once, so nothing is played twice
    and nothing answered is lost."""
    seq = client.seqs.get(race, 0) + 1
    for attempt in range(200):
        try:
            return await client.act(race, action, seq=seq)
        except ServerError as error:
            if error.code not in ("rate_limited", "store_unavailable"):
                raise
            await asyncio.sleep(min(0.05 * (attempt + 1), 1.0))
        except ConnectionError:
            await client.reconnect()
    raise ServerError("rate_limited", "the server kept saying to slow down or to try later")


async def run_bots(
    url: str,
    names: list[str],
    *,
    race: str | None = None,
    create: dict[str, Any] | None = None,
    daily: str | None = None,
    pace_s: float = 0.0,
    nodes: int = 50_000,
) -> list[dict[str, Any]]:
    """Connect one bot per name; they join ``race`` (or create one with ``create``, or each
    plays the daily challenge of ``daily``) and play to the end. Each bot's last reply."""
    bots = [await Client.connect(url, name, bot=True) for name in names]  # always labelled
    try:
        if daily is not None:
            attempts = [await bot.daily_start(daily) for bot in bots]
            games = [(a["race"]["race"], a["race"]) for a in attempts]
            game = daily
            options: dict[str, Any] = {}
        else:
            if race is None:
                assert create is not None
                race = (await bots[0].create_race(**create, max_players=len(bots)))["race"]
                for bot in bots[1:]:
                    await bot.join_race(race)
            else:
                for bot in bots:
                    await bot.join_race(race)
            starts = [
                await bot.next_event("started", timeout=120, where=lambda d: d["race"] == race)
                for bot in bots
            ]
            games = [(race, start.data) for start in starts]
            game, options = starts[0].data["game"], starts[0].data["options"]
        rules = rules_for(game, options or None)
        results = await asyncio.gather(
            *(
                play_race(bot, race_id, start, Brain(rules, nodes, random.Random(i)), pace_s)
                for i, (bot, (race_id, start)) in enumerate(zip(bots, games, strict=True))
            )
        )
        return list(results)
    finally:
        for bot in bots:
            await bot.close()
