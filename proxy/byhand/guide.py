"""The guided terminal session of `check --by-hand`: the URL and configurations, then step N of M, the wait for the
host's call, and the questions, one at a time; each answer kept as attested evidence of the step's run.

Everything the person types is untrusted: an answer that is not y, n or ? is asked again, a screenshot that is not
a readable PNG or JPEG within the bound is refused with why (and may be given again or skipped). End of input
(Ctrl-D, a closed pipe) leaves the remaining questions unanswered: their checks SKIP.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from backchannel.proxy.byhand.configs import configs, write_configs
from backchannel.proxy.byhand.lab import ByHandLab, seen_summary
from backchannel.proxy.byhand.plans import ByHandPlan
from backchannel.proxy.byhand.questions import PROMPT, Question, ScreenshotError, parse_answer, read_screenshot

Ask = Callable[[str], str]  # input(): raises EOFError at the end of input
# said once a screenshot is kept: the recording's redaction reads text, never an image
SCREENSHOT_KEPT = (
    "Kept as you gave it: redaction cannot read an image, so anything it shows goes wherever the recording goes"
    " (bug-report --no-screenshots leaves screenshots out)."
)


@dataclass(frozen=True)
class GuideOptions:
    out: Path
    config_dir: Path
    port: int = 0
    timeout: float = 300.0  # how long each step waits for the host's call


class InputEnded(Exception):
    """The person's input ended (EOF): stop asking."""


def _ask(ask: Ask, prompt: str) -> str:
    try:
        return ask(prompt)
    except EOFError as exc:
        raise InputEnded from exc


def ask_question(question: Question, ask: Ask, say: Callable[[str], None]) -> tuple[str, tuple[bytes, str] | None]:
    """One question until it has an answer, then an optional screenshot until one is kept or none is given."""
    while True:
        answer = parse_answer(_ask(ask, f"{question.text} {PROMPT} "))
        if answer is not None:
            break
        say("Please answer y (yes), n (no) or ? (not sure).")
    while True:
        typed = _ask(ask, "Screenshot (PNG or JPEG path; Enter for none): ").strip()
        if not typed:
            return answer, None
        try:
            kept = read_screenshot(typed)
        except ScreenshotError as exc:
            say(f"Not kept: {exc}. Give another path, or Enter for none.")
            continue
        say(SCREENSHOT_KEPT)
        return answer, kept


def run_guide(plan: ByHandPlan, options: GuideOptions, console: Console, ask: Ask = input) -> Path:
    """Run the lab and guide the person through every step; returns the finalised recording."""

    def say(text: str) -> None:
        console.print(text, markup=False, highlight=False)

    with ByHandLab(plan, options.out, port=options.port) as lab:
        found = configs(plan.server_name, lab.url)
        written = write_configs(options.config_dir, found)
        say(f"backchannel by hand: {plan.scenario}, recording to {options.out}")
        say(f"Configure your host once with this URL: {lab.url}")
        for config, path in zip(found, written, strict=True):
            say(f"\n# {config.label}: {path}\n{config.text.rstrip()}")
        total = len(plan.steps)
        try:
            for number, step in enumerate(plan.steps, start=1):
                if number > 1:
                    lab.advance(step)
                say(f"\nStep {number} of {total}: ask the assistant to call the tool `{step.tool}`.")
                say(f"Waiting up to {options.timeout:g} s for the call...")
                seen = lab.wait_for_call(step.tool, options.timeout)
                if not seen.called:
                    say(f"No call of `{step.tool}` came in {options.timeout:g} s; the host sent: {seen_summary(seen)}.")
                    if step.questions:
                        say("This step's questions stay unanswered (their checks SKIP).")
                    continue
                if not step.questions:  # nothing the wire cannot see: on to the next step
                    say(f"Seen: the host called `{step.tool}`.")
                    continue
                say(f"Seen: the host called `{step.tool}`. Answer when the app has shown what it shows.")
                for question in step.questions:
                    answer, screenshot = ask_question(question, ask, say)
                    lab.attest(question.id, question.text, answer, screenshot)
        except InputEnded:
            say("\nInput ended: the remaining questions stay unanswered (their checks SKIP).")
    return options.out
