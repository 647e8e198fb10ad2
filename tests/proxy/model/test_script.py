"""A model script is small plain data; a wrong field is refused with its name."""

from __future__ import annotations

from pathlib import Path

import pytest

from backchannel.proxy.model.script import DEFAULT_ANSWER, ModelScript, ScriptError


def test_a_script_from_plain_data_keeps_every_field_and_round_trips():
    data = {"tool": "t", "server": "s", "arguments": {"a": [1]}, "answer": "ok", "follow_directives": True}
    script = ModelScript.from_data(data)
    assert (script.tool, script.server, dict(script.arguments), script.answer, script.follow_directives) == (
        "t", "s", {"a": [1]}, "ok", True,
    )  # fmt: skip
    assert ModelScript.from_data(script.to_data()) == script


def test_a_minimal_script_gets_no_arguments_the_default_answer_and_does_not_follow_directives():
    script = ModelScript.from_data({"tool": "get_repo_status", "server": "backchannel"})
    assert (dict(script.arguments), script.answer, script.follow_directives) == ({}, DEFAULT_ANSWER, False)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"server": "s"}, "'tool'"),
        ({"tool": "t", "server": ""}, "'server'"),
        ({"tool": "two words", "server": "s"}, "'tool'"),
        ({"tool": "t", "server": "s", "arguments": [1]}, "'arguments'"),
        ({"tool": "t", "server": "s", "answer": 3}, "'answer'"),
        ({"tool": "t", "server": "s", "follow_directives": "yes"}, "'follow_directives'"),
        ({"tool": "t", "server": "s", "tools": []}, "'tools'"),
    ],
)
def test_a_bad_field_is_refused_naming_it(data: dict[str, object], field: str):
    with pytest.raises(ScriptError, match=field):
        ModelScript.from_data(data)


def test_a_script_loads_from_toml_text_or_a_file_with_or_without_a_model_table(tmp_path: Path):
    path = tmp_path / "script.toml"
    path.write_text('[model]\ntool = "t"\nserver = "s"\nfollow_directives = true\n[model.arguments]\nrepo = "demo"\n')
    from_file = ModelScript.from_toml(path)
    assert from_file.follow_directives and dict(from_file.arguments) == {"repo": "demo"}
    assert ModelScript.from_toml('tool = "t"\nserver = "s"\n').tool == "t"
    with pytest.raises(ScriptError, match="not TOML"):
        ModelScript.from_toml("tool = ")
