"""Where an agent is installed and which version is there; a missing one names the command that installs it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from backchannel.proxy.agents.installed import AgentNotInstalled, find_installed, install_folder, require_installed
from backchannel.proxy.agents.recipe import RECIPES_DIR, load_recipe


def _fake_install(base: Path, name: str, version: str = "9.9.9") -> Path:
    recipe = load_recipe(name)
    folder = base / "agents" / name
    executable = folder / recipe.executable
    executable.parent.mkdir(parents=True)
    executable.write_text("#!/bin/sh\n")
    executable.chmod(0o755)
    manifest = folder / "node_modules" / recipe.package / "package.json"
    manifest.parent.mkdir(parents=True)
    manifest.write_text(json.dumps({"name": recipe.package, "version": version}))
    return folder


def test_an_installed_agent_is_found_with_its_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path))
    folder = _fake_install(tmp_path, "codex", "0.171.0")
    found = find_installed(load_recipe("codex"))
    assert found is not None
    assert found.folder == folder == install_folder("codex")
    assert found.version == "0.171.0"


def test_an_unreadable_manifest_leaves_the_version_unknown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path))
    folder = _fake_install(tmp_path, "gemini-cli")
    (folder / "node_modules" / "@google" / "gemini-cli" / "package.json").write_text("[1, 2")
    found = find_installed(load_recipe("gemini-cli"))
    assert found is not None and found.version is None


def test_a_missing_shipped_agent_names_the_install_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path))
    with pytest.raises(AgentNotInstalled, match="run scripts/install-clients --agents claude-code$"):
        require_installed(load_recipe("claude-code"))


def test_a_missing_agent_of_a_users_recipe_says_where_to_put_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BACKCHANNEL_CLIENTS", str(tmp_path / "clients"))
    mine = tmp_path / "mine.toml"
    mine.write_text((RECIPES_DIR / "codex.toml").read_text().replace('name = "codex"', 'name = "my-codex"'))
    with pytest.raises(
        AgentNotInstalled, match=f"install @openai/codex 0.171.0 into {tmp_path}/clients/agents/my-codex"
    ):
        require_installed(load_recipe(mine))
