"""The README's two commands set up a fresh machine (Debian 12, root): the test command
first runs ``.ci/system-packages``, which installs with apt-get the system programs the
tests need (Debian's chromium, redis-server, redis-cli (package redis-tools),
redis-sentinel, haproxy, npm, faketime, and promtool and prometheus from the package
prometheus, asked for once) when they are missing,
and does nothing when they are there; ``.ci/run`` runs that same command and installs
nothing itself.

The script runs for real: with a PATH where the programs are missing and ``apt-get`` is a
stand-in that records what it was asked, with one where they are all present, and on this
machine as it is."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ".ci/system-packages"
# The programs the tests run, and the Debian package of each.
NEEDED = {
    "chromium": "chromium",
    "redis-server": "redis-server",
    "redis-cli": "redis-tools",  # the tests' Redis Cluster is made with it
    "redis-sentinel": "redis-sentinel",
    "haproxy": "haproxy",
    "npm": "npm",
    "faketime": "faketime",
    "promtool": "prometheus",  # the one whose package is named otherwise
    "prometheus": "prometheus",
}


def readme_commands() -> list[str]:
    """The lines of the README's first ``sh`` block."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), re.DOTALL)
    assert block is not None
    return block.group(1).splitlines()


def test_the_readme_starts_with_two_commands_the_second_installs_system_packages_first() -> None:
    serve, tests = readme_commands()
    assert serve.endswith(".venv/bin/solrace serve")
    steps = [step.strip() for step in tests.split("&&")]
    assert steps[0] == f"sh {SCRIPT}"
    assert steps[-1] == ".venv/bin/pytest -q -n 4"  # four workers: the tests mostly wait


def test_ci_runs_the_readme_test_command_and_installs_nothing_itself() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    assert "apt-get" not in run
    (extract,) = [line for line in run.splitlines() if line.startswith("test_command=")]
    found = subprocess.run(
        ["bash", "-c", f'{extract}\nprintf %s "$test_command"'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert found.stdout == readme_commands()[1]
    assert 'bash -c "$test_command"' in run


def fake_bin(directory: Path, programs: dict[str, str]) -> Path:
    """A directory of stand-in programs (name -> shell script body) and a link to ``id``,
    the one real program the script uses; the only PATH entry in these tests."""
    directory.mkdir()
    for name, body in programs.items():
        path = directory / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    real_id = shutil.which("id")
    assert real_id is not None
    (directory / "id").symlink_to(real_id)
    return directory


def run_script(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["/bin/sh", SCRIPT],
        cwd=ROOT,
        env={"PATH": str(path), "HOME": os.environ.get("HOME", "/root")},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_script_installs_each_missing_program_with_apt_get_quietly(tmp_path: Path) -> None:
    calls = tmp_path / "apt-get calls"
    apt_get = f'echo "$*" >> {shlex.quote(str(calls))}'
    bin_dir = fake_bin(tmp_path / "bin", {"apt-get": apt_get, "sudo": 'exec "$@"'})
    done = run_script(bin_dir)
    assert done.returncode == 0, done.stderr
    assert (done.stdout, done.stderr) == ("", "")
    update, install = calls.read_text().splitlines()
    assert update.split() == ["update", "-qq"]
    words = install.split()
    assert words[0] == "install" and {"-y", "-qq"} <= set(words)
    assert sorted(w for w in words if not w.startswith("-") and w != "install") == sorted(
        set(NEEDED.values())
    )  # each package once


def test_the_script_does_nothing_when_every_program_is_there(tmp_path: Path) -> None:
    present = {name: "exit 0" for name in NEEDED}
    bin_dir = fake_bin(tmp_path / "bin", {**present, "apt-get": "echo apt-get was run >&2; exit 9"})
    done = run_script(bin_dir)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_script_on_this_machine_is_a_quick_no_op() -> None:
    """Everything is installed here already: exit 0 at once, saying nothing."""
    done = subprocess.run(
        ["sh", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=10, check=False
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
