"""`backchannel agents`: the shipped agent recipes, whether each agent is installed, and at which version."""

from __future__ import annotations

from backchannel.proxy.agents.installed import find_installed, install_folder
from backchannel.proxy.agents.recipe import load_recipe, shipped_recipes
from backchannel.proxy.cli_output import out_console


def agents_command() -> None:
    """List the coding agents `check --agent NAME` can run: pinned version, installed version, API, where."""
    for name in shipped_recipes():
        recipe = load_recipe(name)
        found = find_installed(recipe)
        if found is None:
            state = f"not installed (scripts/install-clients --agents {name})"
        else:
            state = f"installed {found.version or '(version unreadable)'} in {install_folder(name)}"
        out_console.print(f"{name}  {recipe.package} {recipe.version}  speaks {recipe.api}  {state}", markup=False)
