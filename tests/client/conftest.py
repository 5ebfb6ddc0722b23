"""Browser fixtures: one headless Chromium (Debian's) per test module, driven by Playwright,
and pages in separate contexts, so each page is its own player (its own localStorage).

Playwright's sync API keeps an event loop running while it is started, so it is stopped at
the end of the module that used it: async tests in other modules need the thread's loop."""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_pages import DEAL, DESKTOP, GAME, SETTINGS, ServerThread
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags Chromium stalls on a machine with no internet.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def server(request: pytest.FixtureRequest) -> Iterator[ServerThread]:
    """The module's server: today's daily deal preset, unless the module sets ``DAILY``
    (e.g. ``{}``: none); races count down 300 ms, unless it sets ``COUNTDOWN_MS`` (long
    enough to see the countdown on the page, e.g. 1500)."""
    daily = getattr(request.module, "DAILY", {GAME: DEAL})
    countdown_ms = getattr(request.module, "COUNTDOWN_MS", SETTINGS.countdown_ms)
    settings = dataclasses.replace(SETTINGS, countdown_ms=countdown_ms)
    with ServerThread(settings, daily=daily) as running:
        yield running


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Headless Chromium; the tests fail (never skip) when it is missing."""
    if not CHROMIUM.exists():
        pytest.fail(f"no Chromium at {CHROMIUM}: apt-get install -y chromium", pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser: Browser) -> Iterator[Callable[..., Page]]:
    """``open_page(url, viewport=DESKTOP, **options)``: a page in a fresh context (a new
    player; ``options`` for Playwright's context, e.g. ``has_touch``). At
    the end every context is closed, and a page whose scripts threw an uncaught error, or
    that the page's Content-Security-Policy refused something, fails the test."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def refused(url: str, text: str) -> None:
        if "Content Security Policy" in text:
            errors.append(f"{url}: {text}")

    def open_one(url: str, viewport: dict[str, int] = DESKTOP, **options: Any) -> Page:
        context = browser.new_context(viewport=viewport, **options)
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{url}: {error}"))
        page.on("console", lambda message: refused(url, message.text))
        page.goto(url)
        return page

    yield open_one
    for context in contexts:
        context.close()
    assert not errors, "uncaught errors in the page:\n" + "\n".join(errors)


AXE_VERSION = "4.14.1"  # axe-core, from npm: the accessibility checks of the browser tests
AXE_CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "solrace-tests"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """axe-core's script, installed once with npm into a cache folder (the test command
    needs nothing else); the tests fail, never skip, when it cannot be installed."""
    folder = AXE_CACHE / f"axe-core-{AXE_VERSION}"
    script = folder / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        folder.mkdir(parents=True, exist_ok=True)
        try:
            subprocess.run(
                [
                    "npm",
                    "install",
                    "--no-save",
                    "--no-audit",
                    "--no-fund",
                    "--prefix",
                    str(folder),
                    f"axe-core@{AXE_VERSION}",
                ],
                check=True,
                capture_output=True,
                text=True,
                timeout=300,
            )
        except (OSError, subprocess.SubprocessError) as error:
            detail = getattr(error, "stderr", "") or error
            pytest.fail(f"cannot install axe-core@{AXE_VERSION} with npm: {detail}", pytrace=False)
    return script.read_text()
