"""An export redacts with the recording's own patterns and the exporter's, refusing patterns that could hang."""

from __future__ import annotations

import json

import pytest

from backchannel.proxy.share.redaction import MAX_RECORDED, export_policy, recorded_patterns, summary_lines
from backchannel.recordings import redact
from backchannel.recordings.meta import Redactions


def meta(*patterns: str) -> dict[str, str]:
    key, value = Redactions(source="proxy", counts={}, patterns=patterns).meta_entry()
    return {key: value}


def test_the_recordings_patterns_and_the_exporters_are_both_in_force_and_nothing_else_changes():
    policy = export_policy(meta("customer"), ["tenant"])
    assert policy.patterns == ("customer", "tenant") == policy.redaction.extra
    with redact.applying(redact.Redactor(policy.redaction)):
        assert (
            redact.redact_json_text('{"customer":"a","tenant":"b"}')
            == '{"customer":"[redacted]","tenant":"[redacted]"}'
        )
    assert redact.redact_json_text('{"customer":"a"}') == '{"customer":"a"}'  # no process-wide policy changed


def test_a_recorded_pattern_that_could_backtrack_without_end_is_ignored_and_named():
    policy = export_policy(meta("(a+)+$", "x" * 300, "ok", "(", r"(a)\1"), [])
    assert policy.patterns == ("ok",)
    assert len(policy.ignored) == 4
    lines = summary_lines({"header": {"x-customer": 2}}, policy)
    assert lines[0] == "redacted: header x-customer x2"
    assert any("ignored the recording's pattern '(a+)+$'" in line for line in lines)


def test_a_bad_exporter_pattern_is_an_error_naming_it():
    with pytest.raises(ValueError, match="--redact"):
        export_policy({}, ["("])
    assert recorded_patterns({}) == []


def test_a_recordings_own_regular_expressions_are_left_out_and_named_and_its_plain_names_kept():
    meta = {
        "redactions:orchestrator": json.dumps(
            {"counts": {}, "patterns": [r"\w*\w*\w*\w*\w*\w*!", "x-tenant-id", ".{0,100}.{0,100}x"]}
        )
    }
    policy = export_policy(meta, [])
    assert policy.patterns == ("x-tenant-id",)
    assert len(policy.ignored) == 2 and all("not a plain name" in line for line in policy.ignored)


def test_a_recording_gives_at_most_a_bounded_number_of_patterns():
    names = [f"name{i}" for i in range(MAX_RECORDED + 500)]
    meta = {"redactions:orchestrator": json.dumps({"counts": {}, "patterns": names})}
    policy = export_policy(meta, [])
    assert len(policy.patterns) == MAX_RECORDED
    assert any("500 more patterns" in line for line in policy.ignored)
