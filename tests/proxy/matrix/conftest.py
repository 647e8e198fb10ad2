"""The matrix tests' parts: a hostile recording with its report, a site built from the references, and Chromium."""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from backchannel.oracle import Evidence, Report, Result
from backchannel.proxy.judging.inputs import Input
from backchannel.proxy.matrix.command import build_site
from backchannel.recordings.model import Recording
from backchannel.recordings.reader import load
from tests.factories import new_recording

ROOT = Path(__file__).resolve().parents[3]
REFERENCES = ROOT / "recordings" / "reference"
CHROMIUM = shutil.which("chromium")

# what a stranger's recording may hold: markup, script, a javascript: link, an ESC sequence, a bidi override
SCRIPT = "<script>document.title='PWNED'</script>"
IMG = "<img src=x onerror=\"document.body.setAttribute('data-pwned','1')\">"
BIDI = "\u202eevil\u2066"
ESC = "\x1b[2J"
HOSTILE = f"{SCRIPT}{IMG}{BIDI}{ESC}"


def hostile_recording(path: Path) -> Recording:
    """A recording whose client name, run, messages and terminal all carry HOSTILE."""
    hello = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"clientInfo": {"name": f"client{HOSTILE}", "version": f"1{SCRIPT}"}},
    }
    new_recording(
        path,
        runs=[{"id": "r1", "name": f"run{HOSTILE}", "client_argv": ["agent", HOSTILE], "scenario": "mrtr-provenance"}],
        messages=[
            {"direction": "to-server", "kind": "request", "text": json.dumps(hello), "run_id": "r1"},
            {"direction": "to-client", "kind": "request", "text": f"not json {HOSTILE}", "run_id": "r1"},
        ],
        terminal=[{"run_id": "r1", "stream": "stdout", "offset": 0, "data": f"said: {HOSTILE} done".encode()}],
    )
    return load(path)


def hostile_report() -> Report:
    """A report whose result cites the hostile message and terminal bytes, and carries HOSTILE in every text."""
    result = Result(
        id="hostile-check",
        scenario="mrtr-provenance",
        level="MUST",
        spec="javascript:alert(1)",
        title=f"title {HOSTILE}",
        status="FAIL",
        message=f"observed {HOSTILE}",
        evidence=(
            Evidence(kind="message", seq=2, run="r1", note=f"note {HOSTILE}"),
            Evidence(kind="terminal", run="r1", stream="stdout", offset=6, length=len(HOSTILE.encode())),
        ),
        run="r1",
        reason=None,
        signals=(),
        observations=(f"saw {HOSTILE}",),
        cwe=(),
        verdict=None,
        subject=f"arm {HOSTILE}",
    )
    return Report(
        tool_version="test",
        oracle_version="1",
        recording="hostile.sqlite",
        recording_format="1",
        nonce=None,
        scenarios=("mrtr-provenance",),
        results=(result,),
    )


def hostile_judged(tmp_path: Path) -> list[tuple[Input, Recording, Report]]:
    path = tmp_path / "hostile.sqlite"
    return [(Input(path, f"{SCRIPT}.sqlite"), hostile_recording(path), hostile_report())]


# what the browser tests look at: a FAIL and a CONFIRMED probe citing terminal bytes (the flawed toy), beside
# passing clients of two scenarios. The whole folder's site is built, and held to docs/matrix byte for byte, by
# test_command.py's README test (test_docs_site.py holds scripts/build-matrix to the same build): judging all 225
# references again here would only repeat it.
BROWSED = (
    "mrtr-provenance-toy-flawed",
    "mrtr-provenance-toy-fixed",
    "mrtr-provenance-py-sdk",
    "mrtr-provenance-ts-sdk",
    "elicitation-url-mode-py-sdk",
    "elicitation-url-mode-ts-sdk",
)


@pytest.fixture(scope="module")
def reference_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site built from the committed references in BROWSED, once per module."""
    out = tmp_path_factory.mktemp("matrix") / "site"
    build_site([str(REFERENCES / f"{name}.sqlite") for name in BROWSED], out)
    return out


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (scripts/install-browser)")
    profile = tmp / "chromium-profile"
    command = [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}", *args]
    before = _children()
    try:
        # run() waits for the browser's own exit and kills it (by its pid) if the bound is reached
        done = subprocess.run(command, capture_output=True, text=True, timeout=90)
    finally:
        _reap_orphans(_children() - before)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def _children() -> set[int]:
    found: set[int] = set()
    for task in os.scandir("/proc/self/task"):
        with contextlib.suppress(OSError):
            found.update(int(pid) for pid in Path(task.path, "children").read_text().split())
    return found


def _reap_orphans(orphans: set[int]) -> None:
    """Chromium's helpers outlive the browser by a moment; where an earlier test in this worker made the process a
    subreaper (proxy/run/reaper.py), they are reparented to it. Each is waited for (bounded), then killed by its pid."""
    deadline = time.monotonic() + 10
    for pid in sorted(orphans):
        with contextlib.suppress(ChildProcessError, ProcessLookupError):
            handle = os.pidfd_open(pid)  # readable once the process has ended: awaited, not polled
            try:
                ended, _, _ = select.select([handle], [], [], max(0.0, deadline - time.monotonic()))
                if not ended:
                    os.kill(pid, signal.SIGKILL)
            finally:
                os.close(handle)
            os.waitpid(pid, 0)


def dump_dom(page: Path, tmp: Path) -> str:
    """The DOM Chromium built for a local page, after its scripts (if any could run) ran."""
    return _chromium(tmp, "--dump-dom", page.resolve().as_uri()).stdout


def screenshot(page: Path, tmp: Path, png: Path) -> Path:
    _chromium(tmp, "--window-size=1400,1000", f"--screenshot={png}", page.resolve().as_uri())
    assert png.stat().st_size > 0
    return png
