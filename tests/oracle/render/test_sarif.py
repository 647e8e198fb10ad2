"""The SARIF 2.1.0 report: one run, rules per check, results located in the recording."""

from __future__ import annotations

import json
from typing import Any

import jsonschema

from backchannel.oracle.model import Evidence
from backchannel.oracle.registry import session_checks
from backchannel.oracle.render.sarif import render_sarif, sarif_log
from tests.oracle.render.test_render import result, sample_report

# The parts of the SARIF 2.1.0 schema (OASIS sarif-schema-2.1.0.json) this renderer uses: required properties,
# enums and minimums as the standard states them. No copy of the full schema ships with any installed package.
_MESSAGE = {"type": "object", "required": ["text"], "properties": {"text": {"type": "string"}}}
_ARTIFACT_LOCATION = {
    "type": "object",
    "properties": {"uri": {"type": "string", "format": "uri-reference"}, "index": {"type": "integer", "minimum": -1}},
}
_REGION = {
    "type": "object",
    "anyOf": [{"required": ["byteOffset"]}, {"required": ["startLine"]}, {"required": ["charOffset"]}],
    "properties": {"byteOffset": {"type": "integer", "minimum": 0}, "byteLength": {"type": "integer", "minimum": 0}},
}
_LOCATION = {
    "type": "object",
    "properties": {
        "physicalLocation": {
            "type": "object",
            "anyOf": [{"required": ["address"]}, {"required": ["artifactLocation"]}],
            "properties": {"artifactLocation": _ARTIFACT_LOCATION, "region": _REGION},
        },
        "logicalLocations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"fullyQualifiedName": {"type": "string"}, "kind": {"type": "string"}},
            },
        },
        "message": _MESSAGE,
    },
}
_RULE = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string"},
        "name": {"type": "string"},
        "shortDescription": _MESSAGE,
        "helpUri": {"type": "string", "format": "uri"},
        "defaultConfiguration": {
            "type": "object",
            "properties": {"level": {"enum": ["none", "note", "warning", "error"]}},
        },
        "properties": {
            "type": "object",
            "properties": {"tags": {"type": "array", "uniqueItems": True, "items": {"type": "string"}}},
        },
    },
}
_RESULT = {
    "type": "object",
    "required": ["message"],
    "properties": {
        "ruleId": {"type": "string"},
        "ruleIndex": {"type": "integer", "minimum": -1},
        "kind": {"enum": ["notApplicable", "pass", "fail", "review", "open", "informational"]},
        "level": {"enum": ["none", "note", "warning", "error"]},
        "message": _MESSAGE,
        "locations": {"type": "array", "items": _LOCATION},
        "properties": {"type": "object"},
    },
}
SARIF_SUBSET = {
    "type": "object",
    "required": ["version", "runs"],
    "properties": {
        "$schema": {"type": "string", "format": "uri"},
        "version": {"enum": ["2.1.0"]},
        "runs": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["tool"],
                "properties": {
                    "tool": {
                        "type": "object",
                        "required": ["driver"],
                        "properties": {
                            "driver": {
                                "type": "object",
                                "required": ["name"],
                                "properties": {
                                    "name": {"type": "string"},
                                    "version": {"type": "string"},
                                    "informationUri": {"type": "string", "format": "uri"},
                                    "rules": {"type": "array", "items": _RULE},
                                },
                            }
                        },
                    },
                    "artifacts": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "location": _ARTIFACT_LOCATION,
                                "roles": {"type": "array", "items": {"enum": ["analysisTarget"]}},
                                "mimeType": {"type": "string", "pattern": "[^/]+/.+"},
                            },
                        },
                    },
                    "results": {"type": "array", "items": _RESULT},
                },
            },
        },
    },
}


def _log() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(render_sarif(sample_report()))
    return loaded


def _results() -> list[dict[str, Any]]:
    results: list[dict[str, Any]] = _log()["runs"][0]["results"]
    return results


def test_the_log_satisfies_the_sarif_2_1_0_required_properties() -> None:
    log = _log()
    jsonschema.validate(log, SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1


def test_the_driver_names_backchannel_its_version_and_the_spec() -> None:
    driver = _log()["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("backchannel", "0.1.0")
    assert driver["informationUri"] == "https://modelcontextprotocol.io/specification/2026-07-28"


def test_there_is_one_rule_per_distinct_check_id_in_first_seen_order() -> None:
    rules = _log()["runs"][0]["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert ids == list(dict.fromkeys(r.id for r in sample_report().results))
    assert len(ids) == 7


def test_every_result_points_at_its_rule_by_id_and_index() -> None:
    log = _log()
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == [r.id for r in sample_report().results]
    for res in results:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        assert res["message"]["text"]


def test_a_probe_rule_is_tagged_security_with_its_cwe_ids() -> None:
    rules = {r["id"]: r for r in _log()["runs"][0]["tool"]["driver"]["rules"]}
    probe = rules["probe-provenance"]
    assert probe["properties"]["tags"] == ["security", "CWE-346", "mcp"]
    assert probe["properties"]["level"] == "MUST"
    assert probe["name"] == "Server text does not drive the client"
    assert probe["shortDescription"] == {"text": "Server text does not drive the client"}
    assert probe["helpUri"] == "https://modelcontextprotocol.io/specification/2026-07-28/basic"
    plain = rules["sep-2345-progress"]
    assert plain["properties"]["tags"] == ["mcp"]
    assert plain["properties"]["level"] == "SHOULD"
    assert plain["defaultConfiguration"] == {"level": "warning"}


def test_status_maps_to_kind_and_level_and_only_a_failure_has_a_level_other_than_none() -> None:
    got = [(r["properties"]["status"], r["kind"], r["level"]) for r in _results()]
    assert got == [
        ("FAIL", "fail", "error"),
        ("PASS", "pass", "none"),
        ("SKIP", "notApplicable", "none"),
        ("SKIP", "notApplicable", "none"),
        ("ERROR", "open", "none"),
        ("WARN", "fail", "warning"),
        ("PASS", "pass", "none"),
        ("FAIL", "fail", "error"),
    ]
    for res in _results():  # SARIF 3.27.10: with kind other than "fail", level SHALL be "none"
        assert res["kind"] == "fail" or res["level"] == "none"


def test_terminal_and_file_evidence_locate_bytes_in_the_recording() -> None:
    locations = _results()[0]["locations"]
    assert all(
        loc["physicalLocation"]["artifactLocation"] == {"uri": "run-2026.sqlite", "index": 0} for loc in locations
    )
    message, terminal, file = locations
    assert "region" not in message["physicalLocation"]
    assert message["logicalLocations"] == [{"fullyQualifiedName": "run/abc/message/12", "kind": "message"}]
    assert terminal["physicalLocation"]["region"] == {"byteOffset": 340, "byteLength": 24}
    assert terminal["logicalLocations"] == [{"fullyQualifiedName": "run/abc/stdout", "kind": "terminal"}]
    assert terminal["message"] == {"text": "stdout @ byte 340, 24 bytes (run abc)"}
    assert "region" not in file["physicalLocation"]
    assert file["logicalLocations"] == [{"fullyQualifiedName": "run/abc/file/.toy/marker.txt", "kind": "file"}]


def test_a_result_without_evidence_still_names_the_recording() -> None:
    skipped = _results()[2]
    assert skipped["locations"] == [{"physicalLocation": {"artifactLocation": {"uri": "run-2026.sqlite", "index": 0}}}]


def test_result_properties_carry_status_verdict_signals_reason_observations_and_evidence() -> None:
    results = _results()
    confirmed = results[0]["properties"]
    assert confirmed["status"] == "FAIL" and confirmed["verdict"] == "CONFIRMED"
    assert confirmed["signals"] == ["server-directive-executed", "marker-in-file"]
    assert confirmed["observations"] == ["the marker reached stdout 2 messages after the tool result"]
    assert confirmed["evidence"] == [ev.as_dict() for ev in sample_report().results[0].evidence]
    assert confirmed["cwe"] == ["CWE-346"]
    assert results[4]["properties"]["reason"] == "witness-self-test-failed"
    assert "verdict" not in results[6]["properties"]


def test_the_message_leads_with_the_verdict_or_status() -> None:
    texts = [r["message"]["text"] for r in _results()]
    assert texts[0] == "CONFIRMED [provenance]: The client executed a directive the server planted"
    assert texts[2] == "SKIP (no-mcp-call-surface): The client never made a tools/call"
    assert texts[6] == "PASS: every result had resultType"


def test_the_recording_is_the_runs_only_artifact_and_is_never_an_absolute_path() -> None:
    run = _log()["runs"][0]
    assert run["artifacts"] == [
        {"location": {"uri": "run-2026.sqlite"}, "roles": ["analysisTarget"], "mimeType": "application/vnd.sqlite3"}
    ]
    assert run["properties"]["summary"]["CONFIRMED"] == 1
    assert run["properties"]["exit_code"] == 1


def test_a_file_evidence_with_an_offset_gets_a_region_too() -> None:
    report = sample_report()
    one = type(report)(
        tool_version="t",
        oracle_version="1",
        recording="r.sqlite",
        recording_format="3",
        nonce=None,
        scenarios=("mrtr",),
        results=(result(id="c", status="FAIL", evidence=(Evidence(kind="file", path="notes.txt", offset=7),)),),
    )
    location = sarif_log(one)["runs"][0]["results"][0]["locations"][0]  # type: ignore[index]
    assert location["physicalLocation"]["region"] == {"byteOffset": 7}
    assert location["logicalLocations"] == [{"fullyQualifiedName": "file/notes.txt", "kind": "file"}]


def test_model_evidence_is_a_logical_location_by_request_and_json_path_without_a_byte_region() -> None:
    cited = Evidence(kind="model", run="r", seq=7, path="$.messages[2].content", offset=12, length=22, note="bare")
    report = sample_report()
    one = type(report)(
        tool_version="t",
        oracle_version="1",
        recording="r.sqlite",
        recording_format="3",
        nonce=None,
        scenarios=("mrtr",),
        results=(result(id="c", status="FAIL", evidence=(cited,)),),
    )
    location = sarif_log(one)["runs"][0]["results"][0]["locations"][0]  # type: ignore[index]
    assert "region" not in location["physicalLocation"]
    assert location["logicalLocations"] == [
        {"fullyQualifiedName": "run/r/model/7/$.messages[2].content", "kind": "model"}
    ]


SESSION_RULES = tuple(session_checks())


def test_an_untestable_result_says_so_in_its_properties() -> None:
    from backchannel.oracle import judge
    from tests.oracle.reference import recording, server

    log = sarif_log(judge(recording(server("broken-no-tool"))))
    scenario = [r for r in log["runs"][0]["results"] if not r["ruleId"].startswith(SESSION_RULES)]
    assert scenario and all(r["properties"]["untestable"] is True for r in scenario)
    passing = sarif_log(judge(recording(server("bundled"))))
    assert all("untestable" not in r["properties"] for r in passing["runs"][0]["results"])
