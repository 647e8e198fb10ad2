import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_ruff_finds_nothing():
    out = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean_and_strict_on_oracle_and_recordings():
    packages = [
        "-p",
        "backchannel.recordings",
        "-p",
        "backchannel.oracle",
        "-p",
        "backchannel.addons",
        "-p",
        "backchannel.proxy",
    ]
    out = subprocess.run([_tool("mypy"), *packages], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
