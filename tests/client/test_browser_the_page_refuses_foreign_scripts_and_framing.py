"""The page's own defences, in a real headless Chromium: scripts and sockets only from the
page's own origin, no framing by another site, no address sent to other sites. A future
slip that lets markup into the page (a name, a message) then cannot run script, and a
site that frames the page to trick clicks gets an empty frame.

The other browser tests play whole races under the same policy (their ``open_page``
fails a test whose page breaks it)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_pages import ServerThread, sign_in
from playwright.sync_api import Browser, Page


class OtherSite:
    """A site on another port of the machine: its page frames ``target``; it keeps
    the path and Referer of each request (the browser may ask for its icon too)."""

    def __init__(self, target: str) -> None:
        page = f'<!doctype html><title>other site</title><iframe src="{target}"></iframe>'
        self.requests: list[tuple[str, str | None]] = []
        requests = self.requests

        class Answer(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                requests.append((self.path, self.headers.get("Referer")))
                body = page.encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/"

    def __enter__(self) -> OtherSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture
def bare_page(browser: Browser) -> Iterator[Page]:
    """A page in its own context that does not fail the test on refusals: these tests make
    the page refuse things on purpose."""
    context = browser.new_context()
    context.set_default_timeout(10_000)
    yield context.new_page()
    context.close()


def record_refusals(page: Page) -> None:
    """From now on, every refusal under the page's policy is kept in ``window.refused``."""
    page.evaluate(
        """() => {
            window.refused = [];
            document.addEventListener("securitypolicyviolation", (event) =>
                window.refused.push([event.effectiveDirective, event.blockedURI]));
        }"""
    )


def test_a_site_on_another_port_that_frames_the_page_gets_an_empty_frame(
    server: ServerThread, bare_page: Page
) -> None:
    refusals: list[str] = []
    bare_page.on("console", lambda message: refusals.append(message.text))
    with OtherSite(server.url) as other:
        bare_page.goto(other.url)
        bare_page.wait_for_load_state("load")
        framed = bare_page.frames[1]
        assert framed.locator(".brand").count() == 0, "the page must not show inside a frame"
    assert any("frame-ancestors" in text for text in refusals), refusals


def test_a_script_slipped_into_the_page_does_not_run(server: ServerThread, bare_page: Page) -> None:
    bare_page.goto(server.url)
    sign_in(bare_page, "Ida")  # the page's own scripts and socket work under the policy
    record_refusals(bare_page)
    bare_page.evaluate(
        """() => {
            const slip = document.createElement("div");
            slip.innerHTML = '<img src="/nothing-here" onerror="window.ran = \\'handler\\'">';
            document.body.append(slip);
            const inline = document.createElement("script");
            inline.textContent = "window.ran = 'inline'";
            document.body.append(inline);
        }"""
    )
    bare_page.wait_for_function("window.refused.length >= 2")
    assert bare_page.evaluate("window.ran") is None
    directives = {directive for directive, _ in bare_page.evaluate("window.refused")}
    assert directives == {"script-src-attr", "script-src-elem"}


def test_scripts_and_sockets_of_another_origin_are_refused(
    server: ServerThread, bare_page: Page
) -> None:
    bare_page.goto(server.url)
    sign_in(bare_page, "Ola")
    record_refusals(bare_page)
    other_origin = server.url.replace("127.0.0.1", "localhost")  # same server, other origin
    bare_page.evaluate(
        """(other) => {
            const script = document.createElement("script");
            script.src = other + "js/main.js";
            document.body.append(script);
            try { new WebSocket(other.replace("http", "ws") + "ws"); } catch (error) {}
        }""",
        other_origin,
    )
    bare_page.wait_for_function("window.refused.length >= 2")
    refused = {directive: blocked for directive, blocked in bare_page.evaluate("window.refused")}
    assert refused["script-src-elem"].startswith(other_origin)
    assert refused["connect-src"].startswith(other_origin.replace("http", "ws"))


def test_a_player_who_follows_a_link_to_another_site_does_not_send_the_page_s_address(
    server: ServerThread, bare_page: Page
) -> None:
    with OtherSite(server.url) as other:
        bare_page.goto(server.url + "#watch")
        with bare_page.expect_navigation():
            bare_page.evaluate("(other) => { location.href = other; }", other.url)
        assert other.requests[0] == ("/", None)
        assert not [r for _, r in other.requests if r and r.startswith(server.url)]
