"""What the browser tests share: a real race server in a thread (the ``server`` fixture of
conftest.py starts one per test module), the rules engine's side of a board, the page
actions every test uses (enter a name, create a race, type actions, read the board), and
what several modules use: the window sizes, the clock, the websocket frames, the keyboard
and the overlap check.

The server runs in the test process, in its own thread and event loop, on a free port of
127.0.0.1, with the in-memory store (so the test can choose the day's daily deal before it
starts). Every page is a fresh browser context: a player of its own. What a page shows is
checked against the rules engine: the board after a list of actions must be exactly the
view the engine gives for them."""

from __future__ import annotations

import dataclasses
import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import server_thread
from harness import TEST_SETTINGS
from playwright.sync_api import Locator, Page, WebSocket, expect

from protocol.daily import DAY_MS, day_of
from protocol.games import rules_for
from protocol.notation import parse_action
from protocol.race import view_json
from server.config import Settings
from server.store import Store

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

GAME, DEAL = "mount_sunflower", 18  # a deal with a proven win in tests/data/wins
SETTINGS = dataclasses.replace(
    TEST_SETTINGS,
    countdown_ms=300,  # a module that looks at the countdown sets COUNTDOWN_MS (conftest.py)
    grace_ms=20_000,
    feed_interval_ms=20,
    standings_interval_ms=100,
    rate_per_s=Settings().rate_per_s,  # the page keeps under the real limits by itself
    burst=Settings().burst,
)


class ServerThread(server_thread.ServerThread):
    """The race server in its thread, with ``daily`` (game -> deal) preset for today and
    tomorrow, a way to cut a player's connection, and the page's address."""

    def __init__(self, settings: Settings, daily: dict[str, int]) -> None:
        async def preset(store: Store) -> None:
            now = int(time.time() * 1000)
            for game, number in daily.items():
                for day in {day_of(now), day_of(now + DAY_MS)}:  # the test may cross midnight
                    await store.days.set_daily_deal(game, day, number)

        super().__init__(settings, before_start=preset)

    def cut_connection(self, player: str) -> None:
        """Break ``player``'s connection as a network failure would: no closing handshake."""

        def cut() -> None:
            line = self.server.lines.get(player)
            assert line is not None and line.connection.transport is not None
            line.connection.transport.abort()

        self.loop.call_soon_threadsafe(cut)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.port}/"


def state_after(game: str, deal: int, actions: list[str]) -> Any:
    """The rules engine's state of ``deal`` after ``actions``."""
    rules = rules_for(game)
    state = rules.start(deal)
    for action in actions:
        state = rules.apply(state, parse_action(action)).state
    return state


def expected_board(game: str, deal: int, actions: list[str]) -> dict[str, Any]:
    """What a board must show after ``actions``, in the shape ``shown_board`` reads."""
    view = view_json(rules_for(game).view(state_after(game, deal, actions)))
    board: dict[str, Any] = {"s": view["stock"]}
    for i, (down, up) in enumerate(zip(view["face_down"], view["tableau"], strict=True)):
        board[f"t{i}"] = {"down": down, "up": up}
    for i, pile in enumerate(view["foundations"]):
        board[f"f{i}"] = pile[-1] if pile else None
    for i, pile in enumerate(view.get("reserves", [])):
        board[f"r{i}"] = pile[-1] if pile else None
    if game not in ("mount_sunflower", "mount_sunflower_easy"):
        board["w"] = view["waste"][-1] if view["waste"] else None
    return board


READ_BOARD = """(root) => {
  const board = {};
  for (const pile of root.querySelectorAll('.pile')) {
    const name = pile.dataset.pile;
    const faces = [...pile.querySelectorAll('.card.face')].map((card) => card.dataset.card);
    if (name === 's') {
      const count = pile.querySelector('.count');
      board.s = count ? Number(count.textContent) : 0;
    } else if (name[0] === 't') {
      board[name] = {down: pile.querySelectorAll('.card.back').length, up: faces};
    } else {
      board[name] = faces.length ? faces[faces.length - 1] : null;
    }
  }
  return board;
}"""


def shown_board(board: Locator) -> dict[str, Any]:
    result: dict[str, Any] = board.evaluate(READ_BOARD)
    return result


def wait_for_board(board: Locator, expected: dict[str, Any], timeout: float = 15.0) -> None:
    """Wait until ``board`` shows ``expected``; fail with both when it does not."""
    deadline = time.monotonic() + timeout
    shown = shown_board(board)
    while shown != expected:
        if time.monotonic() > deadline:
            assert shown == expected, "the board never showed the expected position"
        time.sleep(0.05)
        shown = shown_board(board)


def wait_until_true(page: Page, expression: str, timeout: float = 10.0) -> None:
    """Wait until ``expression`` is true in the page, read from outside it: the page's
    Content-Security-Policy refuses the eval that ``wait_for_function`` polls with once its
    first look finds it false (a slow machine)."""
    deadline = time.monotonic() + timeout
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"never true: {expression}"
        page.wait_for_timeout(50)


def sign_in(page: Page, name: str) -> None:
    page.get_by_label("Your name").fill(name)
    page.get_by_role("button", name="Play", exact=True).click()
    expect(page.locator("#connection")).to_have_attribute("data-status", "online")


def create_race(page: Page, game: str, deal: int | None, players: int) -> str:
    """Create a race from the lobby form; its id."""
    form = page.locator("#create-form")
    form.get_by_label("Game").select_option(game)
    form.get_by_label("Players").fill(str(players))
    form.get_by_label("Deal number").fill("" if deal is None else str(deal))
    form.get_by_role("button", name="Create race").click()
    screen = page.locator("#screen-race")
    expect(screen).to_be_visible()
    expect(screen).to_have_attribute("data-race", re.compile(r"\w+"))
    race = screen.get_attribute("data-race")
    assert race
    return race


def race_alone(page: Page, name: str, game: str = GAME, deal: int = DEAL) -> str:
    """``name`` signs in and plays a race for one on ``deal``, running: its id."""
    sign_in(page, name)
    race = create_race(page, game, deal, players=1)
    expect(page.locator("#screen-race")).to_have_attribute("data-phase", "running")
    return race


def ann_and_bob_race(open_page: OpenPage, url: str, game: str, deal: int) -> tuple[Page, Page, str]:
    """Ann creates a race of two on ``deal``, Bob opens its link and joins: their pages and
    the race's id (the race starts by itself once full)."""
    ann = open_page(url)
    sign_in(ann, "Ann")
    race = create_race(ann, game, deal, players=2)
    bob = open_page(f"{url}#race={race}")
    sign_in(bob, "Bob")
    return ann, bob, race


def type_actions(page: Page, actions: list[str]) -> None:
    """Play ``actions`` from the keyboard: typed in the action box, Enter."""
    box = page.get_by_label("Action in notation")
    box.fill("; ".join(actions))
    box.press("Enter")


def my_board(page: Page) -> Locator:
    return page.locator("#race-board")


def screenshot(page: Page, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path


def player_id(page: Page) -> str:
    player: str = page.evaluate("window.solrace.conn.player")
    return player


def resign(page: Page) -> None:
    page.get_by_role("button", name="Resign", exact=True).click()
    page.get_by_role("button", name="Sure? Resign").click()


OpenPage = Callable[..., Page]


DESKTOP = {"width": 1280, "height": 800}


PHONE = {"width": 390, "height": 844}


def clock_ms(page: Page) -> int:
    minutes, seconds = page.locator("#clock").inner_text().split(":")
    return int((int(minutes) * 60 + float(seconds)) * 1000)


class Frames:
    """The messages a page sends and receives over its websockets. Made before the page
    connects (before ``sign_in``)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.sent: list[dict[str, Any]] = []
        self.received: list[dict[str, Any]] = []
        page.on("websocket", self._watch)

    def _watch(self, socket: WebSocket) -> None:
        socket.on("framesent", lambda payload: self.sent.append(json.loads(payload)))
        socket.on("framereceived", lambda payload: self.received.append(json.loads(payload)))

    def acts(self) -> tuple[int, int]:
        """How many ``act`` requests went out, and how many were answered."""
        sent = sum(message["type"] == "act" for message in self.sent)
        return sent, sum(message.get("of") == "act" for message in self.received)

    def settle(self, timeout: float = 10.0) -> None:
        """Wait until every act sent is answered and nothing more goes out for 0.5 s."""
        deadline = time.monotonic() + timeout
        quiet_since, seen = time.monotonic(), self.acts()
        while time.monotonic() < deadline:
            self.page.wait_for_timeout(50)  # lets Playwright deliver the frame events
            now = self.acts()
            if now != seen:
                quiet_since, seen = time.monotonic(), now
            elif now[0] == now[1] and time.monotonic() - quiet_since >= 0.5:
                return
        raise AssertionError(f"the acts never settled: {seen} (sent, answered)")

    def wait_for_event(self, kind: str, timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not any(m.get("kind") == kind for m in self.received if m["type"] == "event"):
            assert time.monotonic() < deadline, f"no {kind} event came"
            self.page.wait_for_timeout(50)


def sent_actions(frames: Frames) -> list[str]:
    """The actions of the ``act`` requests a page sent, in order."""
    return [m["action"] for m in frames.sent if m["type"] == "act"]


def press(page: Page, *keys: str) -> None:
    for key in keys:
        page.keyboard.press(key)


def keyboard_focus(page: Page, locator: Locator) -> None:
    """Put the keyboard's focus on ``locator`` (as Tab would), never clicking."""
    locator.focus()
    assert locator.evaluate("(element) => element === document.activeElement")


def focus_is_on_the_board(page: Page) -> bool:
    inside: bool = page.evaluate(
        "document.getElementById('race-board').contains(document.activeElement)"
    )
    return inside


OVERLAPS = """() => {
  const visible = (e) => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden';
  const text = 'button, a, input, select, h1, h2, h3, label, td, th, .clock, .status, .sub, .pill,'
    + ' .standing, .hint, .pile-name';
  const found = [...document.querySelectorAll(text)]
    .filter((e) => visible(e) && (!e.closest('.board') || e.matches('.pile-name')))
    .map((e) => [e, e.getBoundingClientRect()])
    .filter(([, r]) => r.width > 0 && r.height > 0);
  const overlaps = [];
  const name = (e) => `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}`
    + ` "${(e.textContent || e.value || '').trim().slice(0, 30)}"`;
  for (let i = 0; i < found.length; i += 1) {
    for (let j = i + 1; j < found.length; j += 1) {
      const [a, ra] = found[i];
      const [b, rb] = found[j];
      if (a.contains(b) || b.contains(a)) continue;
      const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (x > 2 && y > 2) overlaps.push(`${name(a)} overlaps ${name(b)}`);
    }
  }
  // In a fanned pile every card under another shows its corner index in full (once its
  // cards have arrived: a sliding card passes over others on its way, as in the rules'
  // animated example, which moves every 1.8 s).
  for (const pile of document.querySelectorAll('.board .fan')) {
    if (!visible(pile) || pile.getAnimations({ subtree: true }).length) continue;
    const cards = [...pile.querySelectorAll('.card.face')];
    for (let i = 0; i + 1 < cards.length; i += 1) {
      const corner = cards[i].querySelector('.corner.top').getBoundingClientRect();
      const next = cards[i + 1].getBoundingClientRect();
      if (corner.bottom > next.top + 1) {
        overlaps.push(`${pile.dataset.pile}: ${cards[i].dataset.card} covered`);
      }
    }
  }
  return overlaps;
}"""


def account_form(page: Page, username: str, password: str, button: str) -> None:
    panel = page.locator("#account-panel")
    panel.get_by_label("Username").fill(username)
    panel.get_by_label("Password").fill(password)
    panel.get_by_role("button", name=button, exact=True).click()


def register(page: Page, username: str, password: str) -> None:
    account_form(page, username, password, "Create account")
    expect(page.locator("#account-name")).to_have_text(username)


def source_card(board: Locator, action: str) -> Locator:
    """The card a tableau move picks up: the N-th from the top of its pile."""
    src, count, _ = action.split()
    faces = board.locator(f'[data-pile="{src}"] .card.face')
    return faces.nth(faces.count() - int(count))


def destination(board: Locator, action: str) -> Locator:
    dst = action.split()[2]
    return board.locator(f'[data-pile="{"f0" if dst == "f" else dst}"]')


CORNER = {"x": 12, "y": 8}  # inside the strip of a fanned card that stays visible


def pick_up_on_tap(page: Page) -> None:
    """Choose "Tap picks a card up": a click on a card then picks it up (a click on a card
    otherwise plays its best legal place), as a player who wants to say where does."""
    toggle = page.locator("#pick-up-toggle")
    if not toggle.is_checked():
        toggle.check()


def click_move(board: Locator, action: str) -> None:
    """Play a tableau move with two clicks: the card, then the pile it goes to (the player
    has chosen "Tap picks a card up")."""
    pick_up_on_tap(board.page)
    card = source_card(board, action)
    card.click(position=CORNER)
    expect(card).to_have_class(re.compile(r"\bselected\b"))
    destination(board, action).click(position=CORNER)


def add_test_script(page: Page, source: str) -> None:
    """Run a test's own script (e.g. axe-core) in ``page`` as the browser's developer tools
    would: the page's Content-Security-Policy refuses inline scripts, and rightly."""
    page.evaluate(source)


AXE_SERIOUS = (  # axe-core's serious and critical findings, once it is in the page
    "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
    ".filter((v) => v.impact === 'serious' || v.impact === 'critical')"
    ".map((v) => `${v.id}: ${v.help} (${v.nodes.length}: ${v.nodes[0].target})`)"
)


def serious_findings(page: Page, axe_source: str, what: str) -> list[str]:
    """axe-core's serious and critical findings on ``page`` as it is now, each named by
    ``what`` (the page's screen)."""
    add_test_script(page, axe_source)
    violations: list[str] = page.evaluate(AXE_SERIOUS)
    return [f"{what}: {violation}" for violation in violations]


def add_test_style(page: Page, css: str) -> None:
    """Add a test's own style rules to ``page`` as a constructed style sheet (the page's
    Content-Security-Policy refuses inline style elements)."""
    page.evaluate(
        """(css) => {
            const sheet = new CSSStyleSheet();
            sheet.replaceSync(css);
            document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
        }""",
        css,
    )
