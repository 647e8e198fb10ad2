"""The `backchannel` command as a user runs it: a subprocess, exit codes, and what it prints.

What `show` and `upgrade` make of hostile or broken files, and what `record` does with a client that cannot start,
is the command's own logic, not the process's: those run in this process (tests/in_process.py), which spares a CLI
start (about half a CPU second) each."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import msgpack
import pytest
from mitmproxy import http  # noqa: F401  (importing it registers the http flow type for Flow.from_state)
from mitmproxy.flow import Flow

from backchannel.oracle import ORACLE_VERSION, judge
from backchannel.oracle.render import render
from backchannel.oracle.terminal import raw_bytes
from backchannel.recordings import load
from backchannel.recordings.reports import stored_report
from tests.e2e.conftest import REPO_TEXT, TOOL
from tests.factories import new_recording
from tests.in_process import backchannel


def _backchannel() -> list[str]:
    script = Path(sys.executable).parent / "backchannel"
    if script.exists():
        return [str(script)]
    found = shutil.which("backchannel")
    return [found] if found else [sys.executable, "-m", "backchannel.proxy.cli"]


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # the width a pipe gets


def _cli(*args: str | Path, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    command = [*_backchannel(), *map(str, args)]
    return subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, env=_env(), stdin=subprocess.DEVNULL
    )


def _squeezed(text: str) -> str:
    """Text with all whitespace removed, to compare a message whatever the console did to line breaks."""
    return "".join(text.split())


def _bad_plan(tmp_path: Path) -> Path:
    plan = tmp_path / "plan.json"
    mutations = [{"kind": "drop-result-type", "match": {"method": "tools/call"}}, {"kind": "explode"}]
    plan.write_text(json.dumps({"mutations": mutations}), encoding="utf-8")
    return plan


def _not_sqlite(tmp_path: Path) -> Path:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(b"this is plain text, not a database\n" * 100)
    return junk


def _foreign_sqlite(tmp_path: Path) -> Path:
    other = tmp_path / "other.sqlite"
    conn = sqlite3.connect(other)
    try:
        with conn:
            conn.execute("CREATE TABLE notes (body TEXT)")
            conn.execute("INSERT INTO notes VALUES ('hello')")
    finally:
        conn.close()
    return other


@pytest.fixture(scope="module")
def sdk_session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One `record --flow-state` of the Python SDK driver against the bundled endpoint, made once for the module:
    the tests below each read their own part of it (what record printed, what show and judge print of the file,
    the flow state it stored)."""
    out = tmp_path_factory.mktemp("sdk-session") / "session.sqlite"
    client = [sys.executable, "-m", "backchannel.proxy.clients.drivers.py_sdk", "{url}"]
    return out, _cli("record", "--flow-state", "--out", out, "--timeout", "30", "--", *client, timeout=90)


def test_record_runs_the_sdk_client_through_the_proxy_and_show_prints_its_calls_and_output(
    sdk_session: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, recorded = sdk_session
    assert recorded.returncode == 0, recorded.stderr
    assert "clientexitedwithexitcode0" in _squeezed(recorded.stderr)

    rec = load(out)
    (run,) = rec.runs
    assert (run.outcome, run.exit_code) == ("exited", 0)
    stdout = raw_bytes(rec, run.id, "stdout").decode()
    assert stdout == f"result {TOOL}: {REPO_TEXT}\n"
    assert not Path(f"{out}-wal").exists(), "record finalises the file"
    kept = stored_report(rec)  # the report it judges to now travels with it, for `judge --diff` later
    assert kept is not None and kept.oracle_version == ORACLE_VERSION
    assert kept.document == json.loads(render(judge(rec), "json"))

    shown = _cli("show", out)
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    calls = [line for line in lines if "tools/call" in line]
    requests = [line for line in calls if "client → server" in line and "request tools/call" in line]
    responses = [line for line in calls if "server → client" in line and "response tools/call" in line]
    assert len(requests) == 1 and f"name={TOOL}" in requests[0]
    assert len(responses) == 1 and "resultType=complete" in responses[0]
    # print(text) writes the text in one piece, so this line never depends on how the lab read the pipe
    assert any(line.strip().startswith("stdout@") and line.endswith(f": {REPO_TEXT}") for line in lines), lines
    assert any(line.strip() == "outcome: exited exit=0" for line in lines)
    assert shown.stderr == ""


def test_judge_of_a_plain_recorded_session_gives_the_session_rules_not_nothing(
    sdk_session: tuple[Path, subprocess.CompletedProcess[str]],
) -> None:
    out, recorded = sdk_session
    assert recorded.returncode == 0, recorded.stderr
    judged = _cli("judge", out, "--format", "json")
    assert judged.returncode == 0, judged.stderr
    report = json.loads(judged.stdout)
    statuses = {r["id"]: r["status"] for r in report["results"] if r["scenario"] == "session"}
    assert report["scenarios"][-1] == "session" and len(statuses) == 29
    # the Python SDK spoke 2026-07-28 to the bundled endpoint: the client rules judged it; the endpoint is
    # backchannel's own, so no server rule judged it
    assert statuses["sep-2575-client-populates-meta"] == "PASS"
    assert statuses["sep-2575-http-routing-headers-match-body"] == "PASS"
    assert statuses["session-server-result-type"] == "SKIP"


def test_show_prints_a_line_the_client_wrote_in_pieces_as_one_line(tmp_path: Path) -> None:
    # print("tools:", name) makes four writes; with PYTHONUNBUFFERED the lab may read them as four chunks
    pieces = [b"tools:", b" ", TOOL.encode(), b"\n", REPO_TEXT.encode(), b"\n"]
    offsets = [sum(len(p) for p in pieces[:i]) for i in range(len(pieces))]
    terminal = [
        {"run_id": "r1", "stream": "stdout", "offset": offset, "data": piece, "t": 1000.0 + i}
        for i, (offset, piece) in enumerate(zip(offsets, pieces, strict=True))
    ]
    recording = new_recording(tmp_path / "pieces.sqlite", runs=[{"id": "r1"}], terminal=terminal)
    assert raw_bytes(load(recording), "r1", "stdout") == f"tools: {TOOL}\n{REPO_TEXT}\n".encode()

    shown = backchannel("show", str(recording))
    assert shown.exit_code == 0, shown.stderr
    printed = [line.strip() for line in shown.stdout.splitlines() if "stdout@" in line]
    assert printed == [f"stdout@0: tools: {TOOL}", f"stdout@{offsets[4]}: {REPO_TEXT}"]


@pytest.fixture(scope="module")
def cli_errors(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, subprocess.CompletedProcess[str]]]:
    """The four refusals, run side by side once for the module: case -> (the file named, what the CLI did)."""
    tmp_path = tmp_path_factory.mktemp("cli-errors")
    out = tmp_path / "never.sqlite"
    cases: dict[str, tuple[Path, list[str | Path]]] = {
        "bad-plan": (out, ["record", "--out", out, "--plan", _bad_plan(tmp_path), "--", sys.executable, "-c", "pass"]),
        "not-sqlite": (junk := _not_sqlite(tmp_path), ["show", junk]),
        "missing": (missing := tmp_path / "missing.sqlite", ["show", missing]),
        "foreign-sqlite": (other := _foreign_sqlite(tmp_path), ["show", other]),
    }
    started = {
        case: subprocess.Popen(
            [*_backchannel(), *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
            env=_env(),
        )
        for case, (_, args) in cases.items()
    }
    done: dict[str, tuple[Path, subprocess.CompletedProcess[str]]] = {}
    try:
        for case, process in started.items():
            stdout, stderr = process.communicate(timeout=30)
            done[case] = (cases[case][0], subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr))
    finally:
        for process in started.values():
            if process.poll() is None:
                process.kill()
                process.communicate(timeout=5)
    return done


def test_record_with_a_plan_naming_an_unknown_kind_exits_2_naming_the_mutation(
    cli_errors: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    out, result = cli_errors["bad-plan"]
    assert result.returncode == 2
    assert result.stdout == ""
    message = _squeezed(result.stderr)
    assert message.startswith("backchannel:")
    assert _squeezed("plan mutation 1: kind 'explode' is not one of") in message
    assert "Traceback" not in result.stderr
    assert not out.exists(), "a bad plan is refused before any recording is created"


def test_show_on_a_file_that_is_not_sqlite_exits_2_saying_so(
    cli_errors: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    junk, result = cli_errors["not-sqlite"]
    assert result.returncode == 2 and result.stdout == ""
    assert _squeezed(f"backchannel: {junk} is not a SQLite database") in _squeezed(result.stderr)
    assert "Traceback" not in result.stderr


def test_show_on_a_missing_file_exits_2_saying_so(
    cli_errors: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    missing, result = cli_errors["missing"]
    assert result.returncode == 2 and result.stdout == ""
    assert _squeezed(f"backchannel: {missing}: no such recording") in _squeezed(result.stderr)
    assert not missing.exists(), "show never creates the file it was asked to read"


def test_show_on_an_unrelated_sqlite_file_says_it_is_not_a_backchannel_recording(
    cli_errors: dict[str, tuple[Path, subprocess.CompletedProcess[str]]],
) -> None:
    other, result = cli_errors["foreign-sqlite"]
    assert result.returncode == 2 and result.stdout == ""
    assert _squeezed(f"backchannel: {other} is a SQLite file but not a backchannel recording") in _squeezed(
        result.stderr
    )
    conn = sqlite3.connect(f"{other.resolve().as_uri()}?mode=ro", uri=True)
    try:
        assert conn.execute("SELECT body FROM notes").fetchall() == [("hello",)], "show left the file alone"
    finally:
        conn.close()


@pytest.mark.parametrize("case", ["bad-plan", "not-sqlite", "missing", "foreign-sqlite"])
def test_every_cli_error_is_a_single_line(
    cli_errors: dict[str, tuple[Path, subprocess.CompletedProcess[str]]], case: str
) -> None:
    _, result = cli_errors[case]
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1, result.stderr


def test_flow_state_is_stored_on_request_and_restores_as_a_mitmproxy_flow(
    sdk_session: tuple[Path, subprocess.CompletedProcess[str]],
):
    out, done = sdk_session
    assert done.returncode == 0, done.stderr
    exchange = next(x for x in load(out).exchanges if x.flow_state)
    flow = Flow.from_state(msgpack.unpackb(exchange.flow_state, raw=False))
    assert flow.request.method == "POST" and flow.response is not None


def test_a_client_that_cannot_start_exits_2_naming_why_and_the_recording_keeps_the_run(tmp_path):
    out = tmp_path / "nf.sqlite"
    done = backchannel("record", "--out", str(out), "--", "/nonexistent/client", "{url}")
    assert done.exit_code == 2
    assert "No such file or directory" in done.stderr.splitlines()[-1]
    (run,) = load(out).runs
    assert run.outcome == "failed-to-start" and "No such file" in (run.detail.note or "")


def test_show_escapes_terminal_control_sequences_a_hostile_recording_carries(tmp_path):
    path = new_recording(
        tmp_path / "hostile.sqlite",
        runs=[{"id": "r1", "name": "x\x1b]0;pwned\x07"}],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": b"\x1b[31mred\x1b[0m \xe2\x80\xaeevil\n"}],
    )
    shown = backchannel("show", str(path))
    assert shown.exit_code == 0
    assert "\x1b" not in shown.stdout and "\u202e" not in shown.stdout
    assert "\\x1b[31mred" in shown.stdout and "\\u202eevil" in shown.stdout


REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
UNSAFE = ("\x1b", "\x9b", "\x07", "\u202e", "\u2066", "\x85")


def _hostile_copy(tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "hostile.sqlite"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.sqlite", path)
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return path


def test_show_neutralises_escapes_c1_controls_and_bidi_in_messages_output_files_and_anomalies(tmp_path):
    evil = "'\x1b]0;pwned\x07 \x9b31m \u202eevil\u2066 \x85'"
    path = _hostile_copy(
        tmp_path,
        f"""UPDATE messages SET text = json_object('jsonrpc', '2.0', 'id', 1, 'result',
            json_object('resultType', {evil}, 'inputRequests', json_array(1, {evil}))) WHERE direction = 'to-client'""",
        f"UPDATE terminal SET data = CAST({evil} AS BLOB)",
        f"UPDATE files SET path = {evil}",
        f"INSERT INTO anomalies(run_id, kind, detail) SELECT id, {evil}, {evil} FROM runs",
        f"UPDATE runs SET client_argv = json_array({evil})",
    )
    shown = backchannel("show", str(path))
    assert shown.exit_code == 0, shown.stderr
    assert not [c for c in UNSAFE if c in shown.stdout]
    for escaped in ("\\x1b]0;pwned\\x07", "\\x9b31m", "\\u202eevil\\u2066", "\\x85"):
        assert escaped in shown.stdout


def test_show_refuses_an_endless_view_quickly_with_one_line(tmp_path):
    path = _hostile_copy(
        tmp_path,
        "DROP TABLE messages",
        "CREATE VIEW messages AS WITH RECURSIVE n(seq) AS (SELECT 1 UNION ALL SELECT seq + 1 FROM n) SELECT * FROM n",
    )
    shown = backchannel("show", str(path))
    assert shown.exit_code == 2
    assert shown.stderr.count("\n") == 1 and "messages is a view, not a table" in shown.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.sqlite"]


@pytest.mark.parametrize("kind", ["missing", "empty", "directory", "fifo", "junk", "unrelated-sqlite"])
def test_upgrade_refuses_what_is_not_a_recording_with_exit_2_and_one_line(tmp_path, kind):
    path = tmp_path / "target.sqlite"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "junk":
        path.write_bytes(b"\x00junk" * 100)
    elif kind == "unrelated-sqlite":
        conn = sqlite3.connect(path)
        conn.execute("CREATE TABLE t (x)")
        conn.close()
    before = sorted(p.name for p in tmp_path.iterdir())
    done = backchannel("upgrade", str(path))
    assert done.exit_code == 2
    assert done.stderr.count("\n") == 1 and str(path) in done.stderr and "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_live_record_names_a_broken_session_rule_as_soon_as_the_recording_shows_it(tmp_path: Path) -> None:
    import re
    import select
    import urllib.error
    import urllib.request

    out = tmp_path / "live.sqlite"
    live = subprocess.Popen(
        [*_backchannel(), "record", "--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env()
    )
    try:
        assert live.stdout is not None
        line = live.stdout.readline().decode()
        url = re.search(r"http://127\.0\.0\.1:\d+/r/\w+/mcp", line)
        assert url, line
        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}  # no clientCapabilities: a broken MUST
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
        request = urllib.request.Request(
            url.group(0),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                     "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
        )  # fmt: skip
        try:  # the endpoint refuses it (HTTP 400: no capabilities declared); the request is recorded all the same
            urllib.request.urlopen(request, timeout=10).read()
        except urllib.error.HTTPError as refused:
            refused.read()
        seen = []
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:  # bounded: the line comes within a refresh or two of the message
            ready, _, _ = select.select([live.stdout], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                break
            said = live.stdout.readline().decode()
            seen.append(said)
            if "rule FAIL" in said:
                break
        assert any("rule FAIL: sep-2575-client-populates-meta (client, MUST) at #" in s for s in seen), seen
    finally:
        live.send_signal(2)
        live.communicate(timeout=30)
