"""`check --by-hand` end to end, with no person (issue 25, item 4): the guided session runs as a terminal program under
a pseudo-terminal and is answered expect-style, while the toy agent's `ui` command plays the host a person drives.

The "person" answers as a person would: by reading what the host showed. The careful build names the server in its
elicitation fence, the `no-server-name` build does not; the answer typed follows from the host's own output, so a
host that names the server and a person who says so is PASS, one that does not and a person who says so is FAIL with
the answer as evidence, and a person who is unsure is WARN. The report (`--format json`, stdout, kept apart from the
prompts on stderr) says which results rest on the person's answer (`attested: true`).

Everything binds 127.0.0.1; every wait is bounded; every process started here is ended by its own pid.
"""

from __future__ import annotations

import codecs
import json
import os
import re
import select
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ptyprocess import PtyProcess

from backchannel.oracle import judge
from backchannel.recordings import load
from tests.in_process import backchannel

BIN = Path(sys.executable).parent
BACKCHANNEL = BIN / "backchannel"
TOY_AGENT = BIN / "backchannel-toy-agent"
WAIT = 60.0  # seconds: any one wait of the session, at most
SERVER = "backchannel-endpoint"
NAMES = f"Did the app name the server `{SERVER}` when it asked\\? \\[y\\]es/\\[n\\]o/\\[\\?\\] not sure $"
URL_SHOWN = r"Was the full URL `https://[^`]+` visible before you agreed\? \[y\]es/\[n\]o/\[\?\] not sure $"
OPENED = r"Did anything open \(a browser tab, a window\) before you agreed\? \[y\]es/\[n\]o/\[\?\] not sure $"
SCREENSHOT = r"Screenshot \(PNG or JPEG path; Enter for none\): $"
ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")

pytestmark = pytest.mark.skipif(
    not (BACKCHANNEL.exists() and TOY_AGENT.exists()), reason="backchannel and its toy agent are not installed"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Guided:
    """`check --by-hand` under a pseudo-terminal: its stderr (the prompts) on the terminal, stdout (the report) in a
    file; `expect` reads (bounded) until a pattern shows past what earlier expects consumed, `type` types a line."""

    def __init__(self, tmp: Path, port: int, *options: str, timeout: float = WAIT) -> None:
        self.report = tmp / "report.json"
        self.recording = tmp / "r.sqlite"
        options = options or ("--scenario", "elicitation-ui")
        argv = [str(BACKCHANNEL), "check", "--by-hand", *options, "--port", str(port)]
        argv += ["--timeout", f"{timeout:g}", "--out", str(self.recording), "--format", "json"]
        env = {**os.environ, "BH_REPORT": str(self.report), "NO_COLOR": "1", "TERM": "xterm"}
        # sh replaces itself with backchannel (exec), so the pid is backchannel's own; stdout goes to the file
        shell = ["/bin/sh", "-c", 'exec "$0" "$@" >"$BH_REPORT"', *argv]
        self.proc = PtyProcess.spawn(shell, env=env, cwd=str(tmp), dimensions=(50, 400))
        self.text = ""
        self.pos = 0
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def _read(self, deadline: float) -> bool:
        """One chunk of the terminal into `text`; False at its end (the session exited) or at the deadline."""
        ready, _, _ = select.select([self.proc.fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        try:
            chunk = os.read(self.proc.fd, 65536)
        except OSError:  # EIO: every end of the terminal's other side is closed
            chunk = b""
        self.text += ANSI.sub("", self._decoder.decode(chunk).replace("\r\n", "\n"))
        return bool(chunk)

    def expect(self, pattern: str, timeout: float = WAIT) -> re.Match[str]:
        wanted = re.compile(pattern, re.MULTILINE)
        deadline = time.monotonic() + timeout
        while (found := wanted.search(self.text, self.pos)) is None:
            if not self._read(deadline):
                raise AssertionError(f"no {pattern!r} within {timeout:g} s; the session showed:\n{self.text[-4000:]}")
        self.pos = found.end()
        return found

    def type(self, line: str) -> None:
        self.proc.write(line.encode() + b"\n")

    def end_input(self) -> None:
        self.proc.sendeof()

    def finish(self, timeout: float = WAIT) -> tuple[int, dict[str, Any]]:
        """Read the terminal to its end (bounded), then the exit code and the JSON report."""
        deadline = time.monotonic() + timeout
        while self._read(deadline):
            pass
        assert time.monotonic() < deadline, f"the session did not end in {timeout:g} s:\n{self.text[-4000:]}"
        code = self.proc.wait()
        return code, json.loads(self.report.read_text())

    def close(self) -> None:
        if self.proc.isalive():
            self.proc.terminate(force=True)  # SIGHUP, SIGINT, then SIGKILL: to this pid alone
        self.proc.close(force=True)


@dataclass(frozen=True)
class Outcome:
    transcript: str  # what the guided session showed on its terminal
    host: str  # what the host (the toy agent) showed its user
    code: int
    report: dict[str, Any]
    recording: Path

    def result(self, check_id: str) -> dict[str, Any]:
        found: list[dict[str, Any]] = [r for r in self.report["results"] if r["id"] == check_id]
        assert len(found) == 1, f"{check_id}: {found}"
        return found[0]


def run_host(port: int, *flaws: str) -> str:
    """The toy agent as the host: every tool called once; it declines the URL (the user types n) and the rest of its
    questions end with its input (cancel), so nothing is ever opened."""
    options = [f"--ui-flaw={flaw}" for flaw in flaws]
    host = subprocess.run(
        [str(TOY_AGENT), *options, "ui", f"http://127.0.0.1:{port}/mcp"],
        input="n\n",
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    assert "== connect_account ==" in host.stdout, host.stdout + host.stderr
    return host.stdout


def named_the_server(host: str) -> bool:
    """What the person sees: did the host's URL request (connect_account's) say which server asks?"""
    fence = next(line for line in host.splitlines() if line.startswith("[elicitation (URL mode)"))
    return f'from MCP server "{SERVER}"' in fence


def start(guided: Guided, port: int, *flaws: str) -> str:
    """Wait for step 1 on the stable URL, then let the host call the tool; what the host showed."""
    guided.expect(f"Configure your host once with this URL: http://127.0.0.1:{port}/mcp$")
    guided.expect(r"Step 1 of 1: ask the assistant to call the tool `connect_account`\.")
    guided.expect(r"Waiting up to \d+ s for the call\.\.\.")
    host = run_host(port, *flaws)
    guided.expect(r"Seen: the host called `connect_account`\.")
    return host


@pytest.fixture
def guided(tmp_path: Path) -> Iterator[tuple[Guided, int]]:
    port = free_port()
    session = Guided(tmp_path, port)
    try:
        yield session, port
    finally:
        session.close()


@pytest.fixture(scope="module")
def careful_yes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Outcome]:
    """One run shared by two tests: the careful host, a person who first types something that is not an answer
    (asked again), then says yes, gives a screenshot path that is not an image (refused), and answers the rest."""
    tmp = tmp_path_factory.mktemp("careful")
    port = free_port()
    not_an_image = tmp / "notes.txt"
    not_an_image.write_text("not a screenshot\n")
    session = Guided(tmp, port)
    try:
        host = start(session, port)
        assert named_the_server(host), host
        session.expect(NAMES)
        session.type("maybe")
        session.expect(r"^Please answer y \(yes\), n \(no\) or \? \(not sure\)\.$")
        session.expect(NAMES)
        session.type("y")
        session.expect(SCREENSHOT)
        session.type(str(not_an_image))
        session.expect(r"^Not kept: .*is not a PNG or JPEG image.*Give another path, or Enter for none\.$")
        session.expect(SCREENSHOT)
        session.type("")
        session.expect(URL_SHOWN)
        session.type("y")
        session.expect(SCREENSHOT)
        session.type("")
        session.expect(OPENED)
        session.type("n")
        session.expect(SCREENSHOT)
        session.type("")
        code, report = session.finish()
        yield Outcome(session.text, host, code, report, session.recording)
    finally:
        session.close()


def test_a_host_that_names_the_server_and_a_person_who_says_so_pass_attested(careful_yes: Outcome) -> None:
    names = careful_yes.result("by-hand-names-requesting-server")
    assert names["status"] == "PASS", names
    assert names["attested"] is True
    assert names["evidence"][0]["kind"] == "attestation"
    assert names["evidence"][0]["note"].startswith(f"person answered yes to: Did the app name the server `{SERVER}`")
    for other in ("by-hand-url-shown-before-consent", "by-hand-nothing-opened-before-consent"):
        assert careful_yes.result(other)["status"] == "PASS"
        assert careful_yes.result(other)["attested"] is True
    # the wire's own checks judge the same run and say nothing of a person
    wire = careful_yes.result("session-client-request-state-echoed")
    assert wire["status"] == "PASS" and "attested" not in wire
    # what only the lab could see (the host's screen, its browser) is not judged from an empty recording
    unseen = careful_yes.result("elicitation-url-not-opened-without-consent")
    assert (unseen["status"], unseen["reason"]) == ("SKIP", "by-hand") and "attested" not in unseen
    assert careful_yes.code == careful_yes.report["exit_code"] == 0


def test_an_answer_that_is_not_y_n_or_unsure_is_asked_again_and_only_the_answer_is_kept(careful_yes: Outcome) -> None:
    assert careful_yes.transcript.count(f"Did the app name the server `{SERVER}` when it asked?") == 2
    assert "Not kept:" in careful_yes.transcript  # the text file given as a screenshot was refused
    rec = load(careful_yes.recording)
    kept = [(a.question_id, a.answer, a.who, a.screenshot_type) for a in rec.attestations]
    assert kept == [
        ("names-requesting-server", "y", "person", None),
        ("url-shown-before-consent", "y", "person", None),
        ("nothing-opened-before-consent", "n", "person", None),
    ]


def test_a_host_that_does_not_name_the_server_and_a_person_who_says_so_fail_with_the_answer(
    guided: tuple[Guided, int],
) -> None:
    session, port = guided
    host = start(session, port, "no-server-name")
    assert not named_the_server(host), host
    session.expect(NAMES)
    session.type("n")
    session.expect(SCREENSHOT)
    session.type("")
    session.expect(URL_SHOWN)
    session.type("y")
    session.expect(SCREENSHOT)
    session.type("")
    session.expect(OPENED)
    session.type("n")
    session.expect(SCREENSHOT)
    session.type("")
    code, report = session.finish()
    outcome = Outcome(session.text, host, code, report, session.recording)
    names = outcome.result("by-hand-names-requesting-server")
    assert names["status"] == "FAIL", names
    assert names["attested"] is True
    assert names["message"] == f"the person answered 'no' to: Did the app name the server `{SERVER}` when it asked?"
    [evidence] = names["evidence"]
    assert evidence["kind"] == "attestation" and evidence["run"] == names["run"]
    assert evidence["note"] == f"person answered no to: Did the app name the server `{SERVER}` when it asked?"
    assert code == report["exit_code"] == 1
    # the recording judged again, offline, says the same
    again = {r.id: r for r in judge(load(outcome.recording)).results}
    assert again["by-hand-names-requesting-server"].status == "FAIL"
    assert again["by-hand-names-requesting-server"].attested is True


def test_a_person_who_is_unsure_is_warn_and_questions_left_when_input_ends_skip(guided: tuple[Guided, int]) -> None:
    session, port = guided
    host = start(session, port)
    session.expect(NAMES)
    session.type("?")
    session.expect(SCREENSHOT)
    session.type("")
    session.expect(URL_SHOWN)
    session.end_input()  # Ctrl-D: the person stops answering
    session.expect(r"^Input ended: the remaining questions stay unanswered \(their checks SKIP\)\.$")
    code, report = session.finish()
    outcome = Outcome(session.text, host, code, report, session.recording)
    names = outcome.result("by-hand-names-requesting-server")
    assert names["status"] == "WARN", names
    assert names["attested"] is True
    assert "not sure" in names["message"]
    for unanswered in ("by-hand-url-shown-before-consent", "by-hand-nothing-opened-before-consent"):
        result = outcome.result(unanswered)
        assert (result["status"], result["reason"], result["attested"]) == ("SKIP", "unanswered", True)
    assert code == report["exit_code"] == 0


@pytest.mark.parametrize(
    ("scenario", "said"),
    [
        ("no-such-scenario", "unknown scenario 'no-such-scenario'"),
        ("conformance", "scenario 'conformance' cannot be run by hand: its client must follow the official suite's"),
    ],
)
def test_a_scenario_that_cannot_be_run_by_hand_exits_2_naming_those_that_can(
    tmp_path: Path, scenario: str, said: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the refusal is the command's own check: in this process (tests/in_process.py)
    done = backchannel("check", "--by-hand", "--scenario", scenario, "--out", str(tmp_path / "r.sqlite"))
    assert done.exit_code == 2, done.stderr
    assert said in done.stderr
    assert "elicitation-ui" in done.stderr and "mrtr-provenance" in done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "r.sqlite").exists()


def probe_host(port: int, *build: str) -> str:
    """The toy agent as a host asked to call get_repo_status once; what it showed its user."""
    host = subprocess.run(
        [str(TOY_AGENT), *build, "mcp", "call", f"http://127.0.0.1:{port}/mcp", "get_repo_status"],
        input="",
        capture_output=True,
        text=True,
        timeout=WAIT,
        check=False,
    )
    return host.stdout + host.stderr


@pytest.mark.parametrize(
    ("era", "build", "named"),
    [("auto", ("--fix", "provenance"), True), ("2025-11-25", (), False)],
    ids=["2026-07-28-host-that-names-the-server", "2025-11-25-host-that-does-not"],
)
def test_the_default_scenario_by_hand_asks_for_get_repo_status_and_judges_the_persons_word_in_either_era(
    tmp_path: Path, era: str, build: tuple[str, ...], named: bool
) -> None:
    port = free_port()
    session = Guided(tmp_path, port, "--era", era)  # no --scenario: check's default, mrtr-provenance
    try:
        session.expect(r"backchannel by hand: mrtr-provenance, recording to ")
        session.expect(r"Step 1 of 1: ask the assistant to call the tool `get_repo_status`\.")
        session.expect(r"Waiting up to \d+ s for the call\.\.\.")
        host = probe_host(port, *build)
        session.expect(r"Seen: the host called `get_repo_status`\.")
        asked = session.expect(r"Did the app name the server `(backchannel-probe-[0-9a-f]+)` when it asked\? ")
        server = asked.group(1)
        shown = [line for line in host.splitlines() if "BCKCH-BODY-" in line]
        assert shown, host  # the host showed the probe's request to its user, in this era too
        said = f'from MCP server "{server}"' in host
        assert said is named, host
        session.type("y" if said else "n")  # the person answers from what the host showed
        session.expect(SCREENSHOT)
        session.type("")
        code, report = session.finish()
    finally:
        session.close()
    outcome = Outcome(session.text, host, code, report, session.recording)
    names = outcome.result("by-hand-names-requesting-server")
    assert (names["status"], names["attested"]) == ("PASS" if named else "FAIL", True), names
    assert names["message"].endswith(f"Did the app name the server `{server}` when it asked?")
    # the probe's own checks read a terminal the lab never had: SKIP by-hand, never an ERROR or a verdict
    for unseen in ("mrtr-provenance-input-requests", "elicitation-names-requesting-server"):
        assert (outcome.result(unseen)["status"], outcome.result(unseen)["reason"]) == ("SKIP", "by-hand")
    rec = load(session.recording)
    [run] = rec.runs
    sent = [m.method for m in rec.messages_in(run.id) if m.direction == "to-client" and m.kind == "request"]
    if era == "2025-11-25":  # the request reached a 2025 host as a server-initiated one, on the call's stream
        assert "elicitation/create" in sent
    else:
        assert "elicitation/create" not in sent
    assert code == report["exit_code"] == (0 if named else 1)


def test_sampling_by_hand_walks_five_steps_in_one_run_and_asks_about_summarize_notes_once_it_was_answered(
    tmp_path: Path,
) -> None:
    port = free_port()
    session = Guided(tmp_path, port, "--scenario", "sampling")
    try:
        session.expect(r"Step 1 of 5: ask the assistant to call the tool `read_notes`\.")
        host = subprocess.run(  # the toy sampling client calls every tool in order; its user says yes to each
            [str(TOY_AGENT), "sampling", f"http://127.0.0.1:{port}/mcp"],
            input="y\n" * 8,
            capture_output=True,
            text=True,
            timeout=WAIT,
            check=False,
        )
        session.expect(r"Seen: the host called `read_notes`\.$")
        session.expect(r"Step 2 of 5: ask the assistant to call the tool `summarize_notes`\.")
        named = session.expect(r"When the app showed the sampling request, did it name the server `([^`]+)`\? ")
        assert f'"{named.group(1)}"' in host.stdout, host.stdout  # what the person read: the server's name
        session.type("y")
        session.expect(SCREENSHOT)
        session.type("")
        session.expect(r"let you deny it before anything was sent to the model\? \[y\]es/\[n\]o/\[\?\] not sure $")
        session.type("n")
        session.expect(SCREENSHOT)
        session.type("")
        for number, tool in ((3, "plan_route"), (4, "gather_context"), (5, "check_everything")):
            session.expect(f"Step {number} of 5: ask the assistant to call the tool `{tool}`\\.")
            session.expect(f"Seen: the host called `{tool}`\\.$")
        code, report = session.finish()
    finally:
        session.close()
    outcome = Outcome(session.text, host.stdout, code, report, session.recording)
    assert [run.name for run in load(session.recording).runs] == ["contract"]  # five steps, one run
    assert (outcome.result("by-hand-sampling-names-requesting-server")["status"], code) == ("PASS", 0)
    deniable = outcome.result("by-hand-sampling-human-in-the-loop")
    assert (deniable["status"], deniable["attested"]) == ("WARN", True)  # a SHOULD: the person's no is a warning
    assert outcome.result("sampling-no-undeclared-context")["status"] == "PASS"  # the wire judges the same run
    assert outcome.result("sampling-human-in-the-loop")["reason"] == "by-hand"
