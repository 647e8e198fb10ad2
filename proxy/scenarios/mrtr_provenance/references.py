"""The mrtr-provenance probe's committed references: every toy-agent build, found by discovery, and the real clients
(scripts/install-clients), over HTTP, through the stdio bridge and under a terminal."""

from __future__ import annotations

from backchannel.proxy.run.tty import TtyOptions, parse_answer
from backchannel.proxy.scenarios.references import (
    FASTMCP_ANSWER,
    Reference,
    coding_agents,
    fastmcp_cli,
    py_sdk,
    py_sdk_stdio,
    toy,
    ts_sdk,
    ts_sdk_stdio,
)

TOY_ANSWER = r"\[y/N\]=>y\n"
YES = b"y\n" * 8  # the piped interactive toy reads one y per question

REFERENCES = (
    Reference("toy-flawed", toy(), True, "the toy agent as shipped: both flaws"),
    Reference("toy-fixed", toy("--fix", "provenance", "--fix", "result-type"), True, "both flaws fixed"),
    Reference("toy-fix-provenance", toy("--fix", "provenance"), True, "only provenance fixed"),
    Reference("toy-fix-result-type", toy("--fix", "result-type"), True, "only the resultType default fixed"),
    Reference("toy-no-call-surface", toy("--variant", "no-call-surface"), True, "help offers no tool call"),
    Reference(
        "toy-legacy-only", toy("--variant", "legacy-only", "--fix", "result-type"), True, "speaks 2025-11-25 only"
    ),
    Reference(
        "toy-legacy-only-fixed",
        toy("--variant", "legacy-only", "--fix", "provenance", "--fix", "result-type"),
        True,
        "speaks 2025-11-25 only, both flaws fixed: the probe's elicitation arrives as a server-initiated request",
    ),
    Reference("toy-no-input-capability", toy("--variant", "no-input-capability"), True, "declares no input"),
    Reference("toy-silent", toy("--variant", "silent"), True, "prints nothing"),
    Reference("toy-strict", toy("--variant", "strict"), True, "rejects a modern result without resultType"),
    # fastmcp's terminal handler asks for each form field on stdin: "true" answers the probe's one boolean field
    Reference(
        "fastmcp", fastmcp_cli(), True, "fastmcp's CLI, found by discovery, answering `true` on stdin", stdin=b"true\n"
    ),
    Reference(
        "fastmcp-tty",
        fastmcp_cli(),
        True,
        "fastmcp's CLI under a terminal (check --tty), its form prompt answered with --answer",
        tty=TtyOptions(answers=(parse_answer(FASTMCP_ANSWER),)),
    ),
    # fastmcp negotiates 2026-07-28 itself: --era forces the endpoint to answer its initialize with a 2025 version
    # and to refuse its 2026-07-28 requests the way a 2025 server does
    *(
        Reference(
            f"fastmcp-{era}",
            fastmcp_cli(),
            True,
            f"fastmcp's CLI, found by discovery, answering `true` on stdin, check --era {era}",
            stdin=b"true\n",
            era=era,
        )
        for era in ("2025-11-25", "2025-06-18")
    ),
    Reference("toy-interactive", toy("--variant", "interactive"), True, "the toy agent asking y/N, piped", stdin=YES),
    Reference(
        "toy-interactive-tty",
        toy("--variant", "interactive"),
        True,
        "the toy agent asking y/N under a terminal, answered with --answer",
        tty=TtyOptions(answers=(parse_answer(TOY_ANSWER),)),
    ),
    Reference("py-sdk", py_sdk, False, "the Python SDK driver, mode auto (its default)"),
    Reference("ts-sdk", ts_sdk, False, "the TypeScript SDK v2 driver, --mode auto"),
    # the same drivers against an endpoint that speaks only a 2025 era (check --era): the probe goes out as a
    # server-initiated request on the call's stream
    *(
        Reference(f"{name}-{era}", argv, False, f"the {label} driver, check --era {era}", era=era)
        for name, argv, label in (("py-sdk", py_sdk, "Python SDK"), ("ts-sdk", ts_sdk, "TypeScript SDK v2"))
        for era in ("2025-11-25", "2025-06-18")
    ),
    Reference(
        "py-sdk-stdio", py_sdk_stdio, False, "the Python SDK driver as a stdio client, through backchannel bridge"
    ),
    Reference("ts-sdk-stdio", ts_sdk_stdio, False, "the TypeScript SDK v2 driver as a stdio client, --mode auto"),
    # the shipped coding agents (check --agent), each against the lab's scripted model
    *coding_agents(),
    # check --by-hand, scripted: the toy agent as the host, asked to call get_repo_status; the person answers whether
    # it named the server when it showed the probe's request (the fenced build does; the flawed one does not)
    Reference(
        "by-hand-toy-fix-provenance",
        toy("--fix", "provenance", "mcp", "call", "{url}", "get_repo_status"),
        False,
        "check --by-hand, scripted: the toy agent with --fix provenance as the host, the person answering y",
        by_hand=("y",),
    ),
    Reference(
        "by-hand-toy-flawed",
        toy("mcp", "call", "{url}", "get_repo_status"),
        False,
        "check --by-hand, scripted: the toy agent as shipped as the host, the person answering n",
        by_hand=("n",),
    ),
)
