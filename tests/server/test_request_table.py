"""One table says which desk answers each request (server/desks/request_table.py); the request
types say the gateway's policy for them (protocol/messages.py: ``playing``, ``attempt``)."""

from __future__ import annotations

from harness import player, running_server

from protocol.messages import (
    REQUESTS,
    Act,
    Admin,
    Challenge,
    CreateRace,
    DailyStart,
    Hello,
    JoinRace,
    QuickRace,
    Register,
    Rematch,
    SignIn,
)


async def test_every_request_but_hello_and_act_is_answered_by_the_table() -> None:
    async with running_server() as server:
        answered = set(server.gateway.table)
        assert answered == set(REQUESTS.values()) - {Hello, Act}


async def test_a_request_answered_by_a_desk_s_method_gets_that_method_s_answer() -> None:
    async with running_server() as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race("mount_sunflower", deal=18))["race"]
        mine = await ann.request("my_races")
        assert [told["race"] for told in mine["races"]] == [race]
        assert await ann.request("quick_cancel") == {"game": None, "waiting": False}
        await ann.close()


def test_the_requests_that_start_play_and_those_that_guess_a_secret_say_so() -> None:
    playing = {kind for kind in REQUESTS.values() if kind.playing}
    assert playing == {CreateRace, JoinRace, Rematch, Challenge, DailyStart, QuickRace}
    assert {kind for kind in REQUESTS.values() if kind.attempt} == {Register, SignIn, Admin}
