"""A racer who has picked up a card keeps it while the other racers play: their moves
change the standings on the screen, not the cards the racer holds (before, every standings
event drew the table afresh and dropped the card in the player's hand). The table draws
again only the piles that changed, so a move of one's own redraws two or three piles."""

from __future__ import annotations

import re

from browser_pages import (
    CORNER,
    DEAL,
    GAME,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    destination,
    expected_board,
    my_board,
    pick_up_on_tap,
    player_id,
    source_card,
    state_after,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import expect


def first_home(actions: list[str]) -> list[str]:
    """``actions`` up to the first that puts a card home (progress shown in standings)."""
    for end in range(1, len(actions) + 1):
        if any(state_after(GAME, DEAL, actions[:end]).position.foundations):
            return actions[:end]
    raise AssertionError("the winning line never puts a card home")


def test_a_picked_up_card_stays_in_hand_while_an_opponent_plays(
    server: ServerThread, open_page: OpenPage
) -> None:
    wins = winning_actions(GAME, DEAL)
    ann, bob, _ = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    for page in (ann, bob):
        expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    board = my_board(ann)
    first = wins[0]
    assert first.split()[2][0] == "t", first
    pick_up_on_tap(ann)
    card = source_card(board, first)
    card.click(position=CORNER)
    expect(card).to_have_class(re.compile(r"\bselected\b"))

    bobs = first_home(wins)
    type_actions(bob, bobs)
    standing = ann.locator(f'#standings [data-player="{player_id(bob)}"]')
    expect(standing).not_to_have_attribute("data-progress", "0")
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    destination(board, first).click(position=CORNER)
    wait_for_board(board, expected_board(GAME, DEAL, [first]))
