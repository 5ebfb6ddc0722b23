"""One table says which desk answers each request (server/request_table.py)."""

from __future__ import annotations

from harness import player, running_server

from protocol.messages import REQUESTS, Act, Hello


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
