import subprocess
import sys


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
