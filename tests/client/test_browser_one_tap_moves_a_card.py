"""Issue 25, "one tap or click moves a card to its best legal place": a click on a card
plays the best of the legal actions the server listed for it (home first, then onto a
card of its suit, then onto any card, leftmost first, an empty pile last; issue 32: 4♣
went onto 5♥ while 5♣ was free); a card with no legal place is picked up
instead, and a refusal (in the cards' names the table shows) goes with the next move; a
double-click moves one card, not two; and, as the player chooses, cards go
home by themselves. When nothing but undo is left the page says so, and a race that
counts for nothing (a race of one, a daily's practice) offers hints."""

from __future__ import annotations

import re

from browser_pages import (
    CORNER,
    DEAL,
    GAME,
    Frames,
    OpenPage,
    ServerThread,
    ann_and_bob_race,
    expected_board,
    my_board,
    race_alone,
    sent_actions,
    state_after,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import Locator, Page, expect

from protocol.games import rules_for
from protocol.notation import format_action
from protocol.race import view_json

# Seven actions into deal 18's winning line, t2's top card may go onto t0 or home.
HOME_AFTER = 7
# Mount Sunflower deal 57: after these, no action but undo is legal.
STUCK_DEAL, STUCK_LINE = 57, ["deal", "deal", "auto", "deal", "deal", "t1 1 t2"]


def legal_after(game: str, deal: int, actions: list[str]) -> list[str]:
    state = state_after(game, deal, actions)
    return [format_action(action) for action in rules_for(game).legal_actions(state)]


def top_card(page: Page, pile: str) -> Locator:
    return my_board(page).locator(f'[data-pile="{pile}"] .card.face').last


def solo_race(open_page: OpenPage, url: str, name: str, deal: int = DEAL) -> tuple[Page, Frames]:
    """A race of one on ``deal``, running, and the frames its page sends and receives."""
    page = open_page(url)
    frames = Frames(page)
    race_alone(page, name, GAME, deal)
    return page, frames


def test_a_click_on_a_card_plays_its_only_place_or_the_one_of_its_suit(
    server: ServerThread, open_page: OpenPage
) -> None:
    legal = legal_after(GAME, DEAL, [])
    assert [a for a in legal if a.startswith("t4 ")] == ["t4 1 t5"]  # one place
    assert [a for a in legal if a.startswith("t0 ")] == ["t0 1 t1", "t0 1 t6"]  # two
    view = view_json(rules_for(GAME).view(state_after(GAME, DEAL, [])))
    assert [view["tableau"][i][-1] for i in (0, 1, 6)] == ["4C", "5H", "5C"]
    page, _ = solo_race(open_page, server.url, "Uma")
    top_card(page, "t4").click(position=CORNER)
    wait_for_board(my_board(page), expected_board(GAME, DEAL, ["t4 1 t5"]))
    top_card(page, "t0").click(position=CORNER)  # 4♣ onto 5♣, not the leftmost 5♥
    wait_for_board(my_board(page), expected_board(GAME, DEAL, ["t4 1 t5", "t0 1 t6"]))


def test_a_card_with_no_place_is_picked_up_to_be_put_down(
    server: ServerThread, open_page: OpenPage
) -> None:
    assert not [a for a in legal_after(GAME, DEAL, []) if a.startswith("t1 ")]
    page, _ = solo_race(open_page, server.url, "Ulf")
    card = top_card(page, "t1")
    card.click(position=CORNER)
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    my_board(page).locator('[data-pile="t5"]').click(position=CORNER)  # the rules refuse it
    message = page.locator("#race-message")  # in the cards' names as the table shows them
    expect(message).to_have_text(re.compile(r"^\d?[\dAJQK][♣♠♥♦] cannot go on \d?[\dAJQK][♣♠♥♦]: "))
    wait_for_board(my_board(page), expected_board(GAME, DEAL, []))
    card.click(position=CORNER)  # the next move begins: the refusal goes
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    expect(message).to_have_text("")


def test_home_is_the_best_place_and_a_double_click_moves_one_card(
    server: ServerThread, open_page: OpenPage
) -> None:
    line = winning_actions(GAME, DEAL)[:HOME_AFTER]
    assert {"t2 1 t0", "t2 1 f"} <= set(legal_after(GAME, DEAL, line))
    page, frames = solo_race(open_page, server.url, "Ugo")
    type_actions(page, line)
    wait_for_board(my_board(page), expected_board(GAME, DEAL, line))
    top_card(page, "t2").dblclick(position=CORNER)
    wait_for_board(my_board(page), expected_board(GAME, DEAL, [*line, "t2 1 f"]))
    frames.settle()
    assert sent_actions(frames)[len(line) :] == ["t2 1 f"]


def test_cards_go_home_by_themselves_when_the_player_asks(
    server: ServerThread, open_page: OpenPage
) -> None:
    line = winning_actions(GAME, DEAL)[:HOME_AFTER]
    assert "auto" in legal_after(GAME, DEAL, line)
    assert "auto" not in legal_after(GAME, DEAL, line[:-1])
    page, frames = solo_race(open_page, server.url, "Una")
    page.get_by_label("Cards go home by themselves").check()
    type_actions(page, line)
    wait_for_board(my_board(page), expected_board(GAME, DEAL, [*line, "auto"]))
    frames.settle()
    assert sent_actions(frames)[len(line) :] == ["auto"]
    page.get_by_role("button", name="Undo", exact=True).click()  # undo is not undone again
    wait_for_board(my_board(page), expected_board(GAME, DEAL, line))
    frames.settle()
    assert sent_actions(frames)[len(line) :] == ["auto", "undo"]


def test_no_moves_left_is_said(server: ServerThread, open_page: OpenPage) -> None:
    assert legal_after(GAME, STUCK_DEAL, STUCK_LINE) == ["undo"]
    assert legal_after(GAME, STUCK_DEAL, STUCK_LINE[:-1]) != ["undo"]
    page, _ = solo_race(open_page, server.url, "Ned", deal=STUCK_DEAL)
    type_actions(page, STUCK_LINE[:-1])
    wait_for_board(my_board(page), expected_board(GAME, STUCK_DEAL, STUCK_LINE[:-1]))
    expect(page.locator("#race-message")).to_have_text("")
    type_actions(page, STUCK_LINE[-1:])
    expect(page.locator("#race-message")).to_have_text("No moves left: undo a move, or resign.")


def test_a_race_of_one_offers_hints_that_are_legal(
    server: ServerThread, open_page: OpenPage
) -> None:
    page, _ = solo_race(open_page, server.url, "Hue")
    page.get_by_role("button", name="Hint").click()
    message = page.locator("#race-message")
    expect(message).to_contain_text("Hint: ")
    board = my_board(page)
    hinted = board.locator(".card.hinted")
    expect(hinted).to_have_count(1)
    source = hinted.evaluate("(card) => card.closest('.pile').dataset.pile")
    target = board.locator(".pile.hint-target").get_attribute("data-pile")
    assert f"{source} 1 {target}" in legal_after(GAME, DEAL, [])
    top_card(page, "t4").click(position=CORNER)  # a move clears the hint
    expect(board.locator(".card.hinted, .pile.hint-target")).to_have_count(0)


def test_a_race_against_someone_offers_no_hint(server: ServerThread, open_page: OpenPage) -> None:
    ann, _, _ = ann_and_bob_race(open_page, server.url, GAME, DEAL)
    expect(ann.locator("#screen-race")).to_have_attribute("data-phase", "running")
    expect(ann.get_by_role("button", name="Deal", exact=True)).to_be_visible()
    expect(ann.get_by_role("button", name="Hint")).to_be_hidden()
