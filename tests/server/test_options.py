"""The server's options are declared once (server/options.py): the argparse options, the
settings, their checks and the options table of docs/server.md are all made from that list."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import pytest

from server.command import settings_from
from server.config import Settings
from server.options import DOCS, OPTIONS, Option, documented, main, markdown
from solrace.cli import build_parser

NUMBERS = [option for option in OPTIONS if option.kind in (int, float)]


def test_the_options_table_in_the_docs_is_the_one_made_from_the_list() -> None:
    assert documented(DOCS.read_text()) == markdown(), (
        "docs/server.md's options table is not the list's: run "
        "`python -m server.options --write-docs`"
    )


def test_the_table_is_printed_by_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--markdown"]) == 0
    assert capsys.readouterr().out == markdown()
    assert main(["--what"]) == 2  # and nothing is written


def test_every_option_sets_a_setting_of_its_own_type() -> None:
    types = {field.name: field.type for field in fields(Settings)}
    for option in OPTIONS:
        assert option.setting in types, option.flag
        said = str(types[option.setting])
        assert said.startswith(option.kind.__name__), (option.flag, said)
    assert len({option.setting for option in OPTIONS}) == len(OPTIONS)
    assert len({option.variable for option in OPTIONS}) == len(OPTIONS)


@pytest.mark.parametrize("option", NUMBERS, ids=[option.flag for option in NUMBERS])
def test_every_number_comes_from_its_variable_and_its_flag_wins_over_it(
    option: Option, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(option.variable, "7")
    told = settings_from(build_parser().parse_args(["serve"]))
    assert getattr(told, option.setting) == 7
    given = settings_from(build_parser().parse_args(["serve", option.flag, "9"]))
    assert getattr(given, option.setting) == 9


def test_lists_come_from_repeated_flags_or_a_comma_separated_variable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOLRACE_ORIGINS", "https://a.example,,https://b.example")
    told = settings_from(build_parser().parse_args(["serve"]))
    assert told.origins == ("https://a.example", "https://b.example")
    args = ["serve", "--origin", "https://c.example", "--trusted-proxy", "10.0.0.0/8"]
    given = settings_from(build_parser().parse_args(args))
    assert (given.origins, given.trusted_proxies) == (("https://c.example",), ("10.0.0.0/8",))


def test_an_empty_admin_token_or_path_is_none(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SOLRACE_ADMIN_TOKEN", "")  # docker-compose.yml's when unset
    monkeypatch.setenv("SOLRACE_SPILL_FILE", "")
    settings = settings_from(build_parser().parse_args(["serve"]))
    assert (settings.admin_token, settings.spill_path) == (None, None)
    spill = tmp_path / "spill.jsonl"
    given = settings_from(build_parser().parse_args(["serve", "--spill-file", str(spill)]))
    assert given.spill_path == spill


def test_a_spectator_chunk_under_one_is_one() -> None:
    args = ["serve", "--spectator-chunk", "0", "--spectator-pause-ms", "-3"]
    settings = settings_from(build_parser().parse_args(args))
    assert (settings.spectator_chunk, settings.spectator_pause_ms) == (1, 0.0)
