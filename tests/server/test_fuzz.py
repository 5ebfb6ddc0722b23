"""Generated frames against a real server: every frame is answered, every error code is a
documented one, a refusal changes nothing, and everyone else goes on being served.

The frames are valid requests of every type with values from the races that exist (so
many of them arrive in the wrong state: an action before the start, a start by someone
who is not the host), the same requests with one field replaced by something nasty (lone
surrogates, huge numbers, deep nesting, wrong types), and arbitrary data; in both
encodings, on a connection that has said hello and on a new one that has not.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest
from harness import TEST_SETTINGS
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st
from server_thread import ServerThread
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from protocol.games import GAMES
from protocol.messages import REQUESTS
from protocol.wire import JSON, MAX_MESSAGE_BYTES, MSGPACK

DOCS = Path(__file__).resolve().parents[2] / "docs"
UNKNOWN_RACE = "0123456789abcdef"
ANSWERS = ("welcome", "result", "error")


def documented_codes() -> set[str]:
    """Every code in the first column of the error-code tables of the protocol and the
    engine documents."""
    codes: set[str] = set()
    for name in ("protocol.md", "engine.md"):
        text = (DOCS / name).read_text()
        section = re.split(r"^## Error codes.*$", text, flags=re.M)[1].split("\n## ")[0]
        for row in section.splitlines():
            if row.startswith("| `"):
                codes.update(re.findall(r"`([a-z_]+)`", row.split("|")[1]))
    return codes


CODES = documented_codes()


# ====================================================================== the server's side


@dataclass
class Peer:
    """One websocket and its encoding."""

    connection: ClientConnection
    encoding: str
    next_id: int = 1_000_000

    @classmethod
    def open(cls, url: str, encoding: str, stack: ExitStack) -> Peer:
        """A new connection, closed when ``stack`` closes."""
        connection = connect(url, subprotocols=[encoding], compression=None)  # type: ignore[list-item]
        return cls(stack.enter_context(connection), encoding)

    def send_raw(self, frame: bytes | str) -> None:
        self.connection.send(frame)

    def answer(self, timeout_s: float = 5.0) -> dict[str, Any] | None:
        """The next answer (welcome, result or error), skipping events and feed items;
        None when the server closed the connection instead."""
        while True:
            try:
                frame = self.connection.recv(timeout_s)
            except ConnectionClosed:
                return None
            message = decoded(frame, self.encoding)
            if message.get("type") in ANSWERS:
                return message

    def request(self, kind: str, **fields: Any) -> dict[str, Any]:
        self.next_id += 1
        message = {"type": kind, "id": self.next_id, **fields}
        self.send_raw(encoded(message, self.encoding))
        answer = self.answer()
        assert answer is not None, f"the server closed the connection on {kind}"
        assert answer["id"] == self.next_id
        return answer


def encoded(message: Any, encoding: str) -> bytes | str:
    if encoding == MSGPACK:
        data: bytes = msgpack.packb(message, use_bin_type=True, unicode_errors="surrogatepass")
        return data
    return json.dumps(message)  # lone surrogates become \ud800 escapes: valid JSON text


def decoded(frame: bytes | str, encoding: str) -> dict[str, Any]:
    value: dict[str, Any] = (
        msgpack.unpackb(frame, raw=False) if encoding == MSGPACK else json.loads(frame)
    )
    return value


@dataclass
class World:
    """The server, two fuzzing players (one per encoding), a bystander racing elsewhere,
    an observer, and every race id seen."""

    server: ServerThread
    fuzzers: dict[str, Peer]
    bystander: Peer
    observer: Peer
    races: set[str] = field(default_factory=set)

    def hello(self, peer: Peer, name: str, token: str | None = None) -> dict[str, Any]:
        fields: dict[str, Any] = {"protocol": 1, "name": name}
        if token:
            fields["token"] = token
        welcome = peer.request("hello", **fields)
        assert welcome["type"] == "welcome", welcome
        return welcome

    def digest(self) -> Any:
        """What anyone may see of every race known: players, their actions, progress and
        outcome, the host (not the phase: countdowns end by themselves); and the fuzzing
        players' own races."""
        seen = {}
        for race in sorted(self.races):
            answer = self.observer.request("snapshot", race=race)
            if answer["type"] == "result":
                info = answer["race"]
                seen[race] = (
                    info["host"],
                    [
                        (p["player"], p["actions"], p["progress"], p["outcome"])
                        for p in info["players"]
                    ],
                )
            else:
                seen[race] = answer["code"]
        mine = {
            encoding: sorted(r["race"] for r in peer.request("my_races")["races"])
            for encoding, peer in self.fuzzers.items()
        }
        return seen, mine

    def learn(self, message: Any) -> None:
        """Remember every race id an answer mentions."""
        if isinstance(message, dict):
            for key, value in message.items():
                if key in ("race", "rematch") and isinstance(value, str):
                    self.races.add(value)
                else:
                    self.learn(value)
        elif isinstance(message, list):
            for item in message:
                self.learn(item)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    unlimited = dataclasses.replace(TEST_SETTINGS, rate_per_s=1e9, burst=10**9)
    with ServerThread(unlimited) as running, ExitStack() as stack:
        url = running.ws_url
        fuzzers = {encoding: Peer.open(url, encoding, stack) for encoding in (JSON, MSGPACK)}
        bystander, rival, observer = (Peer.open(url, MSGPACK, stack) for _ in range(3))
        world = World(running, fuzzers, bystander, observer)
        for peer, name in (
            (fuzzers[JSON], "fuzz-json"),
            (fuzzers[MSGPACK], "fuzz-msgpack"),
            (bystander, "bystander"),
            (rival, "rival"),
            (observer, "observer"),
        ):
            world.hello(peer, name)
        # races in every phase: open (mine, and another's), running (mine, and others'),
        # done, and one that does not exist
        world.learn(fuzzers[JSON].request("create_race", game="sanibel", max_players=3))
        world.learn(rival.request("create_race", game="shady_lanes", max_players=4))
        mine = fuzzers[JSON].request("create_race", game="mount_sunflower", countdown_ms=0)
        rival.request("join_race", race=mine["race"]["race"])
        world.learn(mine)
        theirs = bystander.request("create_race", game="mount_sunflower", countdown_ms=0)
        rival.request("join_race", race=theirs["race"]["race"])
        world.learn(theirs)
        done = rival.request("create_race", game="sanibel", max_players=1, countdown_ms=0)
        world.learn(done)
        world.races.add(UNKNOWN_RACE)
        yield world


# ====================================================================== the frames

NASTY_TEXT = st.one_of(
    st.sampled_from(["\ud800", "a\udfffb", "\udc80" * 3, "", " ", "\x00", "é" * 300]),
    st.builds(lambda a, b: a + "\ud83d" + b, st.text(max_size=5), st.text(max_size=5)),
    st.text(max_size=40),
)
NASTY = st.one_of(
    NASTY_TEXT,
    st.sampled_from([2**53, 2**63, 2**64 + 1, -(2**70), -1, 0, 1.5, True, None]),
    st.integers(),
    st.recursive(st.none() | st.integers(-5, 5), lambda c: st.lists(c, max_size=3), max_leaves=8),
    st.dictionaries(st.text(max_size=3), st.integers(0, 3), max_size=3),
)
ACTIONS = ["deal", "auto", "undo", "t0 1 t1", "t0 1 f", "w 1 f", "r0 1 t0", "xyzzy"]


@dataclass(frozen=True)
class RaceRef:
    """One of the races the test knows, by index (resolved when the frame is sent, so
    that what is drawn does not depend on what earlier examples created)."""

    index: int


def resolved(value: Any, races: list[str]) -> Any:
    if isinstance(value, RaceRef):
        return races[value.index % len(races)]
    if isinstance(value, dict):
        return {key: resolved(item, races) for key, item in value.items()}
    return value


def values_for(name: str) -> st.SearchStrategy[Any]:
    """Plausible values of a request field (so that many requests are valid in form)."""
    plausible: dict[str, st.SearchStrategy[Any]] = {
        "race": st.builds(RaceRef, st.integers(0, 31)),
        "game": st.sampled_from(sorted(GAMES)),
        "action": st.sampled_from(ACTIONS),
        "seq": st.integers(1, 40),
        "name": st.text(min_size=1, max_size=24),
        "protocol": st.sampled_from([1, 2]),
        "deal": st.sampled_from(["1", "18", "99999999999999999999"]),
        "max_players": st.integers(1, 8),
        "countdown_ms": st.sampled_from([0, 50]),
        "spectator_delay_ms": st.sampled_from([0, 100]),
        "day": st.sampled_from(["2026-01-01", "2026-02-30"]),
        "top": st.integers(1, 100),
        "around": st.integers(0, 25),
        "options": st.sampled_from([{}, {"undo": False}, {"down": 2, "up": 2}, {"bogus": 1}]),
        "token": st.sampled_from(["abc", "x" * 64]),
        "last_event": st.integers(0, 5),
    }
    return plausible.get(name, st.booleans())


# Account requests are left out: signing out closes the connection by design, and wrong
# sign-ins are made to wait (seconds each); tests/server/test_accounts.py sends them bad
# input of every kind instead.
FUZZED: tuple[str, ...] = tuple(sorted(set(REQUESTS) - {"register", "sign_in", "sign_out"}))


@st.composite
def request_maps(draw: st.DrawFn, kinds: tuple[str, ...] = FUZZED) -> Any:
    """A request map: valid in form, or with one field made nasty, or with a stray one."""
    kind = draw(st.sampled_from(kinds))
    cls = REQUESTS[kind]
    message: dict[str, Any] = {"type": kind, "id": draw(st.integers(0, 10**6))}
    for name in cls.__dataclass_fields__:
        if name == "id":
            continue
        if draw(st.booleans()) or name in ("race", "game", "action", "seq", "protocol", "name"):
            message[name] = draw(values_for(name))
    mutation = draw(st.sampled_from(["none", "none", "field", "id", "extra", "drop"]))
    if mutation == "field":
        message[draw(st.sampled_from(sorted(message)))] = draw(NASTY)
    elif mutation == "id":
        message["id"] = draw(NASTY)
    elif mutation == "extra":
        message[draw(NASTY_TEXT)] = draw(NASTY)
    elif mutation == "drop" and len(message) > 1:
        del message[draw(st.sampled_from(sorted(message)))]
    return message


def frames() -> st.SearchStrategy[Any]:
    """Mostly request maps (7 in 10); then too deep, arbitrary data, arbitrary bytes."""
    deep: st.SearchStrategy[Any] = st.just(1)
    for _ in range(6):
        deep = st.builds(lambda inner: {"type": "list_races", "id": 1, "x": [inner]}, deep)
    anything = st.recursive(
        st.none() | st.booleans() | st.integers() | NASTY_TEXT,
        lambda children: (
            st.lists(children, max_size=4) | st.dictionaries(NASTY_TEXT, children, max_size=4)
        ),
        max_leaves=12,
    )
    kinds = [request_maps()] * 7 + [deep, anything, st.binary(max_size=64)]
    return st.integers(0, len(kinds) - 1).flatmap(lambda i: kinds[i])


# ====================================================================== the test


def send_and_check(world: World, peer: Peer, message: Any, fresh: bool) -> None:
    """Send ``message`` on ``peer``; check the answer; check nothing changed on a refusal."""
    message = resolved(message, sorted(world.races))
    if isinstance(message, bytes):
        frame: bytes | str = message if peer.encoding == MSGPACK else message.decode("latin-1")
    else:
        try:
            frame = encoded(message, peer.encoding)
        except (OverflowError, TypeError, ValueError):
            assume(False)  # MessagePack cannot write it at all
            return
    assume(len(frame) <= MAX_MESSAGE_BYTES)
    before = world.digest()
    peer.send_raw(frame)
    answer = peer.answer()
    assert answer is not None, f"the connection was closed on {frame!r}"
    world.learn(answer)
    event(f"{answer['type']} {answer.get('code') or answer.get('of') or ''}")
    sent_id = message.get("id") if isinstance(message, dict) else None
    assert answer["id"] in (None, sent_id), f"answered {answer} to {frame!r}"
    if answer["type"] == "error":
        assert answer["code"] in CODES, f"undocumented code in {answer} to {frame!r}"
        assert answer["code"] != "internal_error", f"{answer} to {frame!r}"
        assert isinstance(answer["message"], str) and answer["message"]
        after = world.digest()
        assert after == before, f"the refused {frame!r} changed {changes(before, after)}"
        if fresh:  # a refused hello opened no session
            assert peer.request("list_races")["code"] == "hello_first", frame
    # everyone else is served as before
    assert world.bystander.request("list_races")["type"] == "result"
    assert world.bystander.request("list_live")["type"] == "result"


def changes(before: Any, after: Any) -> list[str]:
    """What differs between two digests, key by key."""
    (seen_before, mine_before), (seen_after, mine_after) = before, after
    out = [
        f"{race}: {seen_before.get(race)} -> {seen_after.get(race)}"
        for race in sorted(set(seen_before) | set(seen_after))
        if seen_before.get(race) != seen_after.get(race)
    ]
    if mine_before != mine_after:
        out.append(f"my races: {mine_before} -> {mine_after}")
    return out


# The server's thread (websockets' keepalive pings) draws from ``random`` while Hypothesis
# draws an example here; the strategies themselves use no ``random``.
@pytest.mark.filterwarnings("ignore:Do not use the `random` module inside strategies")
@settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    message=frames(),
    hello=request_maps(("hello",)),
    encoding=st.sampled_from([JSON, MSGPACK]),
    fresh=st.integers(0, 3),
)
def test_every_generated_frame_is_answered_with_a_documented_code_and_refusals_change_nothing(
    world: World, message: Any, hello: Any, encoding: str, fresh: int
) -> None:
    if fresh == 0:  # a new connection: mostly a hello
        message = hello if isinstance(message, dict) else message
        with ExitStack() as stack:
            send_and_check(world, Peer.open(world.server.ws_url, encoding, stack), message, True)
        return
    peer = world.fuzzers[encoding]
    send_and_check(world, peer, message, fresh=False)


def test_the_documented_codes_were_found() -> None:
    assert {"malformed_message", "bad_field", "race_not_found", "does_not_fit"} <= CODES
