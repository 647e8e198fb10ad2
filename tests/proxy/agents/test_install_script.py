"""scripts/install-clients and the agents: a wrong name fails before anything is installed, and an installed agent
whose lock has not changed is only re-checked."""

from __future__ import annotations

import os
import subprocess
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
