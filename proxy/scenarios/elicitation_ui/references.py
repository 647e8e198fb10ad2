"""The elicitation-ui scenario's committed references: the toy agent's careful terminal client and each of its
`--ui-flaw` builds, under a terminal and piped (answered at its prompts either way), the toy agent found by
discovery, and the real clients (scripts/install-clients)."""

from __future__ import annotations

import sys

from backchannel.proxy.clients.toy_agent_core import UI_FLAWS
from backchannel.proxy.run.tty import TtyOptions, parse_answer
from backchannel.proxy.scenarios.references import (
    FASTMCP_ANSWER,
    TOY,
    Invocation,
    Reference,
    answered,
    coding_agent,
    fastmcp_cli,
    py_sdk,
    toy,
    ts_sdk,
)

# the toy agent's careful terminal client (`ui`), answered at its prompts under a terminal: open the URL, true, send
UI_ANSWERS = (r"browser\? \[y\].*: =>y\n", r"\[enter to review\]: =>true\n", r"Send\? \[y\].*: =>y\n")
UI_DECLINING = (r"browser\? \[y\].*: =>n\n", *UI_ANSWERS[1:])  # open-declined shows only when the user declines


# Claude Code's own terminal UI (check --agent claude-code --tty): open the URL, then "I'm done, continue"; tick the
# form's box, move to Accept and press Enter (its dialogs, measured with 2.1.332: docs/agents.md)
CLAUDE_CODE_ANSWERS = (r"Open in browser=>\n", r"❯ I'm done, continue=>\n", r"Space to toggle=> \e[B\n")


# check --by-hand: a host build and what a person watching it answers (named? URL before agreeing? opened before?)
BY_HAND_HOSTS = (
    ("", ("y", "y", "n")),
    ("no-server-name", ("n", "y", "n")),
    ("show-url-after-consent", ("y", "n", "n")),
    ("open-at-once", ("y", "y", "y")),
)


def ui(*flaws: str) -> Invocation:
    return lambda _root: [sys.executable, "-m", TOY, *flaws, "ui", "{url}"]


def _answers(flaw: str) -> tuple[str, ...]:
    return UI_DECLINING if flaw == "open-declined" else UI_ANSWERS


REFERENCES = (
    Reference("toy-careful", ui(), False, "the toy agent's careful terminal client, --tty", tty=answered(UI_ANSWERS)),
    *(
        Reference(
            f"toy-{flaw}",
            ui("--ui-flaw", flaw),
            False,
            f"the toy agent's terminal client with --ui-flaw {flaw}, --tty",
            tty=answered(_answers(flaw)),
        )
        for flaw in UI_FLAWS
    ),
    # the same builds piped, answered at their prompts (--answer --no-tty): the verdicts must be the same
    Reference(
        "toy-careful-piped",
        ui(),
        False,
        "the toy agent's careful terminal client, piped, answered at its prompts (--no-tty)",
        tty=answered(UI_ANSWERS, piped=True),
    ),
    *(
        Reference(
            f"toy-{flaw}-piped",
            ui("--ui-flaw", flaw),
            False,
            f"the toy agent's terminal client with --ui-flaw {flaw}, piped, answered at its prompts (--no-tty)",
            tty=answered(_answers(flaw), piped=True),
        )
        for flaw in UI_FLAWS
    ),
    Reference(
        "toy-target",
        toy(),
        True,
        "the toy agent as shipped, found by discovery (--target): its `mcp call URL TOOL`, once per tool, piped",
    ),
    coding_agent(
        "claude-code",
        "Claude Code's terminal UI (check --agent claude-code --tty), answered at its dialogs: open, continue, accept",
        tty=answered(CLAUDE_CODE_ANSWERS),
        suffix="-tty",
    ),
    Reference("py-sdk", py_sdk, False, "the Python SDK contract driver, piped"),
    Reference("ts-sdk", ts_sdk, False, "the TypeScript SDK v2 contract driver, piped"),
    # in a 2025 era (check --era) each elicitation goes out as a server-initiated request on the call's stream;
    # 2025-06-18 has no URL mode: the URL tools refuse the client and their checks SKIP (not-in-era)
    *(
        Reference(f"{name}-{era}", argv, False, f"the {label} driver, check --era {era}", era=era)
        for name, argv, label in (("py-sdk", py_sdk, "Python SDK contract"), ("ts-sdk", ts_sdk, "TypeScript SDK v2"))
        for era in ("2025-11-25", "2025-06-18")
    ),
    Reference(
        "fastmcp-tty",
        fastmcp_cli("call", "{url}", "{tool}", "--auth", "none"),
        False,
        "fastmcp's CLI, one run per tool ({tool}), under --tty answering its form prompt",
        tty=TtyOptions(answers=(parse_answer(FASTMCP_ANSWER),)),
    ),
    # fastmcp negotiates 2026-07-28 itself: --era forces the endpoint to answer its initialize with a 2025 version
    # and to refuse its 2026-07-28 requests the way a 2025 server does
    *(
        Reference(
            f"fastmcp-tty-{era}",
            fastmcp_cli("call", "{url}", "{tool}", "--auth", "none"),
            False,
            f"fastmcp's CLI, one run per tool ({{tool}}), under --tty answering its form prompt, check --era {era}",
            tty=TtyOptions(answers=(parse_answer(FASTMCP_ANSWER),)),
            era=era,
        )
        for era in ("2025-11-25", "2025-06-18")
    ),
    # check --by-hand, scripted: the toy agent's terminal client as the host its user declines the URL in ("n"), and
    # the person's answers, in question order (named the server? full URL before agreeing? anything opened before?),
    # each what that build showed: the careful host, and one build that breaks each question
    *(
        Reference(
            f"by-hand-toy{'-' + flaw if flaw else ''}",
            ui(*(("--ui-flaw", flaw) if flaw else ())),
            False,
            f"check --by-hand, scripted: the toy agent's terminal client{' with --ui-flaw ' + flaw if flaw else ''}"
            f" as the host, the person answering {', '.join(answers)}",
            stdin=b"n\n",
            by_hand=answers,
        )
        for flaw, answers in BY_HAND_HOSTS
    ),
)
