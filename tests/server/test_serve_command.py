"""``solrace serve`` as a real process: health check, environment settings, graceful
shutdown on SIGTERM that tells everyone and finishes its writes; docker-compose.yml."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from harness import SERVE_QUICKLY, member
from redis_server import free_port
from serve_process import ServeProcess, children

from protocol.daily import day_of
from server.store import open_store
from solrace.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[2]
SOLRACE = str(Path(sys.executable).with_name("solrace"))


def start_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [SOLRACE, "serve", *SERVE_QUICKLY, "--rank-new-accounts", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None
    banner = process.stdout.readline()
    assert "serving on http://" in banner, banner + (
        process.stderr.read() if process.stderr else ""
    )
    return process


def get_json(url: str) -> tuple[int, dict[str, object]]:
    with urllib.request.urlopen(url, timeout=5) as response:
        return response.status, json.loads(response.read())


async def test_serve_answers_healthz_and_takes_its_port_from_the_environment() -> None:
    port = free_port()
    process = start_serve(env={"SOLRACE_PORT": str(port)})
    try:
        status, body = get_json(f"http://127.0.0.1:{port}/healthz")
        assert status == 200 and body["status"] == "ok" and body["store"] == "ok"
    finally:
        process.terminate()
        assert process.wait(10) == 0


async def test_sigterm_tells_players_finishes_writes_and_exits_cleanly(redis_url: str) -> None:
    port = free_port()
    prefix = f"serve-test-{port}:"
    process = start_serve("--port", str(port), "--redis", redis_url, "--redis-prefix", prefix)
    try:
        ann = await member(f"ws://127.0.0.1:{port}/ws", "Ann")
        attempt = await ann.daily_start("mount_sunflower")
        race = attempt["race"]["race"]
        await ann.act(race, "deal")
        await ann.resign(race)  # the ranked run is written behind the player's back
        process.send_signal(signal.SIGTERM)
        shutdown = await ann.next_event("shutdown", timeout=10)
        assert "shutting down" in shutdown.data["reason"]
        assert process.wait(15) == 0
        assert ann.connection is not None
        await asyncio.wait_for(ann.connection.wait_closed(), 5)
        assert ann.connection.close_code == 1001
    finally:
        if process.poll() is None:
            process.kill()
    store = open_store(redis_url, prefix=prefix)
    try:
        board = await store.days.daily_board("mount_sunflower", attempt["day"], top=5)
        assert [entry.run.player for entry in board.top] == [ann.player]
        assert board.top[0].run.actions == 1 and not board.top[0].run.finished
        assert len(await store.races.actions(race)) == 1
    finally:
        await store.close()
    assert attempt["day"] == day_of(board.top[0].run.at_ms)


def test_the_ping_timeout_is_its_own_setting() -> None:
    from server.command import settings_from

    args = build_parser().parse_args(["serve", "--ping-interval", "5", "--ping-timeout", "7"])
    settings = settings_from(args)
    assert (settings.ping_interval_s, settings.ping_timeout_s) == (5.0, 7.0)
    defaults = settings_from(build_parser().parse_args(["serve", "--ping-interval", "5"]))
    assert defaults.ping_timeout_s == 20.0  # not silently the interval


def test_good_standing_s_figures_come_from_options_or_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from server.command import settings_from

    defaults = settings_from(build_parser().parse_args(["serve"]))
    assert (defaults.ranked_account_days, defaults.ranked_account_games) == (3, 10)
    monkeypatch.setenv("SOLRACE_RANKED_ACCOUNT_DAYS", "5")
    monkeypatch.setenv("SOLRACE_RANKED_ACCOUNT_GAMES", "0")
    told = settings_from(build_parser().parse_args(["serve"]))
    assert (told.ranked_account_days, told.ranked_account_games) == (5, 0)
    given = ["serve", "--ranked-account-days", "1", "--ranked-account-games", "2"]
    options = settings_from(build_parser().parse_args(given))
    assert (options.ranked_account_days, options.ranked_account_games) == (1, 2)


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def started_with_a_worker(server: ServeProcess) -> list[int]:
    """Start ``server`` and wait for its certification worker: its process id, in a list."""
    server.start()
    assert server.process is not None
    deadline = time.monotonic() + 30
    while not (workers := children(server.process.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert workers, "the server started no certification worker"
    return workers


def test_the_certification_worker_ends_when_its_server_is_killed(tmp_path: Path) -> None:
    with ServeProcess(free_port(), tmp_path, "--certify-budget-s", "1") as server:
        # it prepares today's and tomorrow's deals in its worker process
        workers = started_with_a_worker(server)
        server.kill()  # kill -9: the server cannot stop its worker itself
        deadline = time.monotonic() + 10
        while any(map(running, workers)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(map(running, workers))  # no orphan left holding a core or memory


BAD_SETTINGS = [
    (["--redis", "redis://[bad"], "--redis"),
    (["--redis", "http://x"], "--redis"),
    (["--redis", "redis://127.0.0.1:99999/0"], "--redis"),
    (["--redis", "redis://127.0.0.1:6379/zero"], "--redis"),
    (["--port", "99999"], "--port"),
    (["--port", "-1"], "--port"),
    (["--grace-ms", "-5"], "--grace-ms"),
    (["--countdown-ms", "-1"], "--countdown-ms"),
    (["--max-race-ms", "0"], "--max-race-ms"),
    (["--any-rating-after-ms", "-1"], "--any-rating-after-ms"),
    (["--rate", "0"], "--rate"),
    (["--burst", "0"], "--burst"),
    (["--auth-per-address", "0"], "--auth-per-address"),
    (["--ping-interval", "0"], "--ping-interval"),
    (["--ping-timeout", "-1"], "--ping-timeout"),
    (["--certify-budget-s", "-1"], "--certify-budget-s"),
    (["--drain-s", "-1"], "--drain-s"),
    (["--keep-race-logs-days", "0"], "--keep-race-logs-days"),
    (["--keep-identities-days", "0"], "--keep-identities-days"),
    (["--daily-secret", "short"], "--daily-secret"),
    (["--static-dir", "/nonexistent/solrace-static"], "--static-dir"),
    (["--spill-file", "/nonexistent/dir/spill.jsonl"], "--spill-file"),
    (["--host", "999.1.1.1"], "--host"),
    (["--signing-key", "/nonexistent/signing.pem"], "--signing-key"),
    (["--admin-token", "short"], "--admin-token"),
    (["--fair-play-solver-nodes", "-1"], "--fair-play-solver-nodes"),
    (["--ranked-account-days", "-1"], "--ranked-account-days"),
    (["--ranked-account-games", "-1"], "--ranked-account-games"),
    (["--signing-key", str(ROOT / "pyproject.toml")], "--signing-key"),
    (["--redis", f"redis://127.0.0.1:{free_port()}/0"], "--redis"),  # nobody listens there
    (["--max-clock-offset-ms", "0"], "--max-clock-offset-ms"),
    (["--redis-prefix", "a{b"], "--redis-prefix"),  # braces mark Redis Cluster hash tags
    (["--redis", f"redis://127.0.0.1:{free_port()}/0", "--redis-prefix", "a}"], "--redis-prefix"),
    (["--redis-sentinel", "127.0.0.1"], "--redis-sentinel"),  # no port
    (["--redis-sentinel", "127.0.0.1:0"], "--redis-sentinel"),
    (["--redis-sentinel", ","], "--redis-sentinel"),
    (["--redis-sentinel", ",".join(["127.0.0.1:26379"] * 17)], "--redis-sentinel"),
    (["--redis-sentinel", "127.0.0.1:26379", "--redis", "unix:///tmp/r.sock"], "--redis-sentinel"),
    (["--redis-sentinel", f"127.0.0.1:{free_port()}"], "--redis-sentinel"),  # nobody there
    (["--redis-cluster", "127.0.0.1"], "--redis-cluster"),  # no port
    (
        ["--redis-cluster", "127.0.0.1:7000", "--redis-sentinel", "127.0.0.1:26379"],
        "--redis-cluster",
    ),
    (["--redis-cluster", "127.0.0.1:7000", "--redis-wait-replicas", "1"], "--redis-cluster"),
    (["--redis-cluster", f"127.0.0.1:{free_port()}"], "--redis-cluster"),  # nobody there
    (["--redis-wait-replicas", "-1"], "--redis-wait-replicas"),
    (["--redis-wait-ms", "0"], "--redis-wait-ms"),
    (["--redis-wait-ms", "5000"], "--redis-wait-ms"),  # a batch's deadline would come first
]


@pytest.mark.timeout(30)  # a setting let through would serve until then
@pytest.mark.parametrize(
    ("args", "option"), BAD_SETTINGS, ids=[f"{n}{o}" for n, (_, o) in enumerate(BAD_SETTINGS)]
)  # ids the same in every xdist worker (a free port is not)
def test_every_bad_setting_is_one_sentence_naming_it_and_exit_status_2(
    args: list[str], option: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """In this process (the command's own ``main``; a real process's exit status is the
    next test's): status 2 and one line on standard error, before anything serves."""
    status = main(["serve", *SERVE_QUICKLY, "--port", "0", *args])
    done = capsys.readouterr()
    told = done.err.strip()
    assert status == 2, (args, status, told)
    assert "Traceback" not in told and len(told.splitlines()) == 1, (args, told)
    assert told.startswith(f"solrace: error: {option}"), (args, told)
    assert "serving on" not in done.out, args


FLAGS = [
    ("RANK_NEW_ACCOUNTS", "new_accounts_ranked_today", False),
    ("DAILY_CERTIFY", "daily_certify", True),
    ("HOLD_FLAGGED", "hold_flagged", True),
]


@pytest.mark.parametrize(("variable", "setting", "default"), FLAGS)
def test_every_boolean_variable_takes_the_usual_spellings_of_on_and_off(
    variable: str, setting: str, default: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from server.command import settings_from

    spellings = {"1": True, "true": True, "Yes": True, "ON": True, "0": False, "FALSE": False}
    spellings |= {"no": False, "Off": False, "": default}  # empty: as if unset
    for spelling, meant in spellings.items():
        monkeypatch.setenv(f"SOLRACE_{variable}", spelling)
        settings = settings_from(build_parser().parse_args(["serve"]))
        assert getattr(settings, setting) is meant, (variable, spelling)


@pytest.mark.timeout(30)  # a value taken as on or off would serve until then
@pytest.mark.parametrize("variable", [variable for variable, _, _ in FLAGS])
def test_a_boolean_variable_that_is_not_on_or_off_is_one_sentence_and_exit_status_2(
    variable: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``SOLRACE_RANK_NEW_ACCOUNTS=maybe`` was taken as on (anything but 0/false/no was)."""
    monkeypatch.setenv(f"SOLRACE_{variable}", "maybe")
    status = main(["serve", "--port", "0"])  # no option given: the variable counts
    told = capsys.readouterr().err.strip()
    assert status == 2 and len(told.splitlines()) == 1, told
    assert told.startswith(f"solrace: error: SOLRACE_{variable}: 'maybe'"), told


def test_a_port_in_use_is_one_sentence_and_exit_status_2() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [SOLRACE, "serve", *SERVE_QUICKLY, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1].startswith(
        f"solrace: error: --host/--port: cannot listen on 127.0.0.1:{port}"
    )


def test_sign_ins_never_wait_behind_the_certification_worker(tmp_path: Path) -> None:
    """The certification worker runs only on CPU nobody else wants (SCHED_IDLE), as the
    password hashing thread does: they share what the racers leave, so a sign-in on a fresh
    server never waits behind certification (it did while the worker was only niced and
    so always ran before the idle-class hashing)."""
    with ServeProcess(free_port(), tmp_path, "--certify-budget-s", "30") as server:
        workers = started_with_a_worker(server)

        async def register() -> None:
            async with await member(server.url, "Ann"):
                pass

        asyncio.run(register())  # the hashing thread starts with the first hash
        assert server.process is not None
        pid = server.process.pid
        threads = [int(task.name) for task in Path(f"/proc/{pid}/task").iterdir()]
        idle = [tid for tid in threads if os.sched_getscheduler(tid) == os.SCHED_IDLE]
        assert len(idle) == 1, "the hashing thread, and only it, runs in the idle class"
        # the worker sets its class first thing once it runs (its initializer), after
        # imports that take a while on a loaded machine (a full run saw it still at 0)
        deadline = time.monotonic() + 30
        while os.sched_getscheduler(workers[0]) != os.SCHED_IDLE and time.monotonic() < deadline:
            time.sleep(0.1)
        assert os.sched_getscheduler(workers[0]) == os.SCHED_IDLE


def test_sigterm_abandons_a_certification_that_does_not_finish_within_the_drain_time(
    tmp_path: Path,
) -> None:
    """A server stopped while its certification worker is starved of CPU (here: stopped
    outright, SIGSTOP) exits within its drain time all the same; it waited for the worker
    after logging "stopped" (over 2 minutes once). The deal was not stored: the next start
    certifies again."""
    with ServeProcess(
        free_port(), tmp_path, "--certify-budget-s", "600", "--drain-s", "2"
    ) as server:
        workers = started_with_a_worker(server)
        os.kill(workers[0], signal.SIGSTOP)  # it gets no CPU from now on
        try:
            began = time.monotonic()
            assert server.terminate(timeout_s=20) == 0
            took = time.monotonic() - began
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.kill(workers[0], signal.SIGKILL)
        assert took < 2 + 8, took  # the drain time, and the steps after it (a loaded machine)
        assert not running(workers[0])
        said = [line["msg"] for line in server.log()]
        assert "certification abandoned at shutdown" in said, said
