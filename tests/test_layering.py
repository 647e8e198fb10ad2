import subprocess
import sys
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent.parent / "recordings" / "reference"


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
