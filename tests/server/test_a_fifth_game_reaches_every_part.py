"""Issue 34, "one game registry down to the browser": a toy fifth game, written as a new game
is (its rules module, its solver profile, its registry entry: the three parts below) and
registered in a temporary registry, is accepted by every part without another line: the
server deals a race of it and judges its moves, the solver certifies one of its deals, the
catalog the browser reads serves it, the page's replayer (``client/web/js/replayer.js``,
run by node as the browser runs it) deals and plays it as the engine does, and the page's
table (``layoutFor``) sets out each of its piles. docs/games.md
names the files a new game touches."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import player, running_server

from client.api import ServerError
from protocol.cards import Card
from protocol.daily_choice import certified_choice
from protocol.games import GAMES, catalog, register, rules_for
from protocol.games.entry import Example, Game, Layout, RulesText
from protocol.games.sanibel import Sanibel
from protocol.notation import format_action, parse_action
from protocol.position import Position
from protocol.race import view_json
from protocol.solver.certify import Certified
from protocol.solver.sanibel_profile import SanibelProfile

JS = Path(__file__).parents[2] / "client" / "web" / "js"
ROUNDS = 6
FACE_DOWN = (0, 1, 2, 1, 0)


# 1. The rules module: one deck on five piles in a pyramid of face-down cards, two cards to
# the waste; Yukon-style moves as Sanibel's.
class ToyYukon(Sanibel):
    name = "toy_yukon"
    title = "Toy Yukon"
    decks = 1
    tableau_piles = 5
    option_defaults = {"undo": True}  # noqa: RUF012 (as every game declares it)

    def _check_options(self, options: dict[str, Any]) -> None:
        """No option but undo."""

    def layout(self, cards: list[Card]) -> Position:
        talon = list(cards)
        piles: list[list[Card]] = [[] for _ in range(self.tableau_piles)]
        for _ in range(ROUNDS):
            for pile in piles:
                pile.append(talon.pop())
        waste = (talon.pop(), talon.pop())
        return Position(
            tableau=tuple(tuple(p) for p in piles),
            face_down=FACE_DOWN,
            foundations=((),) * self.foundation_piles,
            reserves=(),
            waste=waste,
            stock=tuple(reversed(talon)),
        )


# 2. The solver profile: Sanibel's reading of a Yukon-style game serves.
class ToyYukonProfile(SanibelProfile):
    """Five interchangeable piles, the stock dealt to the waste."""


# 3. The registry entry.
TOY = Game(
    ToyYukon,
    ToyYukonProfile,
    Layout(rounds=ROUNDS, face_down=FACE_DOWN, to_waste=2),
    "t3 2 t4, w 1 f, deal",
    RulesText(
        lead="One deck. A toy Yukon on five piles.",
        layout="Five tableau piles t0–t4 of six cards, a pyramid of face-down cards.",
        moves=("Any face-up card moves with every card on top of it.",),
        options="No layout option.",
        example=Example(
            "t0 1 t1: the 9♠ goes onto the 10♥.",
            before={"tableau": [["9S"], ["10H"]], "face_down": [0, 0], "foundations": [[]]},
            after={"tableau": [[], ["10H", "9S"]], "face_down": [0, 0], "foundations": [[]]},
        ),
    ),
)


@pytest.fixture
def toy_registered() -> Iterator[str]:
    """The registry with the toy game as its fifth, for this test only."""
    before = dict(GAMES)
    register(TOY)
    try:
        yield TOY.name
    finally:
        GAMES.clear()
        GAMES.update(before)


def test_the_toy_game_is_the_registrys_fifth_and_its_catalog_entry_says_its_layout(
    toy_registered: str,
) -> None:
    assert list(GAMES)[-1] == toy_registered and len(GAMES) == 5
    entry = catalog()[-1]
    assert entry["game"] == "toy_yukon" and entry["decks"] == 1
    assert entry["layout"]["tableau"] == 5 and entry["layout"]["face_down"] == [0, 1, 2, 1, 0]
    assert entry["example_move"] == "t3 2 t4, w 1 f, deal"
    assert entry["rules"]["example"]["text"].startswith("t0 1 t1")


async def test_the_server_deals_a_race_of_the_toy_game_judges_its_moves_and_serves_it(
    toy_registered: str,
) -> None:
    rules = rules_for(toy_registered)
    async with running_server(countdown_ms=0) as server, await player(server, "Ann") as ann:
        assert ann.welcome is not None
        assert [entry["game"] for entry in ann.welcome.games][-1] == toy_registered
        race = (await ann.create_race(toy_registered, deal=7, max_players=1))["race"]
        started = await ann.next_event("started", where=lambda d: d["race"] == race)
        view = started.data["you"]["view"]
        assert view == view_json(rules.view(rules.start(7)))
        legal = [format_action(a) for a in rules.legal_actions(rules.start(7))]
        move = next(action for action in legal if action != "deal")
        assert (await ann.act(race, move))["actions"] == 1
        with pytest.raises(ServerError) as refused:
            await ann.act(race, "t5 1 t0")  # five piles: t0 to t4
        assert refused.value.code == "unknown_pile"

        def get() -> Any:
            with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/games", timeout=5) as r:
                return json.loads(r.read())

        served = await asyncio.to_thread(get)
        assert served[-1]["game"] == toy_registered and served == catalog()


def test_the_solver_certifies_a_deal_of_the_toy_game_and_the_replay_wins_it(
    toy_registered: str,
) -> None:
    chosen = certified_choice(toy_registered, list(range(1, 21)), nodes=20_000)
    assert isinstance(chosen, Certified)
    rules = rules_for(toy_registered)
    state = rules.start(chosen.number)
    for action in chosen.solution.actions:
        state = rules.apply(state, parse_action(action)).state
    assert rules.is_won(state.position)


# node reads the cases on stdin, learns the catalog as the page does, and prints each
# case's final view by the page's replayer
REPLAY = f"""
import {{ learnGames }} from {json.dumps((JS / "games.js").as_uri())};
import {{ positionsOf, viewOf }} from {json.dumps((JS / "replayer.js").as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const {{ games, cases }} = JSON.parse(input);
learnGames(games);
console.log(JSON.stringify(cases.map((c) => {{
  const positions = positionsOf(c.game, c.options, c.deal, c.actions);
  const {{ can_undo, ...view }} = viewOf(positions[positions.length - 1]);
  return view;
}})));
"""


def played(game: str, options: dict[str, Any], deal: int, seed: int) -> dict[str, Any]:
    """Random legal play of ``deal`` in the engine: the actions and the final view."""
    rules, chance = rules_for(game, options), random.Random(seed)
    state, actions = rules.start(deal), []
    for _ in range(150):
        legal = [format_action(action) for action in rules.legal_actions(state)]
        if not legal:
            break
        action = chance.choice(legal)
        state = rules.apply(state, parse_action(action)).state
        actions.append(action)
    view = view_json(rules.view(state))
    view.setdefault("reserves", [])
    view.pop("can_undo", None)
    return {"game": game, "options": options, "deal": str(deal), "actions": actions, "view": view}


def test_the_pages_replayer_deals_and_plays_the_toy_game_and_every_other_as_the_engine_does(
    toy_registered: str,
) -> None:
    cases = [played(game, {}, deal, seed) for seed, game in enumerate(GAMES) for deal in (3, 32001)]
    cases.append(played("sanibel", {"down": 0, "up": 10}, 31999, 99))
    assert {case["game"] for case in cases} == set(GAMES)
    done = subprocess.run(
        ["node", "--input-type=module", "-e", REPLAY],
        input=json.dumps({"games": catalog(), "cases": cases}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    shown = json.loads(done.stdout)
    for case, view in zip(cases, shown, strict=True):
        assert view == case["view"], f"{case['game']} deal {case['deal']}"


# node prints, for each game, the table the page sets out for its first view
TABLES = f"""
import {{ layoutFor, learnGames }} from {json.dumps((JS / "games.js").as_uri())};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const {{ games, views }} = JSON.parse(input);
learnGames(games);
const tables = Object.entries(views).map(([game, view]) => [game, layoutFor(game, view)]);
console.log(JSON.stringify(tables));
"""


def test_the_pages_table_sets_out_every_pile_of_the_toy_game_and_every_other_once(
    toy_registered: str,
) -> None:
    views = {game: view_json(rules_for(game).view(rules_for(game).start(1))) for game in GAMES}
    done = subprocess.run(
        ["node", "--input-type=module", "-e", TABLES],
        input=json.dumps({"games": catalog(), "views": views}),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    for game, table in json.loads(done.stdout):
        view = views[game]
        piles = ["s", *(["w"] if rules_for(game).has_waste else [])]
        for kind, part in (("t", "tableau"), ("f", "foundations"), ("r", "reserves")):
            piles += [f"{kind}{i}" for i in range(len(view.get(part, [])))]
        placed = [pile for row in table["top"] for pile in row if pile] + table["tableau"]
        assert sorted(placed) == sorted(piles), game
        assert all(len(row) <= table["cols"] for row in table["top"]), game
        assert table["tableauFrom"] + len(table["tableau"]) <= table["cols"], game
