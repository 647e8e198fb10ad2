"""The action's body: the inputs become one check or judge command line (never a shell string), an input that
cannot work is named and exit 2, and run by hand it exits with backchannel's code itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.github_action import ActionInputError, main, plan


def test_check_builds_its_flags_from_the_inputs_then_the_extra_args_then_its_outputs() -> None:
    the_plan = plan({"BC_COMMAND": "check", "BC_CLIENT": "my-client --x {url}", "BC_ARGS": "--era 2025-11-25"})
    assert the_plan.main == [
        "backchannel", "check", "--client", "my-client --x {url}", "--era", "2025-11-25",
        "--out", "backchannel-check.sqlite", "--format", "text",
    ]  # fmt: skip
    assert the_plan.judge_json == ["backchannel", "judge", "backchannel-check.sqlite", "--format", "json"]


def test_an_input_holding_shell_syntax_stays_one_argument() -> None:
    the_plan = plan({"BC_SCENARIO": "default; rm -rf /", "BC_CLIENT": "$(touch pwned) {url}"})
    assert "default; rm -rf /" in the_plan.main and "$(touch pwned) {url}" in the_plan.main


def test_judge_takes_its_recordings_as_shell_words_and_its_baseline() -> None:
    the_plan = plan({"BC_COMMAND": "judge", "BC_RECORDINGS": "fixtures/ 'my dir/*.sqlite'", "BC_BASELINE": "b.yaml"})
    assert the_plan.main == ["backchannel", "judge", "fixtures/", "my dir/*.sqlite", "--format", "json"]
    assert the_plan.baseline == "b.yaml" and the_plan.recording is None


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"BC_COMMAND": "lint"}, "input command is 'lint'"),
        ({"BC_COMMAND": "judge"}, "input recordings is empty"),
        ({"BC_COMMAND": "judge", "BC_RECORDINGS": "x", "BC_CLIENT": "c {url}"}, "input client is for command check"),
        ({"BC_COMMAND": "check", "BC_RECORDINGS": "x"}, "input recordings is for command judge"),
        ({"BC_ARGS": "--era 'unclosed"}, "input args cannot be split"),
    ],
)
def test_inputs_that_cannot_work_are_named(env: dict[str, str], said: str) -> None:
    with pytest.raises(ActionInputError, match=said):
        plan(env)


def test_a_bad_input_is_exit_2_by_hand_and_an_exit_code_output_in_the_action(tmp_path: Path) -> None:
    assert main({"BC_COMMAND": "lint"}) == 2
    outputs = tmp_path / "out"
    assert main({"BC_COMMAND": "lint", "BC_DEFER_EXIT": "true", "GITHUB_OUTPUT": str(outputs)}) == 0
    assert outputs.read_text(encoding="utf-8") == "exit-code=2\n"
