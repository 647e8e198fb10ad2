"""The sampling scenario's committed references: the toy agent's careful sampling client and each of its
`--sampling-flaw` builds (answered at their prompts under a terminal), in 2026-07-28 and 2025-11-25, the careful
build denied and in 2025-06-18, the SDK drivers with a stand-in model (`--sampling-reply`) in every era, and
fastmcp's CLI."""

from __future__ import annotations

import sys
from pathlib import Path

from backchannel.proxy.clients.drivers.paths import node_driver, py_driver
from backchannel.proxy.clients.toy_agent_sampling import SAMPLING_FLAWS
from backchannel.proxy.scenarios.references import (
    TOY,
    Invocation,
    Reference,
    answered,
    coding_agents,
    fastmcp_cli,
    py_sdk,
    ts_sdk,
)

YES = (r"\[y\]es / \[n\]o: =>y\n",)  # every prompt of the toy's sampling client, answered yes
NO = (r"\[y\]es / \[n\]o: =>n\n",)
REPLY = "a stand-in model's one-line reply"  # what the drivers' --sampling-reply answers every request with
ERAS = ("2026-07-28", "2025-11-25", "2025-06-18")


def toy_sampling(*flaws: str) -> Invocation:
    pairs = [part for flaw in flaws for part in ("--sampling-flaw", flaw)]
    return lambda _root: [sys.executable, "-m", TOY, "sampling", *pairs, "{url}"]


def py_sampling(_root: Path) -> list[str]:
    return [*py_driver(), "{url}", "--sampling-reply", REPLY]


def ts_sampling(_root: Path) -> list[str] | None:
    found = node_driver()
    return [*found, "{url}", "--mode", "auto", "--sampling-reply", REPLY] if found else None


def _suffix(era: str) -> str:
    return "" if era == "2026-07-28" else f"-{era}"


REFERENCES = (
    *(
        Reference(f"toy-careful{_suffix(era)}", toy_sampling(), False,
                  f"the toy agent's careful sampling client, --tty answered yes, check --era {era}",
                  tty=answered(YES), era=era)
        for era in ERAS
    ),
    *(
        Reference(f"toy-denied{_suffix(era)}", toy_sampling(), False,
                  f"the toy agent's careful sampling client, --tty answered no (the user denies), check --era {era}",
                  tty=answered(NO), era=era)
        for era in ERAS[:2]
    ),
    *(
        Reference(f"toy-{flaw}{_suffix(era)}", toy_sampling(flaw), False,
                  f"the toy agent's sampling client with --sampling-flaw {flaw}, --tty answered yes, check --era {era}",
                  tty=answered(YES), era=era)
        for flaw in SAMPLING_FLAWS
        for era in ERAS[:2]
    ),
    # the drivers as shipped declare no sampling (no model): every sampling check SKIPs
    Reference("py-sdk", py_sdk, False, "the Python SDK driver as shipped (no sampling declared)"),
    Reference("ts-sdk", ts_sdk, False, "the TypeScript SDK v2 driver as shipped (no sampling declared), --mode auto"),
    # fastmcp's CLI calls one tool per invocation: summarize_notes, in a 2025 era and in 2026-07-28
    *(
        Reference(f"fastmcp{_suffix(era)}", fastmcp_cli("call", "{url}", "summarize_notes", "--auth", "none"), False,
                  f"fastmcp's CLI calling summarize_notes, check --era {era}", era=era)
        for era in ERAS[:2]
    ),
    *(
        Reference(f"{name}-reply{_suffix(era)}", argv, False,
                  f"the {label} driver with --sampling-reply (a stand-in model), check --era {era}", era=era)
        for name, argv, label in (("py-sdk", py_sampling, "Python SDK"), ("ts-sdk", ts_sampling, "TypeScript SDK v2"))
        for era in ERAS
    ),
    # the shipped coding agents (check --agent), each against the lab's scripted model
    *coding_agents(),
    # check --by-hand, scripted: the toy sampling client as the host its user says yes in, and the person's answers
    # (named the server? could deny it before it went to the model?), each what that build showed
    *(
        Reference(f"by-hand-toy{'-' + flaw if flaw else ''}", toy_sampling(*((flaw,) if flaw else ())), False,
                  f"check --by-hand, scripted: the toy sampling client{' with --sampling-flaw ' + flaw if flaw else ''}"
                  f" as the host, the person answering {', '.join(answers)}",
                  stdin=b"y\n" * 8, by_hand=answers)
        for flaw, answers in (("", ("y", "y")), ("no-server-name", ("n", "y")), ("auto-answer", ("y", "n")))
    ),
)  # fmt: skip
