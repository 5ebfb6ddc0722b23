"""What docs/protocol.md tells someone writing a client, held to the server over a bare
websocket and the client library: exactly which fields each signed answer's signature
covers, the refusal of a profile asked by a name no account can have, a guest's practice
at yesterday's revealed deal showing that deal from the start, a person who asks for bots
still meeting a person who did not, and the settings a client writer testing from one
address needs, each named as the command line names it."""

from __future__ import annotations

import asyncio
import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from harness import player, race_alone_resigned, running_server, url
from websockets.asyncio.client import ClientConnection, connect

from client.api import ServerError
from protocol.daily import DAY_MS, day_of
from protocol.signing import signature_problem
from protocol.wire import JSON, PROTOCOL_VERSION
from server.options import OPTIONS
from server.store import MemoryStore

GAME, DEAL = "mount_sunflower", 18
ENVELOPE = ("type", "id", "of")
DOCS = Path(__file__).resolve().parents[2] / "docs"


def documented(document: str, heading: str) -> str:
    """The text of ``document`` from the heading that starts with ``heading`` to the next
    heading of any level."""
    text = (DOCS / document).read_text()
    return re.split(rf"^#+ {re.escape(heading)}.*$", text, flags=re.M)[1].split("\n#")[0]


def signed_row(answer: str) -> str:
    """The row of docs/protocol.md's table of signed answers for ``answer``."""
    table = documented("protocol.md", "Signed results")
    return next(row for row in table.splitlines() if row.startswith(f"| `{answer}` |"))


async def ask(connection: ClientConnection, request: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer to ``request``, as it came (the events before it skipped)."""
    await connection.send(json.dumps(request))
    while True:
        frame: dict[str, Any] = json.loads(await asyncio.wait_for(connection.recv(), 5))
        if frame.get("id") == request["id"]:
            return frame


async def test_a_daily_board_is_signed_without_its_envelope_and_a_race_log_as_its_log() -> None:
    async with running_server(countdown_ms=0) as server:
        ann = await player(server, "Ann")
        race = await race_alone_resigned(ann, GAME, DEAL)
        await ann.next_event("result")
        async with connect(url(server), subprotocols=[JSON]) as connection:  # type: ignore[list-item]
            hello = {"type": "hello", "id": 1, "protocol": PROTOCOL_VERSION, "name": "Writer"}
            welcome = await ask(connection, hello)
            key = welcome["signing_key"]
            keys = {key["key"]: key["public_key"]}
            board = await ask(connection, {"type": "daily_board", "id": 2, "game": GAME})
            log = await ask(connection, {"type": "race_log", "id": 3, "race": race})

    assert [board[field] for field in ENVELOPE] == ["result", 2, "daily_board"]
    signed = {k: v for k, v in board.items() if k not in ENVELOPE}
    assert signature_problem(signed, keys) is None
    assert signature_problem(board, keys) is not None  # the envelope is not signed
    assert set(log) == {*ENVELOPE, "log"}
    assert signature_problem(log["log"], keys) is None
    left_out = signed_row("daily_board").split("except", 1)[1].split("(", 1)[0]
    assert tuple(re.findall(r"`(\w+)`", left_out)) == ENVELOPE  # what the docs say is unsigned
    assert "the `log` object" in signed_row("race_log")


async def test_a_profile_asked_by_a_name_no_account_can_have_is_refused_as_bad_username() -> None:
    async with running_server() as server, await player(server, "Ann") as ann:
        with pytest.raises(ServerError) as refused:
            await ann.request("profile", username="no such name!")
        assert refused.value.code == "bad_username"
        with pytest.raises(ServerError) as unknown:
            await ann.request("profile", username="nobody_here")
        assert unknown.value.code == "player_not_found"
        with pytest.raises(ServerError) as not_an_id:
            await ann.request("profile", player="someone")
        assert not_an_id.value.code == "bad_field"
    said = documented("protocol.md", "`profile`")
    assert {"bad_username", "player_not_found", "missing_field"} <= set(
        re.findall(r"`(\w+)`", said)
    )


async def test_a_guest_s_practice_at_yesterday_s_revealed_deal_shows_that_deal_from_the_start() -> (
    None
):
    store = MemoryStore()
    yesterday = day_of(int(time.time() * 1000) - DAY_MS)
    await store.days.set_daily_deal(GAME, yesterday, DEAL)
    async with running_server(store) as server, await player(server, "Gus") as guest:
        started = await guest.daily_start(GAME)
        assert started["day"] == yesterday and not started["ranked"]
        assert started["claimable"] is False  # registering later claims nothing
        assert started["race"]["deal"] == str(DEAL)  # on yesterday's board already
        assert started["race"]["deal_chosen"] is True
        board = await guest.daily_board(GAME, day=yesterday)
        assert board["deal"] == str(DEAL)
    accounts = " ".join(documented("players.md", "Accounts").split())
    assert "`claimable` in `daily_start`'s answer is always false" in accounts


async def test_a_person_who_asks_for_bots_is_still_paired_with_a_person_who_did_not() -> None:
    async with running_server(countdown_ms=0) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        await bob.quick_race(GAME)
        assert (await ann.quick_race(GAME, bots=True))["bots"] is True
        paired = (await ann.next_event("paired")).data["race"]
        assert {p["name"] for p in paired["players"]} == {"Ann", "Bob"}
    said = documented("protocol.md", "`quick_race`")
    assert "never narrows" in said  # what a client writer is told of it


def test_a_client_writer_testing_from_one_address_is_told_each_limit_by_its_flag() -> None:
    """docs/protocol.md's section for testing from one address names every setting that
    limits by address or ranks new accounts, by its command-line flag, and names no flag
    the server does not have."""
    said = documented("protocol.md", "Testing a client from one address")
    flags = {option.flag for option in OPTIONS}
    named = set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]+", said))
    assert named <= flags
    needed = {o.flag for o in OPTIONS if "per-address" in o.flag or "rank" in o.flag}
    assert needed | {"--trusted-proxy"} <= named


def test_players_md_names_a_setting_beside_its_command_line_flag() -> None:
    """A setting named in docs/players.md (written for players and operators) comes with
    the flag an operator types, in the same paragraph."""
    for paragraph in (DOCS / "players.md").read_text().split("\n\n"):
        for option in OPTIONS:
            if f"`{option.setting}`" in paragraph:
                assert option.flag in paragraph, (option.setting, paragraph[:80])
