"""The flags scenarios declare (`Option`s), added to `check` as typer parameters and handed back as one dict.

A scenario's options are its own: `check` offers every scenario's flags, and a flag of another scenario than the
chosen one, given a value other than its default, is a usage error.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Annotated, Any

import typer

from backchannel.oracle.registry import ScenarioError
from backchannel.proxy.scenarios.base import CheckError, Option
from backchannel.proxy.scenarios.registry import all_scenarios, get_scenario

# why the scenarios could not be listed when the CLI was built: every command says so (proxy/cli.py main)
BROKEN_SCENARIOS: list[str] = []


def scenario_options() -> dict[str, tuple[Option, list[str]]]:
    """Every option any scenario declares, by name, with the scenarios that declare it (they must agree)."""
    found: dict[str, tuple[Option, list[str]]] = {}
    for scenario in all_scenarios().values():
        for option in scenario.options:
            if option.name in found:
                first, owners = found[option.name]
                if (first.kind, first.default, first.choices) != (option.kind, option.default, option.choices):
                    raise CheckError(f"scenarios {owners[0]} and {scenario.name} declare {option.flag} differently")
                owners.append(scenario.name)
            else:
                found[option.name] = (option, [scenario.name])
    return found


def with_scenario_options(command: Callable[..., None]) -> Callable[..., None]:
    """Give `check` the flags the scenarios declare: they arrive as one `settings` dict, not as parameters."""
    try:
        declared = scenario_options()
    except (CheckError, ScenarioError) as exc:  # a broken scenario package: every command says so (see main)
        BROKEN_SCENARIOS.append(str(exc))
        declared = {}
    base = [p for p in inspect.signature(command, eval_str=True).parameters.values() if p.name != "settings"]
    extra = [
        inspect.Parameter(
            name,
            inspect.Parameter.KEYWORD_ONLY,
            default=option.default,
            annotation=Annotated[
                option.kind, typer.Option(option.flag, help=f"{option.help} (scenario {', '.join(owners)})")
            ],
        )
        for name, (option, owners) in declared.items()
    ]

    def wrapper(**kwargs: Any) -> None:
        settings = {name: kwargs.pop(name) for name in declared}
        command(**kwargs, settings=settings)

    wrapper.__signature__ = inspect.Signature(base + extra)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {p.name: p.annotation for p in base + extra}
    wrapper.__doc__ = command.__doc__
    wrapper.__name__ = command.__name__
    return wrapper


def settings_for(scenario_name: str, settings: dict[str, Any]) -> dict[str, Any]:
    """The chosen scenario's own settings; a flag of another scenario given a non-default value is a usage error."""
    scenario = get_scenario(scenario_name)
    own = {option.name: option for option in scenario.options}
    for name, (option, owners) in scenario_options().items():
        value = settings.get(name, option.default)
        if name not in own and value != option.default:
            raise CheckError(f"{option.flag} belongs to scenario {', '.join(owners)}, not {scenario_name}")
        if option.choices and value not in option.choices:
            raise CheckError(f"unknown {option.flag} {value!r}; valid: {', '.join(option.choices)}")
    return {name: settings.get(name, option.default) for name, option in own.items()}
