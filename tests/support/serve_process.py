"""``solrace serve`` as a real process for tests: started on a given port (so a process
started after it serves the same address), its log kept in a file, killed or stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

SOLRACE = str(Path(sys.executable).with_name("solrace"))


def children(pid: int) -> list[int]:
    """The processes ``pid`` started that still run."""
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(child) for child in text.split()]


class ServeProcess:
    def __init__(
        self, port: int, directory: Path, *args: str, host: str = "127.0.0.1", **env: str
    ) -> None:
        self.host = host
        self.port = port
        self.directory = directory
        self.args = args
        self.env = env
        self.process: subprocess.Popen[str] | None = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"ws://{self.host}:{self.port}/ws"

    @property
    def log_path(self) -> Path:
        return self.directory / f"serve-{self.port}-{self.starts}.log"

    def start(self) -> ServeProcess:
        """Start the server and wait for its banner (it is serving then)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        log = self.log_path.open("w")
        self.process = subprocess.Popen(
            [
                SOLRACE,
                "serve",
                "--host",
                self.host,
                "--port",
                str(self.port),
                "--spill-file",
                str(self.directory / "spill.jsonl"),
                *self.args,
            ],
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            env={**os.environ, **self.env},
        )
        assert self.process.stdout is not None
        banner = self.process.stdout.readline()
        assert "serving on http://" in banner, banner + self.log_path.read_text()
        return self

    def kill(self) -> None:
        """kill -9: no goodbye, no writes finished."""
        self._signal(signal.SIGKILL)

    def terminate(self, timeout_s: float = 30) -> int:
        """SIGTERM (a deploy); the exit status."""
        self._signal(signal.SIGTERM)
        return self.wait(timeout_s)

    def wait(self, timeout_s: float = 30) -> int:
        """The exit status; a process still running after ``timeout_s`` fails the test with
        the end of its log (what it was doing when it did not stop)."""
        assert self.process is not None
        try:
            code = self.process.wait(timeout_s)
        except subprocess.TimeoutExpired:
            tail = self.log_path.read_text()[-4000:]
            raise AssertionError(f"solrace serve still runs after {timeout_s} s:\n{tail}") from None
        self.process = None
        return code

    def _signal(self, how: signal.Signals) -> None:
        assert self.process is not None
        self.process.send_signal(how)
        if how is signal.SIGKILL:
            self.process.wait(10)
            self.process = None

    def log(self) -> list[dict[str, Any]]:
        """The JSON log lines of the last start."""
        lines = self.log_path.read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(f"http://{self.host}:{self.port}{path}", timeout=5) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def __enter__(self) -> ServeProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)
            self.process = None
