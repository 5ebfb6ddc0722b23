"""docs/protocol.md is what an outside client is written from: every close code the server
uses and every error code it can answer with is in it (found by reading the source, so a
new one cannot be added without documenting it)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from harness import player, running_server, winning_actions
from websockets.frames import CloseCode

from protocol.notation import parse_action

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*(ROOT / "server").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")]


def section(document: str, heading: str) -> str:
    text = (ROOT / "docs" / document).read_text()
    return re.split(rf"^#+ {re.escape(heading)}.*$", text, flags=re.M)[1].split("\n## ")[0]


def first_json_example(document: str, heading: str) -> dict[str, object]:
    """The first ```json block under ``heading``, read as JSON (so it must be valid)."""
    block = section(document, heading).split("```json\n", 1)[1].split("```", 1)[0]
    example: dict[str, object] = json.loads(block)
    return example


def codes_in_first_column(text: str) -> set[str]:
    return {
        code
        for row in text.splitlines()
        if row.startswith("| ")
        for code in re.findall(r"`([a-z_0-9]+)`|^\| (\d{4}) \|", row.split("|")[1])
        for code in code
        if code
    }


def test_every_close_code_the_server_uses_is_documented() -> None:
    used: set[int] = {1000, 1009, 1011}  # websockets' own: normal, too big, no pong
    for path in SOURCES:
        source = path.read_text()
        used.update(
            int(n)
            for n in re.findall(r"\b(?:code=|CLOSE_\w+ = |close_soon\([^,]+, )(\d{4})\b", source)
        )
        used.update(CloseCode[name].value for name in re.findall(r"CloseCode\.([A-Z_]+)", source))
    table = section("protocol.md", "Close codes")
    documented = {int(code) for code in re.findall(r"^\| (\d{4}) \|", table, flags=re.M)}
    assert used <= documented, f"undocumented close codes: {sorted(used - documented)}"


def test_every_error_code_in_the_source_is_documented() -> None:
    used: set[str] = set()
    for path in SOURCES:
        source = path.read_text()
        used.update(
            re.findall(
                r'(?:Error|Refused|Action|BadGame)\([^()]*?"([a-z]+_[a-z_]+)"\s*,?\s*\)',
                source,
                flags=re.S,
            )
        )
        used.update(re.findall(r'^\s+code = "([a-z]+_[a-z_]+)"$', source, flags=re.M))
        used.update(re.findall(r'"(store_unavailable|rate_limited|internal_error)"', source))
    documented = codes_in_first_column(section("protocol.md", "Error codes"))
    documented |= codes_in_first_column(section("engine.md", "Error codes"))
    assert used, "the scan found the codes"
    assert used <= documented, f"undocumented error codes: {sorted(used - documented)}"


async def test_the_race_log_example_has_the_fields_and_notation_the_server_sends() -> None:
    example = first_json_example("protocol.md", "`race_log`")
    async with running_server(countdown_ms=50) as server:
        ann, bob = await player(server, "Ann"), await player(server, "Bob")
        race = (await ann.create_race("mount_sunflower", deal=18))["race"]
        await bob.join_race(race)
        for client in (ann, bob):
            await client.next_event("started")
        for action in [*winning_actions("mount_sunflower", 18)[:2], "undo"]:
            await ann.act(race, action)
        for client in (ann, bob):
            await client.resign(race)
        log = await bob.race_log(race)
    assert set(example) == set(log)
    assert set(example["settings"]) == set(log["settings"])  # type: ignore[arg-type]
    racer = example["racers"][0]  # type: ignore[index]
    assert set(racer) == set(log["racers"][0])
    for told in (racer["actions"], log["racers"][0]["actions"]):
        assert told and all(text == str(parse_action(text)) for _, text, _ in told), told


def test_store_unavailable_is_answered_with_one_sentence_wherever_it_is_said() -> None:
    said = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in SOURCES
        for n, line in enumerate(path.read_text().splitlines(), start=1)
        if '"store_unavailable"' in line
    ]
    assert len(said) == 1 and said[0].startswith("server/store/base.py:"), said
