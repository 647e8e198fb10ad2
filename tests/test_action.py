"""The GitHub Action (action.yml) runs as GitHub would run it: its YAML parsed, each `run:` step executed in a
temporary folder by bash with its `env:` resolved from the inputs and earlier steps' outputs, GITHUB_OUTPUT and
GITHUB_ACTION_PATH as the runner gives them. The install step really installs this checkout (into a fresh venv
that sees the project's dependencies; no index, so nothing is downloaded). `uses:` steps (setup-python, the SARIF
upload) are GitHub's own and are checked for what they are handed, not run."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
REFERENCE = ROOT / "recordings" / "reference"
EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")
BOUND_S = 180


def resolve(
    text: str, inputs: Mapping[str, str], outputs: Mapping[str, Mapping[str, str]], action_path: Path = ROOT
) -> str:
    """The expressions this action uses: inputs.X, github.action_path, steps.ID.outputs.X (anything else fails)."""

    def one(match: re.Match[str]) -> str:
        expr = match.group(1)
        if expr.startswith("inputs."):
            return inputs[expr.removeprefix("inputs.")]
        if expr == "github.action_path":
            return str(action_path)
        if m := re.fullmatch(r"steps\.([\w-]+)\.outputs\.([\w-]+)", expr):
            return outputs.get(m.group(1), {}).get(m.group(2), "")
        raise AssertionError(f"action.yml uses an expression this test does not know: {expr}")

    return EXPRESSION.sub(one, text)


def read_outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text(encoding="utf-8").splitlines() if "=" in line)


@pytest.fixture(scope="module")
def action_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (no pip of its own) that sees the project's installed dependencies through a .pth file."""
    venv = tmp_path_factory.mktemp("action") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    site = Path(sysconfig.get_paths(vars={"base": str(venv), "platbase": str(venv)})["purelib"])
    (site / "_project_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    return venv / "bin"


def run_action(bin_dir: Path, work: Path, given: Mapping[str, str]) -> tuple[int, dict[str, dict[str, str]], str]:
    """Every `run:` step after the install (the `installed` fixture ran it once) in order, as a composite action
    runs them; the last step's exit code, the outputs, the log."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    unknown = set(given) - set(inputs)
    assert not unknown, f"not inputs of action.yml: {unknown}"
    inputs.update(given)
    outputs: dict[str, dict[str, str]] = {}
    log, code = "", 0
    work.mkdir(parents=True, exist_ok=True)
    for number, step in enumerate(STEPS):
        if "run" not in step or step.get("name") == "Install backchannel":
            continue
        assert step.get("shell") == "bash", f"step {step.get('name')} must say its shell"
        assert "${{" not in step["run"], f"step {step.get('name')} splices an expression into its script"
        output_file = work / f"output-{number}"
        output_file.touch()
        env = {
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(work)),
            "GITHUB_OUTPUT": str(output_file),
            "GITHUB_ACTION_PATH": str(ROOT),
            "PIP_NO_INDEX": "1",
            "PIP_NO_BUILD_ISOLATION": "0",  # pip's spelling for "build without isolation" (no setuptools download)
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        env.update({key: resolve(str(value), inputs, outputs) for key, value in (step.get("env") or {}).items()})
        done = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            timeout=BOUND_S,
        )
        log += f"--- {step.get('name')} (exit {done.returncode})\n{done.stdout}{done.stderr}"
        if "id" in step:
            outputs[step["id"]] = read_outputs(output_file)
        code = done.returncode
        if code != 0:
            break
    return code, outputs, log


def action_checkout(target: Path) -> Path:
    """What `actions/checkout` of this repository gives the action, less the reference recordings (no package
    data; 50 MB). pip builds in the source tree, so each test worker builds its own copy, never the checkout."""
    target.mkdir(parents=True)
    for name in ("pyproject.toml", "setup.py", "README.md", "action.yml"):
        shutil.copy2(ROOT / name, target / name)
    skip = shutil.ignore_patterns("reference", "__pycache__", "node_modules", "*.sqlite")
    for folder in ("proxy", "addons", "oracle", "recordings"):
        shutil.copytree(ROOT / folder, target / folder, ignore=skip)
    return target


@pytest.fixture(scope="module")
def installed(action_python: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The action's install step, run once: this checkout installed into the venv."""
    install = next(step for step in STEPS if step.get("name") == "Install backchannel")
    work = tmp_path_factory.mktemp("install")
    checkout = action_checkout(work / "action")
    env = {
        "PATH": f"{action_python}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(work),
        "PIP_NO_INDEX": "1",
        "PIP_NO_BUILD_ISOLATION": "0",
    }
    env.update({key: resolve(str(v), {"install-from": ""}, {}, checkout) for key, v in install["env"].items()})
    done = subprocess.run(
        ["bash", "-eo", "pipefail", "-c", install["run"]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=BOUND_S,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    assert (action_python / "backchannel").exists(), "the install step put no backchannel command in the venv"
    return action_python


def test_the_action_is_a_composite_whose_steps_take_inputs_only_through_env() -> None:
    assert ACTION["runs"]["using"] == "composite"
    for step in STEPS:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
    upload = next(step for step in STEPS if step.get("uses", "").startswith("github/codeql-action/upload-sarif"))
    assert "inputs.upload-sarif == 'true'" in upload["if"] and "always()" in upload["if"]
    assert upload["with"]["sarif_file"] == "${{ steps.run.outputs.sarif }}"
    assert STEPS[-1]["env"]["CODE"] == "${{ steps.run.outputs.exit-code }}"
    assert set(ACTION["outputs"]) == {"exit-code", "sarif", "report", "recording"}


def test_check_on_the_default_target_writes_sarif_and_the_action_exits_with_checks_code(
    installed: Path, tmp_path: Path
) -> None:
    code, outputs, log = run_action(installed, tmp_path, {"command": "check", "args": "--timeout 60"})
    judged = json.loads((tmp_path / "backchannel-report.json").read_text(encoding="utf-8"))
    assert code == judged["exit_code"] == int(outputs["run"]["exit-code"]), log
    sarif = json.loads((tmp_path / outputs["run"]["sarif"]).read_text(encoding="utf-8"))
    results = sarif["runs"][0]["results"]
    needing_a_look = {r["id"] for r in judged["results"] if r["status"] in ("FAIL", "WARN", "ERROR")}
    assert needing_a_look and {r["ruleId"] for r in results} == needing_a_look
    assert (tmp_path / outputs["run"]["recording"]).exists()
    assert "backchannel check --out backchannel-check.sqlite --format text --timeout 60" not in log  # args kept order
    assert "--timeout 60 --out backchannel-check.sqlite" in log


def test_judge_with_a_baseline_listing_every_failure_exits_0_and_the_sarif_names_each_recording(
    installed: Path, tmp_path: Path
) -> None:
    corpus = tmp_path / "corpus"  # named relative to the working folder, as a workflow names its fixtures
    corpus.mkdir()
    for name in ("mrtr-provenance-toy-flawed", "mrtr-provenance-toy-fixed"):
        shutil.copyfile(REFERENCE / f"{name}.sqlite", corpus / f"{name}.sqlite")
    unbaselined, outputs, log = run_action(installed, tmp_path, {"command": "judge", "recordings": "corpus"})
    assert unbaselined == 1, log  # the flawed build's failures fail the run
    report = json.loads((tmp_path / "backchannel-report.json").read_text(encoding="utf-8"))
    failing = sorted(
        {
            f"{r['scenario']}:{r['id']}"
            for e in report["recordings"]
            for r in e["report"]["results"]
            if r["status"] == "FAIL"
        }
    )
    baseline = tmp_path / "expected.yaml"
    baseline.write_text(yaml.safe_dump({"expected-failures": failing}), encoding="utf-8")
    code, outputs, log = run_action(
        installed, tmp_path, {"command": "judge", "recordings": "corpus", "baseline": "expected.yaml"}
    )
    assert code == 0 and outputs["run"]["exit-code"] == "0", log
    sarif = json.loads((tmp_path / "backchannel.sarif").read_text(encoding="utf-8"))
    artifacts = [a["location"]["uri"] for a in sarif["runs"][0]["artifacts"]]
    assert sorted(artifacts) == ["corpus/mrtr-provenance-toy-fixed.sqlite", "corpus/mrtr-provenance-toy-flawed.sqlite"]
    assert sarif["runs"][0]["properties"]["baseline"]["unexpected"] == []


def test_an_unusable_input_is_exit_2_with_the_input_named_and_no_sarif(installed: Path, tmp_path: Path) -> None:
    code, outputs, log = run_action(installed, tmp_path, {"command": "judge", "recordings": ""})
    assert code == 2 and outputs["run"]["exit-code"] == "2"
    assert "input recordings is empty" in log
    assert "sarif" not in outputs["run"]
