import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _tool(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else (shutil.which(name) or name)


def test_ruff_finds_nothing():
    out = subprocess.run([_tool("ruff"), "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


PACKAGES = ("recordings", "oracle", "addons", "proxy")


def test_mypy_is_strict_on_every_package():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    strict = {m for o in config.get("overrides", []) if o.get("strict") for m in o["module"]}
    wanted = {f"backchannel.{p}{suffix}" for p in PACKAGES for suffix in ("", ".*")}
    assert wanted <= strict, f"not strict: {sorted(wanted - strict)}"


# a cold mypy run (a fresh clone has no cache) beside other tests can pass the suite's 120 s: its own bound
@pytest.mark.timeout(600)
def test_mypy_is_clean_on_every_package():
    packages = [arg for p in PACKAGES for arg in ("-p", f"backchannel.{p}")]
    out = subprocess.run([_tool("mypy"), *packages], cwd=ROOT, capture_output=True, text=True, timeout=540)
    assert out.returncode == 0, out.stdout + out.stderr
