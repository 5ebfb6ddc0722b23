"""Issue 25, "tap to move drawn" on a phone: a legal move is drawn as soon as it is played,
before the server answers (the answer then shows the card the move turned), and a move the
server refuses goes back. The page's websocket runs through a route that can hold the
server's answers, or change an action on its way, so that the real server refuses it."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from browser_pages import (
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    click_move,
    expected_board,
    my_board,
    race_alone,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Locator, Page, WebSocketRoute, expect

from protocol.errors import IllegalAction
from protocol.games import rules_for
from protocol.notation import parse_action


class Route:
    """The page's websocket through a route: while ``holding``, the server's answers to
    ``act`` wait (``release`` sends them on); ``rewrite`` changes the next act's action."""

    def __init__(self, page: Page) -> None:
        self.holding = False
        self.held: list[str | bytes] = []
        self.rewrite: dict[str, str] = {}
        self.page_side: WebSocketRoute | None = None
        page.route_web_socket(re.compile(r"/ws$"), self.route)
        page.reload()  # the page connects again, now through the route

    def route(self, page_side: WebSocketRoute) -> None:
        self.page_side = page_side
        server_side = page_side.connect_to_server()

        def to_server(message: str | bytes) -> None:
            request = json.loads(message)
            if request.get("type") == "act" and request["action"] in self.rewrite:
                request["action"] = self.rewrite.pop(request["action"])
                message = json.dumps(request)
            server_side.send(message)

        def to_page(message: str | bytes) -> None:
            if self.holding and json.loads(message).get("of") == "act":
                self.held.append(message)
            else:
                page_side.send(message)

        page_side.on_message(to_server)
        server_side.on_message(to_page)

    def release(self) -> None:
        self.holding = False
        assert self.page_side is not None
        for message in self.held:
            self.page_side.send(message)
        self.held.clear()


def answered(page: Page, route: Route) -> None:
    """Wait until the route holds the server's answer to the act (a slow server answers
    after the page drew the move)."""
    for _ in range(200):
        if route.held:
            break
        page.wait_for_timeout(50)
    assert len(route.held) == 1


def drawn_ahead(board: dict[str, Any], action: str) -> dict[str, Any]:
    """``board`` with the move ``action`` drawn: its cards on their new tableau pile, and
    nothing turned yet."""
    src, count, dst = action.split()
    ahead = copy.deepcopy(board)
    moved = ahead[src]["up"][-int(count) :]
    del ahead[src]["up"][-int(count) :]
    ahead[dst]["up"] += moved
    return ahead


def refusal(action: str) -> str:
    """The server's sentence for ``action`` at the deal's start."""
    rules = rules_for(GAME)
    try:
        rules.apply(rules.start(DEAL), parse_action(action))
    except IllegalAction as refused:
        return refused.message
    raise AssertionError(f"{action} is legal")


def a_move_that_turns_a_card() -> tuple[list[str], str]:
    """The winning line's first tableau move that leaves a face-down card on top: the
    actions before it, and it."""
    line = winning_actions(GAME, DEAL)
    for at, action in enumerate(line):
        src, _, dst = (action.split() + ["", ""])[:3]
        if src[:1] == dst[:1] == "t":
            before = expected_board(GAME, DEAL, line[:at])
            pile = before[src]
            if pile["down"] and len(pile["up"]) == int(action.split()[1]):
                return line[:at], action
    raise AssertionError("the winning line turns no card")


def routed_race(open_page: OpenPage, url: str, name: str) -> tuple[Page, Route, Locator]:
    """``name`` races alone on deal 18 through a route: the page, the route, the board."""
    page = open_page(url)
    route = Route(page)
    race_alone(page, name, GAME, DEAL)
    return page, route, my_board(page)


def test_a_move_is_drawn_before_the_answer_which_then_turns_the_card(
    server: ServerThread, open_page: OpenPage
) -> None:
    page, route, board = routed_race(open_page, server.url, "Pia")
    before, action = a_move_that_turns_a_card()
    type_actions(page, before)
    wait_for_board(board, expected_board(GAME, DEAL, before))
    route.holding = True
    click_move(board, action)
    ahead = drawn_ahead(expected_board(GAME, DEAL, before), action)
    wait_for_board(board, ahead)  # drawn at once
    answered(page, route)  # the server's answer has come, and waits in the route:
    wait_for_board(board, ahead)  # the move is drawn still, nothing turned
    route.release()
    wait_for_board(board, expected_board(GAME, DEAL, [*before, action]))  # the card turned


def test_a_move_the_server_refuses_goes_back_with_the_server_s_sentence(
    server: ServerThread, open_page: OpenPage
) -> None:
    page, route, board = routed_race(open_page, server.url, "Rex")
    action = winning_actions(GAME, DEAL)[0]
    src, count, _ = action.split()
    route.rewrite[action] = f"{src} {count} f"  # on its way: a move home, which is illegal
    route.holding = True
    click_move(board, action)
    wait_for_board(board, drawn_ahead(expected_board(GAME, DEAL, []), action))
    route.release()
    wait_for_board(board, expected_board(GAME, DEAL, []))  # the cards are back
    expect(page.locator("#race-message")).to_have_text(refusal(f"{src} {count} f"))
