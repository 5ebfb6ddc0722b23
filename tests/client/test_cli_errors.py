"""What the command line says when a command fails on the way: a sentence a person
understands, never a bare "error" (a timeout's exception carries no text of its own)."""

from __future__ import annotations

import argparse

import pytest

import solrace.cli
from solrace.cli import USAGE_ERROR, main


class FailsWith:
    """A command whose run raises ``error``."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def run(self, args: argparse.Namespace) -> int:
        raise self.error


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (TimeoutError(), "solrace: error: timed out (TimeoutError)"),
        (ConnectionRefusedError(111, "Connection refused"), "solrace: error: Connection refused"),
        (FileNotFoundError(2, "No such file or directory", "x.json"), "solrace: error: No such"),
    ],
)
def test_a_failure_on_the_way_is_said_in_words(
    error: OSError, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = argparse.ArgumentParser()
    parser.set_defaults(module=FailsWith(error))
    monkeypatch.setattr(solrace.cli, "build_parser", lambda: parser)
    assert main([]) == USAGE_ERROR
    told = capsys.readouterr().err
    assert told.startswith(said), told
