"""`backchannel agents` lists every shipped recipe, installed or not, with the versions."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import Result

from tests.in_process import backchannel


@pytest.fixture
def list_agents(monkeypatch: pytest.MonkeyPatch) -> object:
    """`backchannel agents` in this process (tests/in_process.py), with PATH, HOME and the clients folder set."""

    def run(env_clients: Path) -> Result:
        for name, value in {
            "PATH": "/usr/bin:/bin",
            "HOME": str(env_clients),
            "BACKCHANNEL_CLIENTS": str(env_clients),
        }.items():
            monkeypatch.setenv(name, value)
        return backchannel("agents")

    return run


def test_each_shipped_agent_is_listed_with_its_pinned_version_and_install_command(tmp_path: Path, list_agents) -> None:
    done = list_agents(tmp_path)
    assert done.exit_code == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["claude-code", "codex", "gemini-cli"]
    assert "@openai/codex 0.171.0  speaks openai-responses" in lines[1]
    assert lines[1].endswith("not installed (scripts/install-clients --agents codex)")


def test_an_installed_agent_shows_the_version_found(tmp_path: Path, list_agents) -> None:
    manifest = tmp_path / "agents" / "gemini-cli" / "node_modules" / "@google" / "gemini-cli" / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text('{"version": "0.61.0"}')
    shim = tmp_path / "agents" / "gemini-cli" / "node_modules" / ".bin" / "gemini"
    shim.parent.mkdir(parents=True)
    shim.write_text("#!/bin/sh\n")
    shim.chmod(0o755)
    done = list_agents(tmp_path)
    [line] = [line for line in done.stdout.splitlines() if line.startswith("gemini-cli")]
    assert f"installed 0.61.0 in {tmp_path}/agents/gemini-cli" in line
