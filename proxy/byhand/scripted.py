"""A by-hand session played by a script: the host is a command (run once per step, `{url}` the stable URL) and the
person's answers are given in advance, in question order. The committed by-hand references are made this way
(scripts/make-reference-recordings), so the by-hand checks ship with recordings they pass and fail.

The script answers exactly as the guided session keeps answers (ByHandLab.attest: who = person, timed on the proxy
side): it stands in for the person the way `--answer` stands in for a user at a terminal. A step whose call never
comes keeps no answer, as in the guide.
"""

from __future__ import annotations

import os
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from backchannel.proxy.byhand.lab import ByHandLab
from backchannel.proxy.byhand.plans import ByHandPlan
from backchannel.proxy.run.openers import OPENERS

URL = "{url}"


class ScriptedHostError(RuntimeError):
    """The scripted session could not be played as declared (the host never called, answers do not fit)."""


@dataclass(frozen=True)
class ScriptedHost:
    argv: Sequence[str]  # the host's command, with {url} where the stable URL goes
    answers: Sequence[str]  # y, n or ? for each question of each step, in order
    stdin: str = ""  # what the host's user types (e.g. "n\n": decline the URL)
    env: Mapping[str, str] | None = None  # added to this process's environment for the host
    timeout: float = 30.0  # each host run, and each wait for its call


def play(plan: ByHandPlan, out: Path, host: ScriptedHost) -> Path:
    """Run the lab, the host once per step and the answers; the recording at `out`. Raises ScriptedHostError when
    the host did not call a step's tool or the answers do not match the plan's questions."""
    wanted = sum(len(step.questions) for step in plan.steps)
    if len(host.answers) != wanted:
        raise ScriptedHostError(f"{len(host.answers)} answer(s) for {wanted} question(s) of {plan.scenario}")
    answers = iter(host.answers)
    with tempfile.TemporaryDirectory(prefix="backchannel-by-hand-") as folder, ByHandLab(plan, out) as lab:
        env = {**os.environ, **(host.env or {})}
        env["PATH"] = f"{_inert_openers(Path(folder))}{os.pathsep}{env.get('PATH', '')}"
        env.pop("BROWSER", None)
        for number, step in enumerate(plan.steps):
            if number:
                lab.advance(step)
            if lab.wait_for_call(step.tool, min(1.0, host.timeout)).called:  # a host that calls every tool at once
                said = "called it already"
            else:
                argv = [part.replace(URL, lab.url) for part in host.argv]
                ran = subprocess.run(
                    argv,
                    input=host.stdin,
                    capture_output=True,
                    text=True,
                    timeout=host.timeout,
                    env=env,
                    cwd=folder,  # a folder of its own: nothing of this machine's (its roots, say) reaches a recording
                    check=False,
                )
                said = f"exit {ran.returncode}: {ran.stderr[-400:]}"
            if not lab.wait_for_call(step.tool, host.timeout).called:
                raise ScriptedHostError(f"step {number + 1}: the host never called {step.tool} ({said})")
            for question in step.questions:
                lab.attest(question.id, question.text, next(answers), None)
    return out


def _inert_openers(folder: Path) -> Path:
    """URL openers that open nothing, first on the host's PATH: a scripted host never reaches a real browser (what
    it opened is the person's to say, as in a session a person drives)."""
    for name in OPENERS:
        stub = folder / name
        stub.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
        stub.chmod(stub.stat().st_mode | stat.S_IXUSR)
    return folder
