"""The body of the GitHub Action (`action.yml` at the repository root): run `check` or `judge` as its inputs say,
write the JSON report and SARIF, and name them, the recording and the exit code as step outputs.

In the action it exits 0 itself (`BC_DEFER_EXIT=true`) and hands backchannel's exit code on as the `exit-code`
output: the SARIF upload step must still run when backchannel found failures, and the action's last step exits
with that code. Run by hand, without that variable, it exits with the code itself. Inputs arrive as
environment variables (`BC_*`), never spliced into a shell script, so a workflow input cannot inject a command.

`check`: `backchannel check ... --out RECORDING --format text` (the report in the log as a person reads it), then
`judge RECORDING --format json`. `judge`: `backchannel judge PATHS... --format json`. Either way the JSON is turned
into SARIF (and the text summary, for a corpus) by `merge-reports`, which is where `--baseline` applies; so the
exit code is backchannel's own: 0, 1 on failures (or, with a baseline, on unexpected or stale entries), 2 when it
could not run or read.

Usage: python -m backchannel.proxy.github_action   (with the BC_* variables set; see action.yml)
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

COMMANDS = ("check", "judge")
USAGE_ERROR = 2
CHECK_TARGETS: tuple[tuple[str, str], ...] = (
    ("BC_SCENARIO", "--scenario"),
    ("BC_CLIENT", "--client"),
    ("BC_TARGET", "--target"),
    ("BC_AGENT", "--agent"),
    ("BC_SERVER", "--server"),
)


class ActionInputError(ValueError):
    """An input the action cannot use; the message names the input."""


@dataclass(frozen=True)
class Plan:
    """What the action will run: the commands in order, and where each output goes."""

    command: str
    main: list[str]  # check or judge
    judge_json: list[str] | None  # check only: the recording judged as JSON
    report: Path
    sarif: Path
    recording: Path | None
    baseline: str | None


def _get(env: Mapping[str, str], name: str) -> str:
    return env.get(name, "").strip()


def plan(env: Mapping[str, str], backchannel: Sequence[str] = ("backchannel",)) -> Plan:
    """The commands the inputs ask for; `ActionInputError` for inputs that cannot work together."""
    command = _get(env, "BC_COMMAND") or "check"
    if command not in COMMANDS:
        raise ActionInputError(f"input command is {command!r}; it must be check or judge")
    try:
        extra = shlex.split(_get(env, "BC_ARGS"))
    except ValueError as exc:
        raise ActionInputError(f"input args cannot be split as shell words: {exc}") from exc
    baseline = _get(env, "BC_BASELINE") or None
    report = Path(_get(env, "BC_REPORT") or "backchannel-report.json")
    sarif = Path(_get(env, "BC_SARIF") or "backchannel.sarif")
    bc = list(backchannel)
    if command == "check":
        if _get(env, "BC_RECORDINGS"):
            raise ActionInputError("input recordings is for command judge; check makes its own recording")
        recording = Path(_get(env, "BC_RECORDING") or "backchannel-check.sqlite")
        main = [*bc, "check"]
        for name, flag in CHECK_TARGETS:
            if value := _get(env, name):
                main += [flag, value]
        main += [*extra, "--out", str(recording), "--format", "text"]
        return Plan(
            command, main, [*bc, "judge", str(recording), "--format", "json"], report, sarif, recording, baseline
        )
    paths = shlex.split(_get(env, "BC_RECORDINGS"))
    if not paths:
        raise ActionInputError("input recordings is empty; judge needs recordings (files, folders or globs)")
    for name, _flag in CHECK_TARGETS:
        if _get(env, name):
            raise ActionInputError(f"input {name[3:].lower()} is for command check, not judge")
    main = [*bc, "judge", *paths, *extra, "--format", "json"]
    return Plan(command, main, None, report, sarif, None, baseline)


def _write_output(env: Mapping[str, str], values: Mapping[str, str]) -> None:
    target = env.get("GITHUB_OUTPUT")
    if not target:
        return
    with open(target, "a", encoding="utf-8") as handle:
        for key, value in values.items():
            handle.write(f"{key}={value}\n")


def _run_to(argv: list[str], out: Path) -> int:
    with out.open("wb") as handle:
        return subprocess.run(argv, stdout=handle, check=False).returncode


def execute(the_plan: Plan, backchannel: Sequence[str] = ("backchannel",)) -> int:
    """Run the plan; the exit code backchannel gave (2 when it could not run at all)."""
    bc = list(backchannel)
    baseline = ["--baseline", the_plan.baseline] if the_plan.baseline else []
    if the_plan.command == "check":
        code = subprocess.run(the_plan.main, check=False).returncode  # its report, as text, in the log
        if code == USAGE_ERROR or the_plan.recording is None or not the_plan.recording.exists():
            print(f"backchannel-action: check exited {code} and left no recording to judge", file=sys.stderr)
            return USAGE_ERROR if code == 0 else code
        if the_plan.judge_json is not None and _run_to(the_plan.judge_json, the_plan.report) == USAGE_ERROR:
            return USAGE_ERROR
    else:
        if _run_to(the_plan.main, the_plan.report) == USAGE_ERROR:
            sys.stderr.write(the_plan.report.read_text(encoding="utf-8", errors="replace"))
            return USAGE_ERROR
        # a corpus: its summary table (and the baseline's say) in the log
        subprocess.run([*bc, "merge-reports", str(the_plan.report), "--format", "text", *baseline], check=False)
    return _run_to([*bc, "merge-reports", str(the_plan.report), "--format", "sarif", *baseline], the_plan.sarif)


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    outputs: dict[str, str] = {}
    try:
        the_plan = plan(env)
    except ActionInputError as exc:
        print(f"backchannel-action: {exc}", file=sys.stderr)
        code = USAGE_ERROR
    else:
        print("backchannel-action: " + " ".join(shlex.quote(a) for a in the_plan.main), file=sys.stderr, flush=True)
        code = execute(the_plan)
        outputs["report"] = str(the_plan.report)
        if the_plan.sarif.exists() and the_plan.sarif.stat().st_size:
            outputs["sarif"] = str(the_plan.sarif)
        if the_plan.recording is not None and the_plan.recording.exists():
            outputs["recording"] = str(the_plan.recording)
    outputs["exit-code"] = str(code)
    _write_output(env, outputs)
    return 0 if _get(env, "BC_DEFER_EXIT") == "true" else code


if __name__ == "__main__":
    sys.exit(main())
