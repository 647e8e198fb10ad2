"""scripts/install-clients and the agents: a wrong name fails before anything is installed, and an installed agent
whose lock has not changed is only re-checked."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from backchannel.proxy.agents.installed import find_installed
from backchannel.proxy.agents.recipe import load_recipe

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "install-clients"


def _install(*args: str, clients: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("BACKCHANNEL_SKIP_AGENTS", None)
    if clients is not None:
        env["BACKCHANNEL_CLIENTS"] = str(clients)
    return subprocess.run([str(SCRIPT), *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


def test_an_unknown_agent_fails_before_anything_is_installed(tmp_path: Path) -> None:
    done = _install("--agents", "codex,cursor", clients=tmp_path)
    assert done.returncode == 1
    assert "no agent named 'cursor' (known: claude-code,codex,gemini-cli)" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_argument_shows_the_usage(tmp_path: Path) -> None:
    done = _install("--agent", "codex", clients=tmp_path)
    assert done.returncode == 1
    assert "usage: scripts/install-clients [--agents a,b | --agents none]" in done.stderr


def test_an_installed_agent_is_only_rechecked() -> None:
    if find_installed(load_recipe("gemini-cli")) is None:
        pytest.fail("agent gemini-cli is not installed: run scripts/install-clients --agents gemini-cli")
    done = _install("--agents", "gemini-cli")
    assert done.returncode == 0, done.stderr
    assert "agent gemini-cli already installed" in done.stderr
    assert "agent codex" not in done.stderr


# The installs run side by side: these drive the script against a fake npm (on PATH first) and a fastmcp venv that
# already reads as installed, so nothing is fetched and each takes a second or two.
FAKE_NPM = """#!/usr/bin/env bash
# a stand-in for `npm ci`: fails in the folder named by FAKE_NPM_FAIL, sleeps where FAKE_NPM_SLEEP says, else installs
echo $$ > "$PWD/npm.pid"
if [ -n "${FAKE_NPM_FAIL:-}" ]; then
    case "$PWD" in *"$FAKE_NPM_FAIL") echo "npm ERR! fake failure in $PWD" >&2; exit 1 ;; esac
fi
[ -n "${FAKE_NPM_SLEEP:-}" ] && exec sleep "$FAKE_NPM_SLEEP"
mkdir -p node_modules && cp package-lock.json node_modules/.package-lock.json
"""


def _fakes(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A folder of fakes first on PATH, a clients folder whose fastmcp reads as installed, and the environment."""
    bin_dir, clients = tmp_path / "bin", tmp_path / "clients"
    bin_dir.mkdir()
    (bin_dir / "npm").write_text(FAKE_NPM)
    fastmcp = clients / "fastmcp" / "bin"
    fastmcp.mkdir(parents=True)
    (fastmcp / "python").write_text("#!/bin/sh\necho 4.2.3\n")  # what install-clients asks of its fastmcp venv
    (fastmcp / "fastmcp").write_text("#!/bin/sh\nexit 0\n")
    for script in (bin_dir / "npm", fastmcp / "python", fastmcp / "fastmcp"):
        script.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("BACKCHANNEL_SKIP_AGENTS", "FAKE_NPM_FAIL")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env['PATH']}", BACKCHANNEL_CLIENTS=str(clients))
    return clients, env


def test_one_install_failing_fails_the_script_naming_it_after_the_others_have_installed(tmp_path: Path) -> None:
    clients, env = _fakes(tmp_path)
    env["FAKE_NPM_FAIL"] = "agents/codex"
    done = subprocess.run([str(SCRIPT)], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "npm ERR! fake failure" in done.stderr  # npm's own message, then the script's
    assert done.stderr.rstrip().endswith("install-clients: not installed: agent codex (the reason is above)")
    for folder in ("node", "node-server", "conformance", "agents/claude-code", "agents/gemini-cli"):
        assert (clients / folder / ".installed-lock.json").is_file(), folder
    assert not (clients / "agents" / "codex" / ".installed-lock.json").exists()


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie has ended (this container's init may be slow to reap it)


def test_stopping_the_script_stops_every_install_under_it(tmp_path: Path) -> None:
    clients, env = _fakes(tmp_path)
    env["FAKE_NPM_SLEEP"] = "60"
    process = subprocess.Popen(
        [str(SCRIPT)], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
    )
    try:
        folders = ("node", "node-server", "conformance", "agents/claude-code", "agents/codex", "agents/gemini-cli")
        pid_files = [clients / folder / "npm.pid" for folder in folders]
        deadline = time.monotonic() + 30
        while not all(f.is_file() and f.read_text().strip() for f in pid_files):
            assert time.monotonic() < deadline, "the six installs did not all start within 30 s"
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            time.sleep(0.05)
        npm_pids = [int(f.read_text()) for f in pid_files]
        assert all(_running(pid) for pid in npm_pids)
        process.terminate()
        assert process.wait(timeout=15) != 0
        assert not [pid for pid in npm_pids if _running(pid)]
        assert b"Terminated" not in (process.stderr.read() if process.stderr else b"")
    finally:
        if process.poll() is None:
            os.killpg(process.pid, 9)
            process.wait(10)
        if process.stderr is not None:
            process.stderr.close()
