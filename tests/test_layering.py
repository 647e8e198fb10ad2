import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "recordings" / "reference"


def _modules_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return set(out.stdout.split())


def test_importing_the_oracle_loads_no_mitmproxy():
    loaded = _modules_after_import("backchannel.oracle")
    assert not any(name == "mitmproxy" or name.startswith("mitmproxy.") for name in loaded)


def test_importing_recordings_loads_no_mitmproxy():
    loaded = _modules_after_import("backchannel.recordings")
    assert not any(name == "mitmproxy" or name.startswith("mitmproxy.") for name in loaded)


def test_judging_a_recording_with_every_scenario_package_loaded_imports_no_mitmproxy():
    code = (
        "import sys, pathlib\n"
        "from backchannel.oracle import all_checks, judge\n"
        "from backchannel.recordings import load\n"
        "all_checks()\n"
        f"judge(load(pathlib.Path({str(REFERENCE / 'mrtr-provenance-toy-flawed.sqlite')!r})))\n"
        "print('\\n'.join(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    loaded = set(out.stdout.split())
    assert "backchannel.oracle.scenarios.elicitation_url_mode.checks.wire_schema_valid" in loaded
    assert not any(name == "mitmproxy" or name.startswith("mitmproxy.") for name in loaded)
    assert not any(name.startswith("backchannel.proxy") or name.startswith("backchannel.addons") for name in loaded)


@pytest.mark.parametrize("command", ["record", "check", "replay"])
def test_a_command_that_starts_a_proxy_loads_no_mitmproxy_in_backchannels_own_process(command):
    """mitmdump is a process of its own: the command that starts it names its script but never imports mitmproxy
    (about a tenth of a CPU second of every `record`, `check` and `replay`)."""
    loaded = _modules_after_import(f"backchannel.proxy.{command}.command")
    assert "backchannel.proxy.run.launcher" in loaded
    assert not any(name == "mitmproxy" or name.startswith("mitmproxy.") for name in loaded)


def test_mitmdumps_addon_loads_no_sqlite_utils():
    """mitmdump writes into a recording the CLI created: sqlite_utils (creating and migrating) is not imported there,
    where it was a tenth of every proxy's start."""
    loaded = _modules_after_import(
        "backchannel.addons.recorder, backchannel.addons.entry, backchannel.recordings.store"
    )
    assert "backchannel.recordings.store" in loaded and "mitmproxy.http" in loaded
    assert not any(name == "sqlite_utils" or name.startswith("sqlite_utils.") for name in loaded)


# (folder, an import written there, whether ruff's per-folder banned-api must refuse it)
LAYER_CASES = [
    ("recordings", "import sqlite3", False),
    ("recordings", "import sqlite_utils", False),
    ("recordings", "import mitmproxy.http", True),
    ("recordings", "from backchannel.addons import session", True),
    ("recordings", "from backchannel.proxy.run.capture import Capture", True),
    ("recordings", "from backchannel.oracle.model import Finding", True),
    ("addons", "from mitmproxy import http", False),
    ("addons", "from backchannel.recordings.store import RecordingStore", False),
    ("addons", "import sqlite3", True),
    ("addons", "from sqlite_utils import Database", True),
    ("addons", "from backchannel.proxy.run import lab", True),
    ("addons", "from backchannel.oracle import judge", True),
    ("proxy", "from mitmproxy import http", False),
    ("proxy", "from backchannel.recordings import load", False),
    ("proxy", "import sqlite3", True),
    ("proxy", "import sqlite_utils", True),
    ("oracle", "from backchannel.recordings.model import Recording", False),
    ("oracle", "from backchannel.recordings.shapes import ProbeOptions", False),
    ("oracle", "import mitmproxy", True),
    ("oracle", "import sqlite3", True),
    ("oracle", "from backchannel.addons.plan import parse_plan", True),
    ("oracle", "from backchannel.proxy.cli import app", True),
    ("oracle", "from backchannel.recordings import store", True),
    ("oracle", "from backchannel.recordings.migrations import known_migrations", True),
    ("oracle", "from backchannel.recordings.reader import load", True),
]


@pytest.mark.parametrize(("folder", "line", "banned"), LAYER_CASES)
def test_each_folder_may_import_only_what_its_layer_allows(folder, line, banned):
    """ruff's banned-api, configured per folder (FOLDER/ruff.toml), refuses an import that breaks the layering."""
    ruff = Path(sys.executable).parent / "ruff"
    out = subprocess.run(
        [str(ruff), "check", "--no-cache", "--select", "TID251", "--stdin-filename", f"{folder}/layer_probe.py", "-"],
        input=f"{line}\n",
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (out.returncode != 0) is banned, out.stdout + out.stderr
    if banned:
        assert "TID251" in out.stdout
