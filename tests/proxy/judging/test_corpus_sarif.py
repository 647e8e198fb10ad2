"""Many recordings as one SARIF log: one run, an artifact per recording, each result located in its recording, a
recording that could not be judged present with an error notification; `judge --format sarif` and
`merge-reports --format sarif` give it with their usual exit codes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from backchannel.proxy.judging import corpus_sarif as corpus_sarif_module
from backchannel.proxy.judging.corpus_sarif import corpus_sarif
from tests.oracle.render.test_sarif import SARIF_SUBSET
from tests.proxy.judging.conftest import FLAWED, PASSING, as_json, copy_in, run_here


def _sarif(done: Any) -> dict[str, Any]:
    return as_json(done)


def test_judging_many_as_sarif_gives_one_run_with_an_artifact_per_recording(tmp_path: Path) -> None:
    copy_in(tmp_path / "c", FLAWED, PASSING[0])
    done = run_here("judge", tmp_path / "c", "--format", "sarif", "--jobs", "1")
    assert done.returncode == 1, done.stderr  # the flawed build fails, as in text and json
    log = _sarif(done)
    jsonschema.validate(log, SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    (run,) = log["runs"]
    uris = [a["location"]["uri"] for a in run["artifacts"]]
    assert sorted(Path(u).name for u in uris) == sorted([f"{FLAWED}.sqlite", f"{PASSING[0]}.sqlite"])
    rule_ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert len(rule_ids) == len(set(rule_ids))  # a check judged in both recordings is one rule
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
        for location in result["locations"]:
            artifact = location["physicalLocation"]["artifactLocation"]
            assert uris[artifact["index"]] == artifact["uri"]
    flawed_index = next(i for i, u in enumerate(uris) if u.endswith(f"{FLAWED}.sqlite"))
    failing = [r for r in run["results"] if r["level"] == "error"]
    assert failing and all(
        r["locations"][0]["physicalLocation"]["artifactLocation"]["index"] == flawed_index for r in failing
    )
    assert run["properties"]["exit_code"] == 1 and run["invocations"][0]["executionSuccessful"] is True


def test_a_recording_a_person_attested_renders_in_a_corpus_sarif_log_with_its_answers_cited(tmp_path: Path) -> None:
    # its results cite the person's answers (evidence kind "attestation"), which the report reader once refused
    copy_in(tmp_path / "c", "elicitation-ui-by-hand-toy", PASSING[0])
    done = run_here("judge", tmp_path / "c", "--format", "sarif", "--jobs", "1")
    assert done.returncode in (0, 1), done.stderr
    log = _sarif(done)
    jsonschema.validate(log, SARIF_SUBSET, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    (run,) = log["runs"]
    assert any(u["location"]["uri"].endswith("elicitation-ui-by-hand-toy.sqlite") for u in run["artifacts"])
    assert "error" not in json.dumps(run["invocations"][0].get("toolExecutionNotifications", []))


def test_pass_and_skip_are_counted_not_listed_and_results_past_the_cap_are_counted_as_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def report(statuses: list[str]) -> dict[str, Any]:
        results = [
            {
                "id": f"c-{i}",
                "scenario": "s",
                "status": st,
                "level": "MUST",
                "title": "t",
                "message": "m",
                "evidence": [],
            }
            for i, st in enumerate(statuses)
        ]
        return {"tool": "backchannel", "results": results, "summary": {}, "exit_code": 1}

    entries = [{"name": "a.sqlite", "report": report(["PASS", "SKIP", "FAIL", "WARN", "ERROR"])}]
    listed = corpus_sarif(entries, 1)["runs"][0]
    assert [r["ruleId"] for r in listed["results"]] == ["c-2", "c-3", "c-4"]
    assert listed["properties"]["results_left_out"] == 0
    monkeypatch.setattr(corpus_sarif_module, "MAX_RESULTS", 2)
    capped = corpus_sarif(entries, 1)["runs"][0]
    assert [r["ruleId"] for r in capped["results"]] == ["c-2", "c-3"]
    assert capped["properties"]["results_left_out"] == 1


def test_a_recording_that_could_not_be_judged_is_an_artifact_with_an_error_notification() -> None:
    log = corpus_sarif([{"name": "broken.sqlite", "error": "not a SQLite file"}], 2)
    (run,) = log["runs"]
    assert run["artifacts"][0]["location"]["uri"] == "broken.sqlite"
    assert run["artifacts"][0]["properties"] == {"judged": False}
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["level"] == "error" and "not a SQLite file" in note["message"]["text"]
    assert run["invocations"][0]["executionSuccessful"] is False and run["results"] == []


def test_merge_reports_renders_shards_as_sarif_with_the_baselines_say(tmp_path: Path) -> None:
    copy_in(tmp_path / "c", FLAWED)
    shard = tmp_path / "shard.json"
    shard.write_text(run_here("judge", tmp_path / "c", "--format", "json", "--jobs", "1").stdout, encoding="utf-8")
    baseline = tmp_path / "b.yaml"
    baseline.write_text("expected-failures:\n  - mrtr-provenance\n  - session\n", encoding="utf-8")
    done = run_here("merge-reports", shard, "--format", "sarif", "--baseline", baseline)
    log = _sarif(done)
    assert done.returncode == log["runs"][0]["properties"]["baseline"]["exit_code"]
    assert log["runs"][0]["properties"]["baseline"]["unexpected"] == []


def test_a_merged_report_whose_results_are_malformed_is_one_line_and_exit_2(tmp_path: Path) -> None:
    copy_in(tmp_path / "c", FLAWED)
    doc = json.loads(run_here("judge", tmp_path / "c", "--format", "json", "--jobs", "1").stdout)
    doc["recordings"][0]["report"]["results"][0]["status"] = "MAYBE"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc), encoding="utf-8")
    done = run_here("merge-reports", bad, "--format", "sarif")
    assert done.returncode == 2 and "status" in done.stderr and done.stdout == ""
