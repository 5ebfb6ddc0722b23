"""Issue 25's figure: a move by taps (the card, then where it goes) is drawn soon on a phone
whose CPU is slowed 4x (Chromium's CPU throttling, as DevTools does it). Printed: the time
from the second tap to the next frame after the board drew the new position, median and
largest of the moves, the server's round trip included. The test checks that every tap
was drawn and prints the figures (docs/browser.md, "Performance"); it asserts no time:
figures come from this command, never from a timed test.

    .venv/bin/pytest -q -s tests/client/test_browser_a_tap_is_drawn_on_a_slow_phone.py
"""

from __future__ import annotations

import statistics

from browser_pages import (
    DEAL,
    GAME,
    PHONE,
    OpenPage,
    ServerThread,
    click_move,
    create_race,
    expected_board,
    my_board,
    sign_in,
    type_actions,
    wait_for_board,
)
from harness import winning_actions
from playwright.sync_api import expect

MOVES = 24
MEASURE = """() => {
  window.taps = [];
  window.answered = [];
  // A tap ends when the finger lifts: the second tap plays the move on its pointerup (a
  // board drawn then takes the target away, so no click event may follow).
  document.addEventListener("pointerup", (event) => {
    if (event.target.closest("#race-board")) window.tappedAt = window.askedAt = performance.now();
  }, true);
  // The frame that shows what was just drawn: its rendering (style, layout, paint) runs
  // after its animation callbacks, and a message posted from one arrives once that is done.
  const afterTheFrame = (at, into) => requestAnimationFrame(() => {
    const painted = new MessageChannel();
    painted.port1.onmessage = () => into.push(performance.now() - at);
    painted.port2.postMessage(null);
  });
  const race = window.solrace.screens.race;
  const board = race.board;
  const render = board.render.bind(board);
  board.render = (view) => {
    render(view);
    if (window.tappedAt != null) afterTheFrame(window.tappedAt, window.taps);
    window.tappedAt = null;
  };
  const applyResult = race.applyResult.bind(race);
  race.applyResult = (result) => {
    applyResult(result);
    if (window.askedAt != null) afterTheFrame(window.askedAt, window.answered);
    window.askedAt = null;
  };
}"""


def test_a_tap_move_is_drawn_on_a_phone_slowed_four_times(
    server: ServerThread, open_page: OpenPage
) -> None:
    page = open_page(server.url, viewport=PHONE, has_touch=True, is_mobile=True)
    sign_in(page, "Tia")
    create_race(page, GAME, DEAL, players=1)
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate", {"rate": 4})
    page.evaluate(MEASURE)
    board = my_board(page)
    played: list[str] = []
    tapped = 0
    for action in winning_actions(GAME, DEAL):
        if tapped == MOVES:
            break
        by_taps = action[0] == "t" and action.split()[2][0] == "t"
        page.wait_for_timeout(200)  # a player's pace: the last move's cards have arrived
        if by_taps:
            click_move(board, action)
            tapped += 1
        else:
            type_actions(page, [action])
        played.append(action)
        wait_for_board(board, expected_board(GAME, DEAL, played))
    page.wait_for_timeout(300)
    taps, answered = page.evaluate("[window.taps, window.answered]")
    assert len(taps) == len(answered) == tapped == MOVES, (taps, answered, played)
    print(
        f"\n{len(taps)} tap moves at 390x844, CPU slowed 4x: drawn after "
        f"{statistics.median(taps):.1f} ms median, {max(taps):.1f} ms at most; "
        f"the server's answer drawn after {statistics.median(answered):.1f} ms median, "
        f"{max(answered):.1f} ms at most"
    )
