"""What a scenario declares about its committed reference recordings, and the client invocations several share.

A scenario package may hold a `references.py` whose module-level `REFERENCES` is a tuple of `Reference`: one per
file `recordings/reference/<scenario>-<name>.sqlite` (with its `.expected.json`). The registry collects them
(`all_references`); scripts/make-reference-recordings makes them and tests/recordings/ holds that each declared one
is committed. They are test fixtures of this checkout: an invocation may name a file under its `tests/`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from backchannel.proxy.agents.installed import find_installed
from backchannel.proxy.agents.recipe import load_recipe, shipped_recipes
from backchannel.proxy.clients.drivers.paths import fastmcp, node_driver, py_driver
from backchannel.proxy.run.tty import TtyOptions, parse_answer

Invocation = Callable[[Path], list[str] | None]  # given the checkout's root; None: the client is not installed

TOY = "backchannel.proxy.clients.toy_agent"
FASTMCP_ANSWER = r"confirmed \(boolean\) \*:=>true\n"  # fastmcp's terminal handler asks for the one boolean field


@dataclass(frozen=True)
class Reference:
    """One committed recording: how its target is invoked, and whether it is discovered or called directly.

    A server reference (`server=True`) invokes the server under test (it prints READY <url>); an invocation of []
    means the scenario's own bundled server (no --server). An agent reference (`agent`, see `coding_agent`) runs
    that coding agent's recipe, as `check --agent` does; its invocation only says whether the agent is installed. A
    by-hand reference (`by_hand`, the answers) is a `check --by-hand` session with the host and the person scripted."""

    name: str
    argv: Invocation
    discover: bool  # True: --target (discovery from help), False: --client (an invocation with {url})
    note: str
    stdin: bytes | None = None  # typed answers, for a CLI that prompts at the terminal
    settings: Mapping[str, object] = field(default_factory=dict)  # the scenario's own options (e.g. hold_ms)
    server: bool = False
    tty: TtyOptions | None = None  # run the client under a terminal (check --tty), answered as it says
    era: str = "auto"  # check --era: the protocol era backchannel's endpoint speaks
    agent: str | None = None  # check --agent: a shipped coding agent's recipe is the client (argv: installed or not)
    # check --by-hand played by a script (proxy/byhand/scripted.py): argv is the host, run once per step with {url},
    # `stdin` what its user types, and these the person's answers (y, n or ?) to the plan's questions, in order
    by_hand: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ScenarioReference:
    """A declared reference with the scenario that declares it; `stem` names its files."""

    scenario: str
    reference: Reference

    @property
    def stem(self) -> str:
        return f"{self.scenario}-{self.reference.name}"


def toy(*args: str) -> Invocation:
    """The bundled toy agent with these arguments."""
    return lambda _root: [sys.executable, "-m", TOY, *args]


def answered(patterns: tuple[str, ...], *, piped: bool = False) -> TtyOptions:
    """Answered at its prompts: under a terminal (--answer), or on pipes (--answer --no-tty)."""
    return TtyOptions(answers=tuple(parse_answer(p) for p in patterns), piped=piped)


def py_sdk(_root: Path) -> list[str]:
    return [*py_driver(), "{url}"]


def py_sdk_stdio(_root: Path) -> list[str]:
    return [*py_driver(), "--stdio-argv", "{stdio-argv}"]


def ts_sdk(_root: Path) -> list[str] | None:
    found = node_driver()
    # auto: the SDK's default (legacy) would never see MRTR, and a pin would never reach the legacy server of
    # ABSENT-LEGACY; auto is the one mode that exercises both eras (docs/real-clients.md)
    return [*found, "{url}", "--mode", "auto"] if found else None


def ts_sdk_stdio(_root: Path) -> list[str] | None:
    found = node_driver()
    return [*found, "--stdio-argv", "{stdio-argv}", "--mode", "auto"] if found else None


def coding_agents() -> tuple[Reference, ...]:
    """Every shipped coding agent (proxy/agents/recipes/) as a client, by the arm check --agent runs."""
    return tuple(
        coding_agent(name, f"{name} (check --agent {name}), offline against the lab's scripted model")
        for name in sorted(shipped_recipes())
    )


def coding_agent(name: str, note: str, *, tty: TtyOptions | None = None, suffix: str = "") -> Reference:
    """A shipped coding agent (check --agent NAME) as the client, named `agent-NAME` (plus `suffix`); with `tty`,
    its terminal UI (check --agent NAME --tty --answer ...). It needs scripts/install-clients, which puts the agents
    in the cache."""
    return Reference(f"agent-{name}{suffix}", _agent_installed(name), False, note, tty=tty, agent=name)


def _agent_installed(name: str) -> Invocation:
    """[] when the agent's pinned install is in the cache (its command line comes from its recipe), else None."""

    def invocation(_root: Path) -> list[str] | None:
        return [] if find_installed(load_recipe(name)) is not None else None

    return invocation


def fastmcp_cli(*args: str) -> Invocation:
    """fastmcp's CLI (installed by scripts/install-clients) with these arguments."""
    return lambda _root: [found, *args] if (found := fastmcp()) else None
