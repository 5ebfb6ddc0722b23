"""``solrace admin`` as a real process against a real server: the moderators' token from the
environment or a file, what a person reads of each answer, and one line with an exit
status for every refusal."""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import sys
import time
from pathlib import Path

from harness import member, running_server, url

SOLRACE = Path(sys.executable).parent / "solrace"
TOKEN = "a-moderator-s-token-of-forty-characters!"
GAME = "mount_sunflower_easy"


async def solrace_admin(
    server_url: str, *argv: str, token: str | None = TOKEN
) -> tuple[int, str, str]:
    """Run ``solrace admin ARGV`` with ``token`` in SOLRACE_ADMIN_TOKEN: (exit status,
    standard output, standard error)."""
    env = {k: v for k, v in os.environ.items() if k != "SOLRACE_ADMIN_TOKEN"}
    if token is not None:
        env["SOLRACE_ADMIN_TOKEN"] = token
    process = await asyncio.create_subprocess_exec(
        str(SOLRACE),
        "admin",
        *argv,
        "--server",
        server_url,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_moderator_reviews_renames_and_reads_the_audit_log(tmp_path: Path) -> None:
    async with running_server(admin_token=TOKEN) as server:
        rude = await member(server, "Rude")
        started = await rude.daily_start(GAME)
        race = started["race"]["race"]
        await rude.act(race, started["race"]["you"]["legal"][0])
        await rude.resign(race)
        await rude.next_event("result")
        await asyncio.sleep(0.2)  # the review is written a moment after the result
        address = url(server)

        status, out, _ = await solrace_admin(address, "flagged")
        assert (status, out) == (0, "Nothing is waiting.\n")
        status, out, _ = await solrace_admin(address, "review", race)
        assert status == 0
        assert f"{race} daily {GAME}" in out and "[clear]" in out and "nothing flagged" in out
        assert "Rude (" in out and "1 actions, 0 undos" in out
        assert "useful reveals " in out and "(expected " in out  # kept for the record

        token_file = tmp_path / "token"
        token_file.write_text(TOKEN + "\n")
        status, out, _ = await solrace_admin(
            address,
            "rename",
            "Rude",
            "Polite",
            "--reason",
            "an insult",
            "--token-file",
            str(token_file),
            token=None,
        )
        assert (status, out) == (0, f"Account Polite ({rude.player}).\n")
        status, out, _ = await solrace_admin(address, "audit")
        first = out.splitlines()[0]  # newest first
        assert status == 0 and first.endswith(" 127.0.0.1 rename_account Rude Polite: an insult")
        status, out, _ = await solrace_admin(address, "flagged", token="x" * 40)
        status, out, _ = await solrace_admin(address, "audit")
        lines = out.splitlines()
        assert lines[0].endswith(" 127.0.0.1 flagged: refused (not_admin)")
        assert lines[1].endswith(" 127.0.0.1 audit")  # the read before: reads are audited too


async def test_every_refusal_is_one_line_and_an_exit_status() -> None:
    async with running_server(admin_token=TOKEN) as server:
        address = url(server)
        status, out, err = await solrace_admin(address, "flagged", token="x" * 40)
        assert (status, out) == (
            1,
            "",
        ) and err.strip() == "solrace: the admin token is wrong [not_admin]"
        status, _, err = await solrace_admin(address, "void", "r1", "--reason", "why")
        assert status == 1 and "[no_review]" in err and len(err.strip().splitlines()) == 1
        for argv, said in (
            (("void", "r1"), "--reason is needed"),
            (("rename", "Ann"), "takes USERNAME NEW_USERNAME"),
            (("flagged", "--limit", "0"), "--limit must be 1 to 100"),
        ):
            status, _, err = await solrace_admin(address, *argv)
            assert status == 2 and said in err and len(err.strip().splitlines()) == 1
        status, _, err = await solrace_admin(address, "flagged", token=None)
        assert status == 2 and "no admin token" in err


async def test_a_flagged_run_s_review_shows_each_reason_s_figures_and_threshold() -> None:
    async with running_server(admin_token=TOKEN) as server:
        fast = await member(server, "Fast")
        started = await fast.daily_start(GAME)
        race = started["race"]["race"]
        legal = started["race"]["you"]["legal"]
        for _ in range(25):  # a program's pace: no pause at all
            move = next(action for action in legal if action != "undo")
            legal = (await fast.act(race, move, legal=True))["legal"]
        await fast.resign(race)
        await fast.next_event("result")
        await asyncio.sleep(0.2)  # the review is written a moment after the result

        status, out, _ = await solrace_admin(url(server), "review", race)
        assert status == 0 and "[flagged" in out
        evidence = [line for line in out.splitlines() if line.startswith("    ")]
        pace = next(line for line in evidence if "a pace no person keeps" in line)
        assert "median_under_ms 200" in pace
        assert "think_median_ms " in pace and "actions 25" in pace


async def test_a_related_account_s_held_run_shows_who_it_is_related_to_and_how() -> None:
    async with running_server(admin_token=TOKEN) as server:
        first, second = await member(server, "First"), await member(server, "Second")
        races = []
        for client in (first, second):  # both on 127.0.0.1: related by their address
            started = await client.daily_start(GAME)
            races.append(started["race"]["race"])
            await client.resign(races[-1])
            await client.next_event("result")
        await asyncio.sleep(0.2)  # the review is written a moment after the result

        status, out, _ = await solrace_admin(url(server), "review", races[1])
        assert status == 0 and "[flagged" in out
        related = next(line for line in out.splitlines() if line.startswith("    an account"))
        assert "related to one that started the day's daily first: account First" in related
        assert f"player {first.player}" in related and "how address" in related
        status, out, _ = await solrace_admin(url(server), "flagged")
        assert races[0] not in out and "related to one that started" in out


async def test_an_operator_s_arena_is_made_listed_and_a_bad_one_refused_in_one_line() -> None:
    async with running_server(admin_token=TOKEN) as server:
        address = url(server)
        start = (int(time.time()) // 60 + 3) * 60  # a whole minute, ahead
        iso = dt.datetime.fromtimestamp(start, dt.UTC).strftime("%Y-%m-%dT%H:%M")
        made = ("arena", "create", "--game", "sanibel", "--title", " Friday night ")
        timing = ("--start", iso, "--minutes", "30", "--heat-size", "3", "--by", "Mia")
        status, out, _ = await solrace_admin(address, *made, *timing, "--rating-max", "2000")
        arena = f"sanibel-event-{iso.replace('-', '').replace(':', '')}"
        assert status == 0, out
        when = iso.replace("T", " ")
        said = f"Arena {arena}: Friday night (sanibel), from {when} UTC for 30 minutes, heats of 3."
        assert out == said + "\n"
        async with await member(server, "Ann") as ann:
            listed = next(a for a in await ann.list_arenas("sanibel") if a["id"] == arena)
        assert (listed["title"], listed["scheduled"], listed["heat_size"]) == (
            "Friday night",
            False,
            3,
        )
        assert listed["conditions"]["rating_max"] == 2000
        record = await server.store.arenas.arena(arena)
        assert record is not None and record.made_by == "Mia"
        short = ("--start", iso, "--minutes", "4", "--heat-size", "2", "--key", "short")
        status, _, err = await solrace_admin(address, *made, *short)
        assert status == 1
        assert "5 minutes to 6 hours" in err and "[bad_arena]" in err
        status, _, err = await solrace_admin(address, "arena", "create", "--game", "sanibel")
        assert status == 2 and "give --title, --start, --minutes, --heat-size" in err
