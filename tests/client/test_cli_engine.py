"""``solrace deal`` and ``solrace replay``: readable and JSON output, traces, refusals with
exit status 1, and bad command-line input as one line on stderr with exit status 2."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from protocol.games import rules_for
from protocol.replay import replay
from solrace.cli import main

GOLDEN = Path(__file__).parents[1] / "protocol" / "golden-deals.jsonl"
WON_18 = Path(__file__).parents[1] / "protocol" / "won-mount-sunflower-18.txt"
SOLRACE = Path(sys.executable).with_name("solrace")
# Mount Sunflower deal 1: AS tops t0 and AH tops t1.
OPENING = "t0 1 f\n\n# the two aces first\nt1 1 f\n"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def actions_file(tmp_path: Path, text: str) -> str:
    path = tmp_path / "actions.txt"
    path.write_text(text, encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------- deal


def test_deal_draws_the_layout_one_pile_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "deal", "sanibel", "1")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "Sanibel deal 1 (down=3, undo=True, up=7)"
    assert lines[1] == "t0: [3D AS KD] 7D 3S QS 4S AD 3H 10S"
    assert lines[11:] == [
        "w:  4C",
        "s:  3 cards, next first: 5S 6S AC",
        "f:  - - - - - - - -  (0/104 home)",
    ]


def test_deal_draws_the_reserves_of_shady_lanes(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(capsys, "deal", "shady_lanes", "2")
    assert "r0: 7D\nr1: 3S\nr2: QS\nr3: 7S\nw:  JD\n" in out


def test_deal_draws_several_deals_apart(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "mount_sunflower", "1", "2")
    assert status == 0
    first, second = out.split("\n\n")
    assert first.startswith("Mount Sunflower deal 1 (undo=True)\nt0: [JD 5H KH] AS\n")
    assert second.startswith("Mount Sunflower deal 2 (undo=True)\n")


def test_deal_json_is_the_golden_format_plus_the_foundations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for line in GOLDEN.read_text(encoding="utf-8").splitlines():
        golden = json.loads(line)
        status, out, _ = run(capsys, "deal", golden["game"], golden["number"], "--json")
        foundations = ",".join(["[]"] * 8)
        assert status == 0
        assert out == line[:-1] + f',"foundations":[{foundations}]}}' + "\n"


def test_deal_json_prints_one_object_per_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "deal", "mount_sunflower_easy", "1", "32000", "7", "--json")
    layouts = [json.loads(line) for line in out.splitlines()]
    assert status == 0
    assert [layout["number"] for layout in layouts] == ["1", "32000", "7"]
    assert list(layouts[0]) == [
        "game",
        "number",
        "tableau",
        "face_down",
        "waste",
        "stock",
        "foundations",
    ]


def test_deal_takes_game_options(capsys: pytest.CaptureFixture[str]) -> None:
    options = '{"down": 0, "up": 10}'
    _, out, _ = run(capsys, "deal", "sanibel", "1", "--json", "--options", options)
    layout = json.loads(out)
    assert layout["face_down"] == [0] * 10
    assert sum(len(pile) for pile in layout["tableau"]) == 100
    assert len(layout["stock"]) == 3


# ---------------------------------------------------------------- replay


def test_replay_json_prints_the_state_its_legal_actions_and_flags(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, err = run(
        capsys, "replay", "mount_sunflower", "1", actions_file(tmp_path, OPENING), "--json"
    )
    assert (status, err) == (0, "")
    summary = json.loads(out)
    rules = rules_for("mount_sunflower")
    expected = replay(rules, 1, ["t0 1 f", "t1 1 f"])
    assert list(summary) == ["state", "legal", "won", "stuck"]
    assert summary["state"] == expected.position.dealer_json("mount_sunflower", 1)
    assert summary["state"]["foundations"] == [["AS"], ["AH"], [], []]
    assert summary["legal"] == [str(a) for a in rules.legal_actions(expected)]
    assert summary["legal"][-1] == "undo"
    assert (summary["won"], summary["stuck"]) == (False, False)


def test_replay_reads_standard_input_by_default(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(OPENING))
    status, out, _ = run(capsys, "replay", "mount_sunflower", "1", "--json")
    assert status == 0
    assert json.loads(out)["state"]["foundations"] == [["AS"], ["AH"], [], []]


def test_replay_trace_prints_one_line_per_position_the_start_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = actions_file(tmp_path, OPENING + "deal\n")
    status, out, _ = run(capsys, "replay", "mount_sunflower", "1", path, "--json", "--trace")
    lines = [json.loads(line) for line in out.splitlines()]
    rules = rules_for("mount_sunflower")
    assert status == 0
    assert len(lines) == 4
    assert lines[0]["state"] == rules.deal(1).dealer_json("mount_sunflower", 1)
    assert "undo" not in lines[0]["legal"]
    assert [len(line["state"]["stock"]) for line in lines] == [24, 24, 24, 17]


def test_replay_trace_draws_each_position_after_its_action(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = actions_file(tmp_path, OPENING)
    _, out, _ = run(capsys, "replay", "mount_sunflower", "1", path, "--trace")
    headings = [line for line in out.splitlines() if line.startswith("---")]
    assert headings == ["--- Mount Sunflower deal 1", "--- after t0 1 f", "--- after t1 1 f"]
    assert "legal: t0 1 f | t1 1 f | t2 1 t3 | t3 1 t4 | deal | auto" in out


def test_replay_reports_a_won_game(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "replay", "mount_sunflower", "18", str(WON_18), "--json")
    summary = json.loads(out)
    assert status == 0
    assert (summary["won"], summary["stuck"], summary["legal"]) == (True, False, ["undo"])
    assert [len(pile) for pile in summary["state"]["foundations"]] == [13] * 4


def test_replay_of_no_action_is_the_deal_neither_won_nor_stuck(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run(capsys, "replay", "sanibel", "1", actions_file(tmp_path, ""), "--json")
    summary = json.loads(out)
    assert status == 0
    assert summary["state"] == rules_for("sanibel").deal(1).dealer_json("sanibel", 1)
    assert (summary["won"], summary["stuck"]) == (False, False)


def test_an_illegal_action_stops_the_replay_with_status_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = actions_file(tmp_path, "deal\ndeal\ndeal\ndeal\nundo\n")
    status, out, err = run(capsys, "replay", "sanibel", "1", path, "--json")
    assert (status, err) == (1, "")
    assert json.loads(out) == {
        "error": {
            "index": 3,
            "action": "deal",
            "code": "stock_empty",
            "message": "the stock is empty",
        }
    }


def test_a_malformed_action_stops_the_replay_with_status_1(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = actions_file(tmp_path, "t0 1 f\nt0 one t1\n")
    status, out, _ = run(capsys, "replay", "mount_sunflower", "1", path, "--json")
    error = json.loads(out)["error"]
    assert status == 1
    assert (error["index"], error["action"], error["code"]) == (1, "t0 one t1", "malformed_action")


def test_a_refused_action_is_readable_without_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = actions_file(tmp_path, "t2 1 t0\n")
    status, out, _ = run(capsys, "replay", "mount_sunflower", "1", path)
    assert status == 1
    assert out == (
        "action 0 ('t2 1 t0') refused: 3♣ cannot go on A♠: it needs a 4 of any suit "
        "[does_not_fit]\n"
    )


# ---------------------------------------------------------------- bad command-line input


def not_utf8(tmp_path: Path) -> str:
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"t0 1 f\n\xff\xfe\n")
    return str(path)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["deal", "klondike", "1"], "'klondike' is not a game here"),
        (["deal", "sanibel", "0"], "deal numbers run from 1 to 99999999999999999999"),
        (["deal", "sanibel", "100000000000000000000"], "is not a deal number"),
        (["deal", "sanibel", "1", "x"], "'x' is not a deal number"),
        (["deal", "sanibel", "1", "--options", '{"down":'], "--options is not JSON"),
        (["deal", "sanibel", "1", "--options", "[1]"], "--options must be a JSON object"),
        (["deal", "sanibel", "1", "--options", '{"down": 9}'], "Sanibel deals at most 10"),
        (["deal", "shady_lanes", "1", "--options", '{"up": 9}'], "has no option 'up'"),
        (["deal", "sanibel"], "the following arguments are required: NUMBER"),
        (["replay", "nope", "1", "-"], "'nope' is not a game here"),
        (["replay", "sanibel", "-4", "-"], "error:"),
        (["replay", "sanibel", "1", "/nonexistent/actions"], "No such file or directory"),
        (["replay", "sanibel", "1", "."], "Is a directory"),
        (["replay", "sanibel", "1", "NOT_UTF8"], "is not UTF-8 text"),
        ([], "the following arguments are required: COMMAND"),
        (["shuffle"], "invalid choice: 'shuffle'"),
    ],
)
def test_bad_command_line_input_is_one_line_on_stderr_and_status_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str], says: str
) -> None:
    argv = [not_utf8(tmp_path) if word == "NOT_UTF8" else word for word in argv]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert err.count("\n") == 1
    assert "error" in err
    assert says in err
    assert "Traceback" not in err


def test_standard_input_that_is_not_utf8_is_refused_with_status_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stdin = io.TextIOWrapper(io.BytesIO(b"deal\n\xff\n"), encoding="utf-8", errors="strict")
    monkeypatch.setattr(sys, "stdin", stdin)
    status, out, err = run(capsys, "replay", "sanibel", "1")
    assert (status, out) == (2, "")
    assert err == "error: solrace replay: standard input is not UTF-8 text\n"


# ---------------------------------------------------------------- the installed command


def test_the_installed_command_replays_from_a_pipe() -> None:
    done = subprocess.run(
        [str(SOLRACE), "replay", "mount_sunflower", "1", "-", "--json", "--trace"],
        input=OPENING,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (done.returncode, done.stderr) == (0, "")
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [line["state"]["foundations"][:2] for line in lines] == [
        [[], []],
        [["AS"], []],
        [["AS"], ["AH"]],
    ]


def test_the_installed_command_refuses_bad_input_with_status_2_and_no_traceback() -> None:
    done = subprocess.run(
        [str(SOLRACE), "deal", "sanibel", "123456789012345678901"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == "solrace: error: '123456789012345678901' is not a deal number\n"
