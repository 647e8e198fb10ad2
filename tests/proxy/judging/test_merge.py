"""`merge-reports` puts shards (or single reports) back together into one document and one exit code."""

from __future__ import annotations

import json
import os
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


def _shard_doc(tmp_path: Path, name: str, shard: object) -> Path:
    reference = json.loads((REFERENCE / "mrtr-provenance-toy-flawed.expected.json").read_text(encoding="utf-8"))
    doc = {"tool": "backchannel", "kind": "backchannel-corpus", "oracle_version": reference["oracle_version"]}
    doc.update(shard=shard, recordings=[{"name": f"{name}.sqlite", "report": reference}])
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("shards", "said"),
    [
        (["1/3", "3/3"], "shard 2/3 is missing (given: 1/3, 3/3)"),
        (["1/2", "2/2", "2/2"], "both hold shard 2/2"),
        (["1/2", "2/2", "1/3", "2/3", "3/3"], "shards of different splits (of 2 and of 3)"),
        (["0/2"], "its shard 0/2 is not one of 2"),
        (["x"], "its shard is not K/N"),
        ([["1", "2"]], "its shard is not K/N"),
    ],
)
def test_shards_to_merge_must_come_complete_each_once_and_from_one_split(
    tmp_path: Path, shards: list[object], said: str
) -> None:
    outputs = [_shard_doc(tmp_path, f"s{i}", shard) for i, shard in enumerate(shards)]
    baseline = tmp_path / "b.yaml"
    baseline.write_text("expected-failures: [mrtr-provenance]\n", encoding="utf-8")
    done = run_here("merge-reports", *outputs, "--baseline", baseline)
    assert done.returncode == 2 and done.stdout == ""
    assert said in done.stderr and done.stderr.count("\n") == 1


def test_every_shard_once_with_other_outputs_beside_them_merges(tmp_path: Path) -> None:
    outputs = [_shard_doc(tmp_path, f"s{k}", f"{k}/2") for k in (2, 1)]
    single = tmp_path / "one.json"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.expected.json", single)
    done = run_here("merge-reports", *outputs, single)
    assert done.returncode == 1, done.stderr
    assert _names(as_json(done)) == ["s2.sqlite", "s1.sqlite", "mrtr-provenance-toy-flawed.sqlite"]


def test_an_output_given_twice_under_any_name_is_refused_not_counted_twice(tmp_path: Path) -> None:
    """The same shard file given twice was merged twice: its recordings counted twice, the split taken as whole."""
    outputs = [_shard_doc(tmp_path, f"s{k}", f"{k}/2") for k in (1, 2)]
    single = tmp_path / "one.json"
    shutil.copyfile(REFERENCE / "mrtr-provenance-toy-flawed.expected.json", single)
    (tmp_path / "also.json").symlink_to(single)
    for given in (
        [outputs[0], outputs[0], outputs[1]],
        [outputs[0], tmp_path / "." / outputs[0].name, outputs[1]],
        [single, tmp_path / "also.json"],
    ):
        done = run_here("merge-reports", *given)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert "given again; give each output once" in done.stderr and done.stderr.count("\n") == 1


def test_a_fifo_no_one_writes_to_is_read_as_empty_at_once_and_a_pipe_as_a_file(tmp_path: Path) -> None:
    """A FIFO with no writer hung the merge for ever; a pipe being written to (`<(judge ...)`) must still merge."""
    fifo = tmp_path / "shard.json"
    os.mkfifo(fifo)
    done = run_here("merge-reports", fifo)  # the test's own timeout bounds a hang
    assert done.returncode == 2 and "is not JSON" in done.stderr
    single = (REFERENCE / "mrtr-provenance-toy-flawed.expected.json").read_bytes()
    readable, writable = os.pipe()
    try:
        os.write(writable, single)
        os.close(writable)
        done = run_here("merge-reports", f"/dev/fd/{readable}")
    finally:
        os.close(readable)
    assert done.returncode == 1 and _names(as_json(done)) == ["mrtr-provenance-toy-flawed.sqlite"], done.stderr
    (tmp_path / "folder.json").mkdir()
    done = run_here("merge-reports", tmp_path / "folder.json")
    assert done.returncode == 2 and "cannot read it (Is a directory)" in done.stderr
