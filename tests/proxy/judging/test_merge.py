"""`merge-reports` puts shards (or single reports) back together into one document and one exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.proxy.judging.conftest import REFERENCE, as_json, run_cli, run_here

SHARDS = 3


def _names(doc: dict[str, object]) -> list[str]:
    return [str(item["name"]) for item in doc["recordings"]]  # type: ignore[attr-defined]


def test_merge_reports_accepts_single_reports_and_applies_a_baseline(tmp_path: Path) -> None:
    reference = Path(__file__).resolve().parents[3] / "recordings" / "reference"
    single = tmp_path / "one.json"
    shutil.copyfile(reference / "mrtr-provenance-toy-flawed.expected.json", single)
    baseline = tmp_path / "b.yaml"
    baseline.write_text("expected-failures: [mrtr-provenance]\n", encoding="utf-8")
    assert run_here("merge-reports", single).returncode == 1
    done = run_here("merge-reports", single, "--baseline", baseline)
    assert done.returncode == 0
    assert as_json(done)["recordings"][0]["name"] == "mrtr-provenance-toy-flawed.sqlite"


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[1, 2]",
        json.dumps({"tool": "backchannel", "kind": "backchannel-corpus", "recordings": [{"name": 3}]}),
        json.dumps({"tool": "backchannel", "kind": "backchannel-corpus", "recordings": [{"name": "x"}]}),
        json.dumps({"tool": "backchannel", "results": [], "summary": {"PASS": "many"}, "exit_code": 0}),
        json.dumps({"tool": "backchannel", "results": [], "summary": {"FAIL": -5}, "exit_code": 0}),
        '{"tool": "backchannel", "results": [], "summary": {"PASS": ' + "9" * 4300 + '}, "exit_code": 0}',
        "[" * 100_000 + "]" * 100_000,
    ],
)
def test_a_malformed_report_to_merge_is_one_clear_line_and_exit_2(tmp_path: Path, content: str) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(content, encoding="utf-8")
    done = run_here("merge-reports", bad)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith(f"backchannel: {bad}") and done.stderr.count("\n") == 1


def test_merged_shards_give_the_same_summary_and_exit_code_as_one_run(some_corpus: Path, tmp_path: Path) -> None:
    corpus = some_corpus
    whole = run_cli("judge", corpus, "--format", "json")
    outputs = []
    for k in (1, 2, 3):
        out = tmp_path / f"shard-{k}.json"
        done = run_cli("judge", corpus, "--shard", f"{k}/{SHARDS}", "--format", "json")
        out.write_text(done.stdout, encoding="utf-8")
        outputs.append(out)
    merged = run_here("merge-reports", *outputs)
    assert merged.returncode == whole.returncode == 1
    assert as_json(merged)["summary"] == as_json(whole)["summary"]
    assert sorted(_names(as_json(merged))) == sorted(_names(as_json(whole)))


def test_a_merged_report_carrying_a_member_named_like_a_workers_sarif_part_is_read_as_a_report(tmp_path: Path) -> None:
    # only what a worker made is taken as made: in a file from anywhere, `sarif` is one more unknown member
    doc = json.loads(run_here("judge", REFERENCE / "mrtr-provenance-toy-fixed.sqlite", "--format", "json").stdout)
    shard = {"tool": "backchannel", "kind": "backchannel-corpus", "oracle_version": doc["oracle_version"]}
    shard["recordings"] = [{"name": "a.sqlite", "report": {**doc, "sarif": {"rules": 7, "results": "x"}}}]
    (tmp_path / "shard.json").write_text(json.dumps(shard), encoding="utf-8")
    done = run_here("merge-reports", tmp_path / "shard.json", "--format", "sarif")
    assert done.returncode == 0, done.stderr
    (run,) = json.loads(done.stdout)["runs"]
    assert [a["location"]["uri"] for a in run["artifacts"]] == ["a.sqlite"] and run["tool"]["driver"]["rules"]
