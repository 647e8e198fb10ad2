"""Both SDK drivers' opt-in roots flags against the roots scenario's endpoint, with no proxy in between: without
`--root` no roots are declared; with it the folder is given as a file:// root, and `--add-root` adds one mid-session,
announced in a 2025 session (the endpoint asks again on the GET stream) and seen again by the next call."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from backchannel.proxy.clients.drivers.paths import node_driver, py_driver
from backchannel.proxy.endpoint.server import start_endpoint
from backchannel.proxy.endpoint.tools import EndpointConfig, ToolCall, ToolReply, ToolSpec
from backchannel.proxy.scenarios.roots.endpoint import list_roots, listen

pytestmark = pytest.mark.live
DRIVERS = {"py": py_driver(), "ts": node_driver()}


def _run(driver: str, era: str, folder: Path, *flags: str) -> tuple[subprocess.CompletedProcess[str], list[ToolCall]]:
    argv = DRIVERS[driver]
    if argv is None:
        pytest.skip("the TypeScript SDK driver is not installed (scripts/install-clients)")
    seen: list[ToolCall] = []

    def recording(call: ToolCall) -> ToolReply:
        seen.append(call)
        return list_roots(call)

    tool = ToolSpec("list_roots", "asks for roots", {"type": "object"}, recording)
    with start_endpoint(EndpointConfig(tools=(tool,), era=era, listen=listen)) as endpoint:
        mode = ["--mode", "auto"] if driver == "ts" else []
        done = subprocess.run(
            [*argv, endpoint.url, *mode, *flags], cwd=folder, capture_output=True, text=True, timeout=60, check=False
        )
    return done, seen


@pytest.mark.parametrize("driver", ["py", "ts"])
def test_without_root_no_roots_are_declared(driver, tmp_path):
    done, seen = _run(driver, "2025-11-25", tmp_path)
    assert seen and all("roots" not in call.client_capabilities for call in seen)
    assert "[roots given" not in done.stdout


@pytest.mark.parametrize("driver", ["py", "ts"])
@pytest.mark.parametrize("era", ["2026-07-28", "2025-11-25"])
def test_root_and_add_root_give_file_uris_and_the_added_folder_after_the_calls(driver, era, tmp_path):
    done, seen = _run(driver, era, tmp_path, "--root", ".", "--add-root", "added")
    assert done.returncode == 0, done.stderr
    assert seen and all("roots" in call.client_capabilities for call in seen)
    base, added = tmp_path.resolve().as_uri(), (tmp_path.resolve() / "added").as_uri()
    given = [line for line in done.stdout.splitlines() if line.startswith("[roots given: ")]
    assert given[0] == f"[roots given: {base}]"
    assert given[-1] == f"[roots given: {base}, {added}]"
    assert f"[root added: {added}]" in done.stdout
