"""The roots scenario's committed references: the toy agent's careful `roots` client, its `--no-roots` build and each
`--roots-flaw` build, the Python and TypeScript SDK drivers with and without `--root`, and fastmcp's CLI as shipped,
in 2026-07-28 and the 2025 eras (check --era)."""

from __future__ import annotations

from pathlib import Path

from backchannel.proxy.clients.drivers.paths import node_driver, py_driver
from backchannel.proxy.clients.toy_agent_roots import ROOTS_FLAWS
from backchannel.proxy.scenarios.references import Invocation, Reference, coding_agents, fastmcp_cli, toy

# the working folder (the one the lab configures) as the root, and `added` in it added mid-session
EXPOSED = ("--root", ".", "--add-root", "added")
ERAS = ("2026-07-28", "2025-11-25", "2025-06-18")


def py(*args: str) -> Invocation:
    return lambda _root: [*py_driver(), "{url}", *args]


def ts(*args: str) -> Invocation:
    def argv(_root: Path) -> list[str] | None:
        found = node_driver()
        return [*found, "{url}", "--mode", "auto", *args] if found else None

    return argv


def roots(*args: str) -> Invocation:
    return toy("roots", *args, "{url}")


def _suffix(era: str) -> str:
    return "" if era == "2026-07-28" else f"-{era}"


REFERENCES = (
    *(
        Reference(
            f"toy-careful{_suffix(era)}", roots(), False, f"the toy agent's careful roots client, --era {era}", era=era
        )  # fmt: skip
        for era in ERAS
    ),
    *(
        Reference(
            f"toy-no-roots{_suffix(era)}",
            roots("--no-roots"),
            False,
            f"the toy agent declaring no roots, --era {era}",
            era=era,
        )  # fmt: skip
        for era in ERAS[:2]
    ),
    *(
        Reference(
            f"toy-{flaw}{_suffix(era)}",
            roots("--roots-flaw", flaw),
            False,
            f"the toy agent's roots client with --roots-flaw {flaw} (breaks {check}), --era {era}",
            era=era,
        )
        for flaw, check in ROOTS_FLAWS.items()
        for era in (ERAS if flaw == "unannounced-change" else ERAS[:2])
    ),
    *(
        Reference(
            f"{name}{_suffix(era)}",
            argv(*EXPOSED),
            False,
            f"the {label} driver with --root . --add-root added, --era {era}",
            era=era,
        )  # fmt: skip
        for name, argv, label in (("py-sdk", py, "Python SDK"), ("ts-sdk", ts, "TypeScript SDK v2"))
        for era in ERAS
    ),
    *(
        Reference(
            f"{name}-no-roots{_suffix(era)}",
            argv(),
            False,
            f"the {label} driver as shipped (no --root: declares no roots), --era {era}",
            era=era,
        )  # fmt: skip
        for name, argv, label in (("py-sdk", py, "Python SDK"), ("ts-sdk", ts, "TypeScript SDK v2"))
        for era in ERAS[:2]
    ),
    *(
        Reference(
            f"fastmcp{_suffix(era)}",
            fastmcp_cli("call", "{url}", "list_roots", "--auth", "none"),
            False,
            f"fastmcp's CLI as shipped (declares no roots), --era {era}",
            era=era,
        )  # fmt: skip
        for era in ERAS[:2]
    ),
    # the shipped coding agents (check --agent): Codex answers roots/list without declaring roots
    *coding_agents(),
    # check --by-hand, scripted: the toy roots client as the host, in a folder of its own; nothing to ask the person
    Reference("by-hand-toy", roots(), False, "check --by-hand, scripted: the toy roots client as the host", by_hand=()),
)
