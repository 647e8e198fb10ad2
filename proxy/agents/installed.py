"""Where scripts/install-clients put each agent, and which version is there. Nothing here installs anything."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.agents.recipe import AgentRecipe
from backchannel.proxy.clients.drivers.paths import clients_dir
from backchannel.recordings.errors import UserError

PACKAGES_DIR = Path(__file__).resolve().parent / "packages"  # the pinned package.json + lock of each shipped agent


class AgentNotInstalled(UserError):
    """The recipe's agent is not in the cache; the message says how to install it."""


@dataclass(frozen=True)
class Installed:
    folder: Path
    executable: Path
    version: str | None  # what the installed package.json says (None: unreadable)


def install_folder(name: str) -> Path | None:
    """`.cache/clients/agents/<name>/` (or under $BACKCHANNEL_CLIENTS)."""
    base = clients_dir()
    return base / "agents" / name if base is not None else None


def installed_version(recipe: AgentRecipe, folder: Path) -> str | None:
    manifest = folder / "node_modules" / recipe.package / "package.json"
    try:
        version = json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return version if isinstance(version, str) else None


def find_installed(recipe: AgentRecipe) -> Installed | None:
    """The agent's install, when its executable is there and runnable."""
    folder = install_folder(recipe.name)
    if folder is None:
        return None
    executable = folder / recipe.executable
    if not executable.is_file() or not os.access(executable, os.X_OK):
        return None
    return Installed(folder, executable, installed_version(recipe, folder))


def require_installed(recipe: AgentRecipe) -> Installed:
    """The agent's install, or AgentNotInstalled naming the command that installs it."""
    found = find_installed(recipe)
    if found is None:
        where = install_folder(recipe.name) or Path(".cache/clients/agents") / recipe.name
        how = (
            f"run scripts/install-clients --agents {recipe.name}"
            if (PACKAGES_DIR / recipe.name / "package-lock.json").is_file()
            else f"install {recipe.package} {recipe.version} into {where}"
        )
        raise AgentNotInstalled(f"agent {recipe.name} is not installed (no {recipe.executable} in {where}): {how}")
    return found
