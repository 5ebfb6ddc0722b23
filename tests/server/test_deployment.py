"""The deployment files, checked by running their parts (no Docker daemon runs here): the
Dockerfile installs the package at build time and runs the server as a non-root user with
a health check; docker-compose.yml's Redis command starts a real redis-server, and the
server's command and environment start a real ``solrace serve`` that answers /healthz."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version
from redis_server import RedisServer, free_port

from solrace.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
SOLRACE = str(Path(sys.executable).with_name("solrace"))


def dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions: (INSTRUCTION, its arguments), continuations joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1])
        for line in lines
        if line and not line.startswith("#")
    ]


def compose() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return services


def test_the_image_installs_the_package_when_built_and_runs_as_a_user_with_a_health_check() -> None:
    steps = dockerfile()
    kinds = [kind for kind, _ in steps]
    assert steps[0] == ("FROM", "python:3.11-slim")
    install = next(args for kind, args in steps if kind == "RUN" and "pip install" in args)
    assert "--constraint constraints.txt ." in install  # pinned, from the copied source
    assert kinds.index("RUN") < kinds.index("USER") < kinds.index("CMD")
    user = next(args for kind, args in steps if kind == "USER")
    assert user not in ("root", "0")
    assert any("useradd" in args and user in args for kind, args in steps if kind == "RUN")
    health = next(args for kind, args in steps if kind == "HEALTHCHECK")
    assert "/healthz" in health
    assert json.loads(next(args for kind, args in steps if kind == "CMD")) == ["solrace", "serve"]
    copied = set()
    for kind, args in steps:
        if kind == "COPY":
            for source in args.split()[:-1]:
                assert (ROOT / source).exists(), f"the Dockerfile copies {source}"
                copied.add(source)
    # the image's solrace command is the launcher's: its package is copied before the install
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["scripts"]["solrace"].split(".")[0] in copied


def test_every_runtime_dependency_is_pinned_within_its_range() -> None:
    lines = (ROOT / "deploy" / "constraints.txt").read_text().splitlines()
    pins = {
        canonicalize_name(name): Version(version)
        for name, version in (line.split("==") for line in lines if line and line[0] != "#")
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    for dependency in map(Requirement, project["dependencies"]):
        pinned = pins.get(canonicalize_name(dependency.name))
        assert pinned is not None, f"{dependency.name} is not pinned for the image"
        assert pinned in dependency.specifier, f"{dependency.name} {pinned} is out of range"


def test_compose_runs_two_server_nodes_behind_a_balancer_and_redis_on_disk() -> None:
    services = compose()["services"]
    assert set(services) == {"redis", "server", "balancer"}
    server, redis, balancer = services["server"], services["redis"], services["balancer"]
    assert server["build"] == "." and server["deploy"]["replicas"] == 2
    assert "ports" not in server  # reached through the balancer (--scale server=N works)
    for service in services.values():
        assert service["restart"] == "unless-stopped"
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    words = redis["command"]
    settings = dict(zip(words[1::2], words[2::2], strict=True))
    assert settings["--appendonly"] == "yes" and settings["--maxmemory-policy"] == "noeviction"
    assert settings["--maxmemory"].endswith(("mb", "gb"))
    assert balancer["image"].startswith("haproxy:2.6")  # the version Debian's tests run
    assert balancer["ports"] == ["8765:8765"]
    mount = "./deploy/haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro"
    assert mount in balancer["volumes"]
    assert balancer["environment"]["SOLRACE_NODES"] == "server:8765"


def test_the_balancer_s_configuration_is_valid_for_haproxy_with_compose_s_settings() -> None:
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    environment = compose()["services"]["balancer"]["environment"]
    checked = subprocess.run(
        [haproxy, "-c", "-f", str(ROOT / "deploy" / "haproxy.cfg")],
        env={**os.environ, **{name: str(value) for name, value in environment.items()}},
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Configuration file is valid" in checked.stdout


def test_compose_s_redis_command_starts_a_real_redis(tmp_path: Path) -> None:
    words = compose()["services"]["redis"]["command"]
    assert words[0] == "redis-server"
    redis = RedisServer(tmp_path, None, *words[1:])
    redis.start()  # fails with its log if any option is wrong
    redis.stop()


def interpolated(value: str) -> str:
    """A compose value as compose reads it: ``${NAME:-DEFAULT}`` is the operator's NAME
    when it is set and not empty, else DEFAULT (here the operator sets nothing)."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", lambda found: found.group(1), value)


def test_compose_s_server_command_and_environment_start_a_real_server(tmp_path: Path) -> None:
    server = compose()["services"]["server"]
    image_env = dict(
        pair.split("=", 1)
        for kind, args in dockerfile()
        if kind == "ENV"
        for pair in shlex.split(args)
    )
    env = {**image_env, **{k: interpolated(v) for k, v in server["environment"].items()}}
    serve_help = subprocess.run([SOLRACE, "serve", "--help"], capture_output=True, text=True)
    for name in env:
        if name.startswith("SOLRACE_"):
            assert f"[{name}" in serve_help.stdout, f"{name} is read by solrace serve"
    assert build_parser().parse_args(server["command"][1:]).command == "serve"
    redis = RedisServer(tmp_path / "redis")
    redis.start()
    port = free_port()
    env.update(
        SOLRACE_REDIS_URL=redis.url,
        SOLRACE_PORT=str(port),
        SOLRACE_HOST="127.0.0.1",
        SOLRACE_SPILL_FILE=str(tmp_path / "spill.jsonl"),
        SOLRACE_DAILY_CERTIFY="0",
    )
    process = subprocess.Popen(
        [SOLRACE, *server["command"][1:]],
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None and "serving on" in process.stdout.readline()
        deadline = time.monotonic() + 10
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz") as answer:
                    assert json.loads(answer.read())["status"] == "ok"
                    break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        process.terminate()
        assert process.wait(20) == 0
        redis.stop()
