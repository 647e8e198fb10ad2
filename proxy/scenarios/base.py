"""What a scenario package declares on the proxy side: its tools, its runner, its options and its contract.

A scenario package (`proxy/scenarios/<name>/__init__.py`, or `M.proxy` of an extra root) defines one module-level
`SCENARIO = Scenario(...)`. Its name is the same as its oracle-side package's `SCENARIO`, which holds the checks.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from backchannel.addons.session import Limits
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolSet, ToolSpec, answer_wait
from backchannel.proxy.run.agent_lab import scripted
from backchannel.proxy.run.capture import Capture
from backchannel.proxy.run.placeholders import McpConfigOptions, names_the_server
from backchannel.proxy.run.tty import TtyOptions
from backchannel.recordings.errors import UserError
from backchannel.recordings.redact import DEFAULT_POLICY, Policy
from backchannel.recordings.shapes import Invocation, ProbeOptions

Progress = Callable[[str], None]
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_OPTION = re.compile(r"^[a-z][a-z0-9_]*$")


def server_url_problem(url: str) -> str | None:
    """None for an http(s) URL with a host, else what is wrong with it (a server scenario's --server)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "not an http:// or https:// URL"
    try:
        host, _ = parts.hostname, parts.port
    except ValueError as exc:
        return f"its port is not a number from 0 to 65535 ({exc})"
    return None if host else "it names no host"


class CheckError(UserError):
    """A scenario refused to run or could not go on; the message says why and what to do."""


@dataclass(frozen=True)
class CheckOptions:
    """What `backchannel check` hands a scenario's runner: the target, the recording, and the scenario's settings."""

    out: Path
    target: Sequence[str] | None = None  # a CLI to discover from its help
    client: Sequence[str] | None = None  # an invocation with {url}
    server: str | None = None  # a server scenario's server under test (None: the scenario's own bundled server)
    timeout: float = 30.0
    stdin: bytes | None = None  # typed answers for a client that prompts at the terminal
    env: Mapping[str, str] = field(default_factory=dict)  # --env: set in every lab; runs record the names only
    max_output: int = 8 * 1024 * 1024  # --max-output: terminal bytes kept per run and stream
    settings: Mapping[str, Any] = field(default_factory=dict)  # the scenario's own options, by Option.name
    mcp_config: McpConfigOptions | None = None  # {mcp-config} / --mcp-config-file: how a host is told the run's server
    tty: TtyOptions | None = None  # --tty: clients run under a terminal of this size, answered by --answer
    redaction: Policy = DEFAULT_POLICY  # --redact: what the recording hides besides the defaults
    limits: Limits = field(default_factory=Limits)  # --max-body, --max-sse-event, --upstream-idle-timeout
    era: str = "auto"  # --era: the protocol era the scripted endpoint speaks (auto: whatever the client negotiates)

    def setting(self, name: str, default: Any = None) -> Any:
        return self.settings.get(name, default)

    @property
    def answer_timeout_s(self) -> float:
        """How long the endpoint waits for the answer to a 2025 server-initiated request: tied to --timeout, so it
        gives up (a tool error the recording shows) before the run's timeout kills the client."""
        return answer_wait(self.timeout)


@dataclass(frozen=True)
class Option:
    """A flag a scenario adds to `backchannel check`: `name` is the Python name, `--name-with-dashes` the flag."""

    name: str
    kind: type[bool] | type[int] | type[float] | type[str]
    default: Any
    help: str
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not _OPTION.match(self.name):
            raise ValueError(f"option name {self.name!r} must be a lower-case Python identifier")
        if self.choices and self.default not in self.choices:
            raise ValueError(f"option {self.name}: default {self.default!r} is not one of {self.choices}")

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


class Runner(Protocol):
    def __call__(self, options: CheckOptions, progress: Progress) -> Path: ...


@dataclass(frozen=True)
class Scenario:
    """One scenario's proxy side.

    `runner` runs the client (or, for a server scenario, the scripted client) into `options.out` and returns its
    path; the default (`run_once`) runs `--client` once against `tools` with no mutation. `needs_client` scenarios
    run only with `--client` (a client that follows `contract`); `side` says which party is under test;
    `default_target` is the argv `check` discovers when given neither `--target` nor `--client`.
    """

    name: str
    description: str
    tools: tuple[ToolSpec, ...] = ()
    runner: Runner | None = None
    options: tuple[Option, ...] = ()
    contract: str = ""
    needs_client: bool = False
    side: Literal["client", "server"] = "client"
    default_target: tuple[str, ...] | None = None  # what `check` runs when given no --target or --client
    # with `check --agent`: what the lab's scripted model does, as proxy/model/script.py ModelScript data (`server` is
    # filled in per run); None: call the first of `tools` with {} and answer "done" (proxy/run/agent_lab.py)
    model_script: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ValueError(f"scenario name {self.name!r} is not a kebab-case slug")
        ToolSet(self.name, self.description, self.tools)  # validates the tools
        names = [option.name for option in self.options]
        if len(names) != len(set(names)):
            raise ValueError(f"scenario {self.name!r} declares an option twice: {names}")

    def run(self, options: CheckOptions, progress: Progress) -> Path:
        if self.needs_client and not options.client:
            raise CheckError(
                f'--scenario {self.name} needs --client "CMD ... {{url}}": a client that follows the contract '
                f"(backchannel scenarios {self.name} prints it)"
            )
        if options.client and not names_the_server(options.client, options.mcp_config):
            raise CheckError(
                "--client must say where the server is: {url}, {stdio-cmd}, {stdio-argv} or {mcp-config}"
                " (or give --mcp-config-file for a host that reads a fixed configuration file)"
            )
        with scripted(self.model_script):  # for the runs whose client is a coding agent
            if self.runner is not None:
                return self.runner(options, progress)
            return self.run_once(options, progress)

    def run_once(self, options: CheckOptions, progress: Progress) -> Path:
        """The runner a scenario gets when it declares none: one run named `run` of `--client` against the
        scenario's tools, unmutated; the oracle judges it with the scenario's checks."""
        if not options.client:
            raise CheckError(f'--scenario {self.name} runs a client once: give --client "CMD ... {{url}}"')
        client = list(options.client)
        meta = (ProbeOptions(client=tuple(client)),)
        with Capture(
            options.out,
            endpoint=EndpointConfig(tools=self.tools, era=options.era, answer_timeout_s=options.answer_timeout_s),
            scenario=self.name,
            meta=meta,
            env=options.env,
            max_output=options.max_output,
            mcp_config=options.mcp_config,
            tty=options.tty,
            redaction=options.redaction,
            limits=options.limits,
        ) as capture:
            capture.set_meta(Invocation(argv=tuple(client)))
            run = capture.new_run("run", {}, scenario=self.name)
            progress(f"running the client once against the {self.name} tools")
            capture.run_client(run, client, timeout=options.timeout, stdin=options.stdin)
        return options.out
