"""One recording session: the endpoint (or a real upstream), one mitmdump, and any number of runs."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from backchannel.addons.plan import PlanError, parse_plan
from backchannel.addons.session import Limits
from backchannel.proxy.endpoint.server import RunningEndpoint, start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolSpec
from backchannel.proxy.run.agent_lab import AgentLab, AgentRun, is_agent_client
from backchannel.proxy.run.guard import RecordingLock, interruptible, interruption, shielded
from backchannel.proxy.run.lab import Lab, LabResult, resolve_command
from backchannel.proxy.run.launcher import CAPTURE_MARKER_VAR, RunningProxy, WebUiOptions, start_proxy
from backchannel.proxy.run.placeholders import McpConfigOptions, expand
from backchannel.proxy.run.tty import Snapshot, TtyOptions, under_terminal
from backchannel.proxy.run.ui_steps import Gate, UiStep
from backchannel.proxy.timings import mark
from backchannel.recordings import redact, store
from backchannel.recordings.errors import RecordingError, UserError
from backchannel.recordings.meta import MetaValue, ProxyStartup, RecordingInfo
from backchannel.recordings.model import Recording
from backchannel.recordings.reader import load
from backchannel.recordings.rows import (
    AnomalyRow,
    FileRow,
    OpenRow,
    RunEnd,
    RunLaunch,
    RunNote,
    RunRow,
    ScreenRow,
    TerminalChunkRow,
)
from backchannel.recordings.shapes import Fact, RunDetail


class CaptureError(UserError):
    """The capture could not start or go on; the message says what and what to do next."""


class UpstreamDown(CaptureError):
    """Nothing accepts connections at the upstream: the finalised recording holds an `upstream-unreachable` anomaly."""


class HarnessBroken(CaptureError):
    """The proxy died under the capture: the recording is finalised and judging it says ERROR, with why."""


CONTRACT_ENV_FACT = "contract_env"
# the per-run variables a recording may hand a replayed client: the official suite's driver contract, nothing else (a
# recording from elsewhere must never choose a client's PATH, HOME or preloads)
CONTRACT_ENV_PREFIXES = ("MCP_CONFORMANCE_",)
# a name the OS takes as it is ("=" in a name is refused by exec: a hostile recording would crash the replay)
_CONTRACT_ENV_NAME = re.compile(r"MCP_CONFORMANCE_[A-Z0-9_]+")
MAX_CONTRACT_VALUE = 64 * 1024


def contract_env(facts: Mapping[str, Fact]) -> dict[str, str]:
    """The driver-contract environment a run's client was given (`run_client`'s `env`, kept as the run's
    `contract_env` fact), read back for a replay: only the contract's names, string values of bounded size."""
    raw = facts.get(CONTRACT_ENV_FACT)
    try:
        found = json.loads(raw) if isinstance(raw, str) and len(raw) <= 4 * MAX_CONTRACT_VALUE else None
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {
        k: v
        for k, v in found.items()
        if isinstance(k, str)
        and _CONTRACT_ENV_NAME.fullmatch(k)
        and isinstance(v, str)
        and len(v) <= MAX_CONTRACT_VALUE
        and "\0" not in k + v
    }


def plan_problem(plan: Mapping[str, Any] | None) -> str | None:
    """Why a plan read back from a recording cannot be applied (it does not parse), or None when it can."""
    try:
        parse_plan(dict(plan or {}))
    except PlanError as exc:
        return str(exc)
    return None


MAX_OUTPUT = 8 * 1024 * 1024  # terminal bytes kept per run and stream; past it, an `output-limit` anomaly


@dataclass(frozen=True)
class RunHandle:
    id: str
    name: str
    url: str
    upstream: str


def upstream_reachable(url: str, timeout: float = 3.0) -> str | None:
    """None if something accepts TCP connections at the URL's host and port, else why not."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http(s) URL"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except OSError as exc:
        return f"nothing accepts connections at {parts.hostname}:{port} ({exc.strerror or exc})"


class Capture:
    """Use as a context manager; closing finalises the recording so it opens read-only anywhere."""

    def __init__(
        self,
        out: Path,
        *,
        upstream: str | None = None,
        endpoint: EndpointConfig | None = None,
        nonce: str | None = None,
        scenario: str | None = None,
        meta: Sequence[MetaValue] = (),
        flow_state: bool = False,
        env: Mapping[str, str] | None = None,
        max_output: int = MAX_OUTPUT,
        mcp_config: McpConfigOptions | None = None,
        tty: TtyOptions | None = None,
        redaction: redact.Policy = redact.DEFAULT_POLICY,
        limits: Limits | None = None,
        web_ui: WebUiOptions | None = None,
    ) -> None:
        # what the recording hides (this process's rows and meta, and mitmdump's: both get the policy) and keeps
        self.redactor = redact.Redactor(redaction)
        self.limits = limits or Limits()
        self.web_ui = web_ui  # `record --ui web`: the proxy runs mitmweb, its UI served as this says
        self.mcp_config = mcp_config  # how {mcp-config} and --mcp-config-file describe a run's server
        self.tty = tty  # --tty: every client run of this capture under a terminal (run_client may say otherwise)
        self.flow_state = flow_state
        self.env = dict(env or {})  # set in every lab's environment; the run records the names, never the values
        self.max_output = max_output
        self.marker = secrets.token_hex(8)  # every client process of this capture carries it (the sweeper's net)
        self.labs: Path | None = None  # the parent of this capture's labs (owner-only)
        self._lock_file: RecordingLock | None = None
        self._interruptible = interruptible()
        self.out = Path(out)
        self.upstream = upstream
        self.nonce = nonce or secrets.token_hex(8)
        # given no endpoint (and no upstream), the scripted endpoint serves no tools: the caller hands it what to serve
        self.endpoint_config = endpoint or EndpointConfig(tools=(), nonce=self.nonce)
        self.endpoints: list[RunningEndpoint] = []
        self.proxy: RunningProxy | None = None
        self.writer: store.RecordingWriter | None = None
        self.scenario = scenario  # the recording's scenario, in its meta (runs name their own)
        self.meta = tuple(meta)
        self._ordinal = 0
        self._offsets: dict[tuple[str, str], int] = {}
        self._lock = threading.Lock()
        self._details: dict[str, RunDetail] = {}
        self.agents: AgentLab | None = None  # started by the first run whose client is a coding agent (agent_lab.py)
        self._listed_gate: Gate | None = None  # the running agent's "tools listed" gate (runs are one at a time)

    def __enter__(self) -> Capture:
        self._interruptible.__enter__()  # SIGTERM/SIGHUP unwind the block like Ctrl-C does
        try:
            self.start()
        except BaseException as exc:
            try:
                with shielded():
                    self._note_interruption(exc)
                    self.close()  # a failed start still leaves a finalised recording holding why it failed
            finally:
                self._interruptible.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, exc_type: object, exc: BaseException | None, tb: object) -> None:
        try:
            with shielded():  # a second signal must not cut the finalising short
                self._note_interruption(exc)
                self.close()
        finally:
            self._interruptible.__exit__(None, None, None)

    def _late_anomaly(self, kind: str, detail: str) -> None:
        """An anomaly found after this process closed its writer (one short-lived connection)."""
        late = store.RecordingWriter(self.out)
        late.insert(AnomalyRow(kind=kind, detail=detail, t=time.time()))
        late.close()

    def _note_interruption(self, exc: BaseException | None) -> None:
        why = interruption(exc)
        if why is not None and self.writer is not None:
            self.writer.insert(AnomalyRow(kind="orchestrator-interrupted", detail=why, t=time.time()))

    def start(self) -> None:
        mark("capture-start")
        info = RecordingInfo(
            tool_version=version("backchannel"),
            mitmproxy_version=version("mitmproxy"),
            nonce=self.nonce,
            created_at=time.time(),
            scenario=self.scenario,
        )
        store.create(self.out, info, self.meta, self.redactor)
        self._lock_file = RecordingLock(self.out)  # `record --force` elsewhere must not delete it while we write
        self.writer = store.RecordingWriter(self.out, self.redactor)
        self.labs = Path(tempfile.mkdtemp(prefix="backchannel-labs-"))
        mark("recording-created")
        if self.upstream is None:
            self.upstream = self.start_endpoint(self.endpoint_config).url
            mark("endpoint-started")
        problem = upstream_reachable(self.upstream)
        if problem:
            self.writer.insert(AnomalyRow(kind="upstream-unreachable", detail=problem, t=time.time()))
            self.writer.flush()
            raise UpstreamDown(f"upstream {self.upstream} is down: {problem}; start it or pass another --upstream")
        try:
            self.proxy = start_proxy(
                self.out,
                self.upstream,
                flow_state=self.flow_state,
                marker=self.marker,
                labs=self.labs,
                limits=self.limits,
                redaction=self.redactor.policy,
                web_ui=self.web_ui,
            )
        except Exception as exc:
            self.writer.insert(AnomalyRow(kind="proxy-failed", detail=str(exc), t=time.time()))
            self.writer.flush()
            raise CaptureError(str(exc)) from exc
        self.writer.set_meta(ProxyStartup(self.proxy.started_in))
        mark("proxy-ready")

    @property
    def server_name(self) -> str:
        """The name a generated MCP configuration gives the run's server: the scripted endpoint's own name."""
        return self.endpoint_config.server_name if self.endpoints else "backchannel-upstream"

    def start_endpoint(self, config: EndpointConfig) -> RunningEndpoint:
        """Another scripted endpoint (e.g. a legacy-only one) that runs may name as their upstream."""
        running = start_endpoint(config)
        running.on_listed(self._tools_listed)
        self.endpoints.append(running)
        return running

    def _tools_listed(self) -> None:
        """A scripted endpoint answered tools/list (its serving thread): the running agent's task may be typed."""
        gate = self._listed_gate
        if gate is not None:
            gate.open()

    def new_run(
        self,
        name: str,
        plan: dict[str, Any] | None = None,
        *,
        scenario: str | None = None,
        upstream: str | None = None,
        argv: Sequence[str] | None = None,
        facts: Mapping[str, Fact] | None = None,
        stored: bool = False,
    ) -> RunHandle:
        """Register a run (its plan validated first) and commit it before any client can reach its URL.

        `facts` are the scenario's own facts about the run, kept in its detail beside its URL. A `stored` plan was
        read back from a recording (a replay applies it again): it is registered as it is, even when it no longer
        parses, and the proxy then refuses that run's requests with an `invalid-plan` anomaly (addons/session.py),
        as it does for any run whose stored plan does not parse; `plan_problem` says so beforehand."""
        assert self.writer is not None and self.proxy is not None and self.upstream is not None
        self.check_proxy()
        if not stored:
            parse_plan(plan or {})
        run_id = secrets.token_hex(6)
        target = upstream or self.upstream
        self._ordinal += 1
        path = urlsplit(target).path or "/"
        url = f"{self.proxy.base_url}/r/{run_id}{path}"
        self._details[run_id] = RunDetail(url=url, facts=dict(facts or {}))
        self.writer.insert(
            RunRow(
                id=run_id,
                ordinal=self._ordinal,
                name=name,
                scenario=scenario,
                upstream=target,
                plan=plan or {},
                client_argv=list(argv) if argv is not None else None,
                started_at=time.time(),
                detail=self._details[run_id],
            )
        )
        self.writer.flush()
        path = urlsplit(target).path or "/"
        return RunHandle(run_id, name, f"{self.proxy.base_url}/r/{run_id}{path}", target)

    def read(self) -> Recording:
        """The recording as far as it is committed, read in place beside the writers (never `load(self.out)` while
        the capture runs: see recordings/guard.py open_untrusted, `live`)."""
        return load(self.out, live=True)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 10.0) -> bool:
        """Poll a condition on the recording (the proxy writes from another process), bounded."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.02)  # the writer commits every 50 ms; there is no cross-process event to await
        return predicate()

    def record_files(self, run: RunHandle, lab: Lab) -> None:
        """Record the text files a lab's HOME holds, as evidence of that run."""
        assert self.writer is not None
        for found in lab.files():
            self.writer.insert(
                FileRow(run_id=run.id, path=found.path, size=found.size, data=found.data, truncated=found.truncated)
            )

    def record_opens(self, run: RunHandle, lab: Lab) -> None:
        """Record what the client asked the lab's URL-opener stand-ins to open (an `opens` row per call), and what was
        wrong with their log, if anything, as the run's anomalies: the log is the client's to spoil."""
        assert self.writer is not None
        found = lab.opener_calls()
        for call in found.invocations:
            self.writer.insert(
                OpenRow(run_id=run.id, t=call.t, opener=call.opener, argv=call.argv, truncated=call.truncated)
            )
        for problem in found.problems:
            self.writer.insert(AnomalyRow(kind=problem.kind, detail=problem.detail, run_id=run.id, t=time.time()))

    def record_output(self, run_id: str, stream: str, chunk: bytes) -> None:
        """Keep a stream's bytes up to `max_output`; past it, one `output-limit` anomaly, and the rest is dropped."""
        assert self.writer is not None
        with self._lock:
            offset = self._offsets.get((run_id, stream), 0)
            self._offsets[(run_id, stream)] = offset + len(chunk)
        kept = chunk[: max(0, self.max_output - offset)]
        if kept:
            self.writer.insert(TerminalChunkRow(run_id=run_id, stream=stream, offset=offset, data=kept, t=time.time()))
        if len(kept) < len(chunk) and offset <= self.max_output:
            detail = f"{stream} passed {self.max_output} bytes (--max-output): the bytes up to it are kept"
            self.writer.insert(AnomalyRow(kind="output-limit", detail=detail, run_id=run_id, t=time.time()))

    def record_snapshot(self, run_id: str, snapshot: Snapshot) -> None:
        """Keep one screen snapshot of a run under a terminal as a `screens` row."""
        assert self.writer is not None
        self.writer.insert(
            ScreenRow(
                run_id=run_id,
                t=snapshot.t,
                reason=snapshot.reason,
                cols=snapshot.cols,
                rows=snapshot.rows,
                cursor_row=snapshot.cursor_row,
                cursor_col=snapshot.cursor_col,
                text=snapshot.text,
                answer_pattern=snapshot.answer_pattern,
                answer_text=snapshot.answer_text,
            )
        )

    def run_client(
        self,
        run: RunHandle,
        argv_template: Sequence[str],
        *,
        timeout: float = 60.0,
        on_output: Callable[[str, bytes], None] | None = None,
        keep_lab: bool = False,
        lab: Lab | None = None,
        stdin: bytes | None = None,
        tty: TtyOptions | None = None,
        on_snapshot: Callable[[Snapshot], None] | None = None,
        env: Mapping[str, str] | None = None,
    ) -> LabResult:
        """Run the client command with {url} substituted, in a fresh lab; record its output, exit, files and the URLs
        it asked the lab's opener stand-ins to open. `env` is set in this run's lab only, over the capture's own
        (a scenario's per-run contract, e.g. MCP_CONFORMANCE_SCENARIO); like --env, only the names are recorded.

        With `tty` the client runs under a terminal of that size (proxy/run/tty.py): its output is the one `tty`
        stream, and each screen snapshot is a `screens` row (and is handed to `on_snapshot`)."""
        assert self.writer is not None
        tty = tty if tty is not None else self.tty
        lab = lab or Lab(run.id, keep=keep_lab, parent=None if keep_lab else self.labs)
        try:
            agent = self._agent_run(run, argv_template, lab, tty) if is_agent_client(argv_template) else None
        except BaseException:
            lab.close()
            raise
        if agent is not None:
            argv = list(agent.argv)
            self.add_facts(run, agent.facts)
            if tty is not None and agent.react > tty.react:  # its UI drops keys typed the moment a dialog appears
                tty = replace(tty, react=agent.react)
        else:
            argv = expand(
                resolve_command(argv_template),
                url=run.url,
                home=lab.home,
                server_name=self.server_name,
                options=self.mcp_config,
            )
        run_env = {**self.env, **(env or {})}
        if run_env:  # the names only: values may be secrets
            detail = self._details.get(run.id, RunDetail())
            facts = {**detail.facts, "lab_env": ",".join(sorted(run_env))}
            contract = {k: v for k, v in (env or {}).items() if k.startswith(CONTRACT_ENV_PREFIXES)}
            if contract:  # a driver contract's values are the scenario's, not the user's: kept, so a replay sets them
                facts[CONTRACT_ENV_FACT] = json.dumps(contract, ensure_ascii=False, sort_keys=True)
            self._details[run.id] = replace(detail, facts=facts)

        def output(stream: str, chunk: bytes) -> None:
            self.record_output(run.id, stream, chunk)
            if on_output is not None:
                on_output(stream, chunk)

        def snapshot(taken: Snapshot) -> None:
            self.record_snapshot(run.id, taken)
            if on_snapshot is not None:
                on_snapshot(taken)

        try:
            self.writer.update_run(run.id, RunLaunch(client_argv=argv, lab_home=str(lab.home)))
            agent_env = agent.env if agent is not None else {}
            lab_env = lab.env(run.url, {**agent_env, **run_env, CAPTURE_MARKER_VAR: self.marker}, tty=tty)
            steps = self._agent_steps(run, agent) if agent is not None else ()
            try:
                result = lab.run(
                    argv, lab_env, output, timeout, stdin=stdin, tty=tty, on_snapshot=snapshot, steps=steps
                )
            except BaseException as exc:  # interrupted: the run still gets an end saying so
                self.end_run(run, outcome="interrupted", note=interruption(exc) or f"{type(exc).__name__}: {exc}")
                raise
            finally:
                self._listed_gate = None
                if agent is not None:
                    agent.stop()  # bounded; its last exchanges are queued before the run ends
            self.record_files(run, lab)
            self.record_opens(run, lab)
            self.end_run(run, exit_code=result.exit_code, outcome=result.outcome, note=result.detail)
            self.check_proxy()
            return result
        finally:
            lab.close()

    def _agent_run(self, run: RunHandle, argv_template: Sequence[str], lab: Lab, tty: TtyOptions | None) -> AgentRun:
        """Prepare a run whose client is a coding agent: its model stand-in, files and environment (agent_lab.py)."""
        assert self.writer is not None
        if self.agents is None:
            self.agents = AgentLab(lambda kind, detail, run_id: self.note_anomaly(kind, detail, run_id))
        return self.agents.prepare(
            argv_template,
            run_id=run.id,
            url=run.url,
            home=lab.home,
            cwd=lab.work,
            interactive=under_terminal(tty),
            tools=self._tools_of(run),
            server_name=self.server_name,
            sink=self.writer.insert,
        )

    def _tools_of(self, run: RunHandle) -> tuple[ToolSpec, ...]:
        """The tools the run's own upstream serves (a scenario may point a run at another scripted endpoint, such as
        a legacy-only one); the capture's endpoint's for a real upstream, whose tools are not known here."""
        for endpoint in self.endpoints:
            if endpoint.url == run.upstream and endpoint.config is not None:
                return tuple(endpoint.config.tools)
        return tuple(self.endpoint_config.tools)

    def _agent_steps(self, run: RunHandle, agent: AgentRun) -> tuple[UiStep, ...]:
        """The keys the lab types into an agent's terminal UI. Its task waits for the run's server to list its tools
        when that server is one of this capture's scripted endpoints; a real upstream's listing cannot be seen, so
        then the task is typed as soon as the UI is ready."""
        if not agent.steps:
            return ()
        if agent.listed is not None and any(run.upstream == endpoint.url for endpoint in self.endpoints):
            self._listed_gate = agent.listed
            return agent.steps
        return tuple(replace(step, gate=None) if step.name == "task" else step for step in agent.steps)

    def check_proxy(self) -> None:
        """Raise HarnessBroken if mitmdump died under the capture: later runs could not be seen either."""
        if self.proxy is not None and self.proxy.exited() is not None:
            raise HarnessBroken(f"mitmdump exited with code {self.proxy.exited()} in the middle of the capture")

    def set_meta(self, value: MetaValue) -> None:
        assert self.writer is not None
        self.writer.set_meta(value)

    def flush(self) -> None:
        """Wait until everything this process queued is committed."""
        assert self.writer is not None
        self.writer.flush()

    def add_facts(self, run: RunHandle, facts: Mapping[str, Fact]) -> None:
        """Add a scenario's facts about a run it drove itself (written with the run's end)."""
        detail = self._details.get(run.id, RunDetail())
        self._details[run.id] = replace(detail, facts={**detail.facts, **facts})

    def note_anomaly(self, kind: str, detail: str, run_id: str | None = None) -> None:
        """Record something the harness saw go wrong around the runs (e.g. a server that stopped answering)."""
        assert self.writer is not None
        self.writer.insert(AnomalyRow(kind=kind, detail=detail, run_id=run_id, t=time.time()))

    def note_run(self, run: RunHandle, *, planted_id: str) -> None:
        """Record what the harness planted on a run (the ledger witness's request id)."""
        assert self.writer is not None
        detail = self._details[run.id] = replace(self._details.get(run.id, RunDetail()), planted_id=planted_id)
        self.writer.update_run(run.id, RunNote(detail=detail))

    def end_run(self, run: RunHandle, *, exit_code: int | None = None, outcome: str = "ended", note: str = "") -> None:
        assert self.writer is not None
        detail = self._details.get(run.id, RunDetail())
        if note:
            detail = self._details[run.id] = replace(detail, note=note)
        self.writer.update_run(
            run.id, RunEnd(ended_at=time.time(), exit_code=exit_code, outcome=outcome, detail=detail)
        )
        self.writer.flush()

    def close(self) -> None:
        """Close in the order that leaves the least behind if this process is killed halfway: the labs first, then
        this process's connection, then mitmdump (the last connection: SQLite folds the WAL in as it closes), then
        the endpoints, and the rollback-journal switch last (a file that misses only that reads the same)."""
        mark("close-start")
        problems = []
        if self.labs is not None:
            shutil.rmtree(self.labs, ignore_errors=True)
            self.labs = None
        if self.agents is not None:
            self.agents.close()
            self.agents = None
        mark("labs-removed")
        died = self.proxy.exited() if self.proxy is not None else None  # before we asked: it died under us
        opened = self.writer is not None
        if self.writer is not None:
            writer = self.writer
            # names and counts only, after every row
            writer.later(lambda: writer.set_meta(writer.redactor.summary("harness")))
            try:
                writer.close()
            except RecordingError as exc:  # said once the proxy and the servers are stopped too
                problems.append(str(exc))
            self.writer = None
        mark("writer-closed")
        if self.proxy is not None:
            code = self.proxy.stop()
            mark("proxy-stopped")
            if died is not None or code not in (0, -2, 130):
                when = " on its own, before the capture closed," if died is not None else ""
                self._late_anomaly(
                    "proxy-exit", f"mitmdump exited{when} with code {code}: {self.proxy.output_tail()[-2000:]}"
                )
            self.proxy = None
        for running in self.endpoints:
            running.stop()
        self.endpoints.clear()
        mark("endpoints-stopped")
        if opened:
            try:
                store.finalize(self.out)
            except RecordingError as exc:
                problems.append(str(exc))
        mark("finalized")
        if self._lock_file is not None:
            self._lock_file.release()
            self._lock_file = None
        if problems:
            raise CaptureError("; ".join(problems))
