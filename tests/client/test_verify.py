"""``solrace verify``, run as a real process against a real server: a finished race and a
past day's board check out (exit 0), a saved copy changed in any way does not (exit 1,
each mismatch printed), and what cannot be checked yet or at all says why."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

import pytest
from harness import member, player, race_alone_resigned, running_server, url, winning_actions
from redis_server import free_port

from protocol.daily import DAY_MS, day_of
from protocol.race import Now
from protocol.signing import Signer, fingerprint
from server.store import MemoryStore

FAIRNESS = Path(__file__).resolve().parents[2] / "docs" / "fairness.md"

SOLRACE = str(Path(sys.executable).with_name("solrace"))
GAME, DEAL = "mount_sunflower", 18


@pytest.fixture(autouse=True)
def own_known_keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's ``solrace`` keeps its pinned keys in the test's own folder, never the
    user's, and its default server is one that is not there; the pins' file is returned."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("SOLRACE_SERVER", f"ws://127.0.0.1:{free_port()}/ws")
    return tmp_path / "config" / "solrace" / "known-keys.json"


async def solrace(*args: str) -> tuple[int, str, str]:
    """Run ``solrace`` (without blocking the server in this process); status, out, err."""
    process = await asyncio.create_subprocess_exec(
        SOLRACE, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_a_finished_race_checks_out_and_a_changed_copy_of_it_does_not(
    tmp_path: Path,
) -> None:
    saved = tmp_path / "race.json"
    async with running_server(countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race(GAME))["race"]  # a random, secret deal
        await bob.join_race(race)
        await ann.next_event("started")
        await bob.resign(race)
        await ann.resign(race)
        await ann.next_event("result")
        status, out, _ = await solrace(
            "verify", "race", race, "--server", url(server), "--save", str(saved)
        )
        assert status == 0, out
        committed = json.loads(saved.read_text())["commitment"]
        lines = out.splitlines()
        assert lines[0] == f"commitment: {committed} (compare it with the one shown before play)"
        assert lines[1].startswith(f"NEW KEY: first use of {url(server)}: pinned its key")
        assert lines[2] == "signatures: all 1 by the keys pinned for this server"
        assert lines[3].startswith(f"{race}: everything matches (2 run(s) replayed;")

        status, out, _ = await solrace("verify", "race", "0" * 16, "--server", url(server))
        assert status == 1 and "[race_not_found]" in out
        address = url(server)

    log = json.loads(saved.read_text())
    log["deal"] = str(int(log["deal"]) + 1)
    saved.write_text(json.dumps(log))
    pinned_for = ("--server", address)  # gone now: its pinned key checks the file
    status, out, _ = await solrace("verify", "race", "--file", str(saved), *pinned_for)
    assert status == 1
    assert f"{race}: 3 mismatch(es):\n" in out and "  - the commitment " in out
    assert "  - the result's deal is not the log's" in out
    assert "  - the server's signature: its signature does not match its contents" in out


async def test_a_past_day_checks_out_against_its_commitment_and_a_reordered_board_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, saved = MemoryStore(), tmp_path / "day.json"
    today = day_of(int(time.time() * 1000))
    await store.days.set_daily_deal(GAME, today, DEAL, "cd" * 16)
    async with running_server(store) as server:
        for name, actions in (("Ann", 40), ("Bob", None), ("Cy", 10)):
            async with await member(server, name) as client:
                attempt = (await client.daily_start(GAME))["race"]["race"]
                for action in winning_actions(GAME, DEAL)[:actions]:
                    await client.act(attempt, action)
                if actions is not None:
                    await client.resign(attempt)
        status, out, _ = await solrace("verify", "daily", GAME, today, "--server", url(server))
        assert status == 1 and "the day is not over" in out

        for clock in ("server.edge.gateway.now", "server.desks.session_desk.now"):
            monkeypatch.setattr(  # the server's clock: the day is over
                clock, lambda: Now(int(time.monotonic() * 1000), int(time.time() * 1000) + DAY_MS)
            )
        address = url(server)
        args = ("verify", "daily", GAME, today, "--server", address, "--save", str(saved))
        status, out, _ = await solrace(*args)
        assert status == 0, out
        assert "signatures: all 4 by the keys pinned for this server" in out
        assert f"daily {GAME} {today}: everything matches (3 run(s) replayed;" in out

    day = json.loads(saved.read_text())
    assert [entry["name"] for entry in day["board"]["top"]] == ["Bob", "Ann", "Cy"]
    top = day["board"]["top"]
    top[1], top[2] = top[2], top[1]
    day["logs"][1], day["logs"][2] = day["logs"][2], day["logs"][1]
    saved.write_text(json.dumps(day))
    status, out, _ = await solrace("verify", "daily", "--file", str(saved), "--server", address)
    assert status == 1
    assert (
        "  - the board's places are not 1, 2, 3, ... in order: an entry is missing\n"
        "  - the board's order is not the ranking rule's\n"
        "  - the server's signature: its signature does not match its contents"
    ) in out


async def test_verify_without_a_server_or_with_bad_arguments_says_so_with_status_2() -> None:
    status, _, err = await solrace(
        "verify", "race", "abc", "--server", f"ws://127.0.0.1:{free_port()}/ws"
    )
    assert status == 2 and err.startswith("solrace verify: ")
    status, _, err = await solrace("verify", "daily", GAME, "yesterday")
    assert status == 2 and "solrace verify daily" in err
    status, _, err = await solrace("verify", "race")
    assert (status, err) == (2, "error: solrace verify race: give a RACE id, or --file\n")


async def test_a_receipt_proves_the_log_holds_the_actions_told_and_a_malformed_file_is_one_line(
    tmp_path: Path,
) -> None:
    saved = tmp_path / "race.json"
    async with running_server(countdown_ms=50) as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        receipt = ""
        for action in winning_actions(GAME, DEAL)[:4]:
            receipt = (await ann.act(race, action))["receipt"]
        await ann.resign(race)
        args = ("verify", "race", race, "--server", url(server), "--save", str(saved))
        status, out, _ = await solrace(*args, "--receipt", receipt)
        assert status == 0 and "receipt: Ann's 4 action(s), all of them, are exactly" in out
    log = json.loads(saved.read_text())
    log["racers"][0]["actions"].pop()  # an accepted action dropped: the log still replays
    del log["signature"]
    saved.write_text(json.dumps(log))
    status, out, _ = await solrace("verify", "race", "--file", str(saved), "--receipt", receipt)
    assert status == 1 and "the receipt matches no racer's log" in out
    saved.write_text(json.dumps({**log, "deal": "twelve"}))
    status, out, err = await solrace("verify", "race", "--file", str(saved))
    assert status == 2 and "Traceback" not in err and len(err.splitlines()) == 1


async def test_a_past_day_s_deal_is_shown_to_be_the_rule_s_choice_from_its_chained_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved = tmp_path / "day.json"
    async with running_server(MemoryStore()) as server:  # the rule's deal, not certified
        async with await member(server, "Ann") as ann:
            attempt = (await ann.daily_start(GAME))["race"]["race"]
            await ann.resign(attempt)
            today = (await ann.daily_board(GAME))["day"]
        for clock in ("server.edge.gateway.now", "server.desks.session_desk.now"):
            monkeypatch.setattr(
                clock, lambda: Now(int(time.monotonic() * 1000), int(time.time() * 1000) + DAY_MS)
            )
        args = ("verify", "daily", GAME, today, "--server", url(server), "--choice")
        status, out, _ = await solrace(*args, "--save", str(saved))
        assert status == 0, out
        assert "choice: the deal is the rule's choice from the day's seed" in out
    day = json.loads(saved.read_text())
    day["board"]["chain"]["seed"] = "0" * 64  # another seed: not in the chain
    saved.write_text(json.dumps(day))
    status, out, _ = await solrace("verify", "daily", "--file", str(saved), "--choice")
    assert status == 1 and "does not hash to the chain's anchor" in out


async def finished_race(tmp_path: Path) -> tuple[str, Path, Path]:
    """A race played to its end on a server now gone, its log saved and checked once
    (which pinned the server's key); the server's address and the two files."""
    saved, keys = tmp_path / "race.json", tmp_path / "keys.json"
    async with running_server(countdown_ms=50) as server:
        race = await race_alone_resigned(await player(server, "Ann"), GAME, DEAL)
        args = ("verify", "race", race, "--server", url(server), "--save", str(saved))
        status, out, _ = await solrace(*args)
        assert status == 0, out
        keys.write_text(json.dumps(server.signing_keys()))
        return url(server), saved, keys


async def test_a_log_re_signed_with_another_key_fails_against_the_key_pinned_on_first_use(
    tmp_path: Path, own_known_keys: Path
) -> None:
    server, saved, real_keys = await finished_race(tmp_path)
    assert own_known_keys.exists()
    forger = Signer.new()
    forged = forger.sign({**json.loads(saved.read_text()), "race": "f" * 16})
    forged_file, forged_keys = tmp_path / "forged.json", tmp_path / "forged-keys.json"
    forged_file.write_text(json.dumps(forged))
    forged_keys.write_text(
        json.dumps({"keys": [{"key": forger.key_id, "public_key": forger.public_hex}]})
    )
    checks = ("verify", "race", "--file", str(forged_file), "--keys", str(forged_keys))
    status, out, _ = await solrace(*checks, "--server", server)
    assert status == 1
    new_key = f"key {forger.key_id} (fingerprint {fingerprint(forger.public_hex)})"
    assert f"NEW KEY: {new_key} is not pinned for {server}" in out
    assert f"it is signed with key {forger.key_id!r}, which is not pinned for {server}" in out

    real = json.loads(real_keys.read_text())["current"]
    status, out, _ = await solrace(*checks, "--pin", real)  # a fingerprint from the docs
    assert status == 1 and "which is not the key with the fingerprint given (--pin)" in out
    status, out, _ = await solrace(*checks, "--pin", "0" * 64)
    assert status == 1 and "signatures: NOT CHECKED" in out
    status, out, _ = await solrace(*checks, "--pin", fingerprint(forger.public_hex))
    assert "signatures: all 1 by the key with the fingerprint given (--pin)" in out
    status, out, _ = await solrace("verify", "race", "--file", str(saved), "--pin", real)
    assert status == 0, out  # the pinned key is kept: no --keys needed for it


async def test_unchecked_signatures_do_not_look_like_success_and_a_bad_keys_file_is_refused(
    tmp_path: Path,
) -> None:
    _, saved, _ = await finished_race(tmp_path)
    status, out, _ = await solrace("verify", "race", "--file", str(saved))  # no key at all
    assert status == 1
    assert "signatures: NOT CHECKED" in out and "everything matches" not in out
    not_keys = tmp_path / "not-keys.json"
    for text in ('{"players": 3}', "[1, 2]", '{"keys": [{"key": "ab"}]}', "not json"):
        not_keys.write_text(text)
        status, out, err = await solrace(
            "verify", "race", "--file", str(saved), "--keys", str(not_keys)
        )
        assert (status, out) == (2, ""), text
        assert err.startswith(f"error: solrace verify: {not_keys} is not a keys file"), err
        assert len(err.splitlines()) == 1


async def test_an_earlier_action_s_receipt_does_not_pass_as_proof_of_the_whole_log() -> None:
    async with running_server(countdown_ms=50) as server:
        ann = await player(server, "Ann")
        race = (await ann.create_race(GAME, deal=DEAL, max_players=1))["race"]
        await ann.next_event("started")
        told = [(await ann.act(race, a))["receipt"] for a in winning_actions(GAME, DEAL)[:4]]
        await ann.resign(race)
        args = ("verify", "race", race, "--server", url(server), "--receipt")
        status, out, _ = await solrace(*args, told[2])
        assert status == 1
        assert "receipt: Ann's first 3 action(s) of 4 match it, not the whole log" in out
        assert (
            "1 action(s) of Ann after the receipt's that it does not prove you were told of" in out
        )
        status, out, _ = await solrace(*args, told[3])
        assert status == 0 and "receipt: Ann's 4 action(s), all of them, are exactly" in out
    proves = " ".join(FAIRNESS.read_text().split("**What a receipt proves.**")[1].split())
    assert "`receipt: Ann's first 3 action(s) of 4 match it, not the whole log`" in proves
    assert "passes only when R is the receipt after the *last* action" in proves


async def test_a_deeply_nested_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    nested = tmp_path / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    _, saved, _ = await finished_race(tmp_path)
    for args in (("--file", str(nested)), ("--file", str(saved), "--keys", str(nested))):
        status, out, err = await solrace("verify", "race", *args)
        assert (status, out) == (2, "") and "Traceback" not in err, err
        assert len(err.splitlines()) == 1 and "too deeply nested" in err


async def test_an_ended_arena_checks_out_and_a_changed_standing_does_not(tmp_path: Path) -> None:
    saved = tmp_path / "arena.json"
    async with running_server(arena_every_ms=3_600_000, sweep_every_s=0.2) as server:
        ann, bob = await member(server, "Ann"), await member(server, "Bob")
        arena = next(a for a in await ann.list_arenas(GAME) if a["status"] == "running")
        for client in (ann, bob):
            await client.join_arena(arena["id"])
        heat = (await ann.next_event("paired", timeout=15)).data["race"]["race"]
        for client in (ann, bob):
            started = await client.next_event("started")
            await client.act(heat, started.data["you"]["legal"][0])
            await client.resign(heat)
        after = Now(int(time.monotonic() * 1000), arena["end_ms"] + 1)
        for _ in range(100):  # the heat is over, scored, and the arena ended
            await server.arenas.tick(after)
            record = await server.store.arenas.arena(arena["id"])
            if record is not None and record.status == "ended":
                break
            await asyncio.sleep(0.05)
        address = url(server)
        args = ("verify", "arena", arena["id"], "--server", address, "--save", str(saved))
        status, out, _ = await solrace(*args)
        assert status == 0, out
        assert "signatures: all 2 by the keys pinned for this server" in out
        assert f"arena {arena['id']}: everything matches (1 heat(s) replayed" in out
        for client in (ann, bob):
            await client.close()

    data = json.loads(saved.read_text())
    data["result"]["standings"][1]["points"] += 1
    saved.write_text(json.dumps(data))
    status, out, _ = await solrace("verify", "arena", "--file", str(saved), "--server", address)
    assert status == 1
    assert "  - place 2 of the standings is" in out
    assert "  - the server's signature: its signature does not match its contents" in out
