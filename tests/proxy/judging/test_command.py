"""`backchannel judge PATH...`: files, folders and globs judged in parallel, one summary, one JSON document, one
exit code; one file exactly as before."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from backchannel.proxy.judging import baseline as baseline_mod
from backchannel.proxy.judging import command, corpus, spool
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import judge_all, tasks_for
from backchannel.recordings.reports import REPORT_KEY, store_report
from tests.proxy.judging.conftest import FLAWED, PASSING, REFERENCE, as_json, copy_in, run_cli, run_here


def test_one_file_prints_exactly_the_report_it_always_did(tmp_path: Path) -> None:
    [path] = copy_in(tmp_path, FLAWED)
    done = run_here("judge", path, "--format", "json")
    assert done.returncode == 1
    assert done.stdout == (REFERENCE / f"{FLAWED}.expected.json").read_text(encoding="utf-8")


def test_a_folder_is_judged_recursively_into_one_document_holding_every_report(corpus: Path) -> None:
    done = run_cli("judge", corpus, "--format", "json", "--jobs", "2")
    doc = as_json(done)
    names = sorted(Path(item["name"]).name for item in doc["recordings"])
    assert names == sorted(p.name for p in REFERENCE.glob("*.sqlite"))
    assert any("/nested/" in item["name"] for item in doc["recordings"])
    for item in doc["recordings"]:
        expected = json.loads(Path(REFERENCE / Path(item["name"]).name).with_suffix(".expected.json").read_text())
        assert item["report"] == expected  # the same report `judge FILE` gives, byte for byte in substance
    assert doc["summary"]["recordings"] == len(names)
    assert doc["exit_code"] == done.returncode == 1
    assert done.stderr == ""  # no progress bar when stderr is not a terminal


def test_parallel_and_serial_judging_print_the_same_bytes(corpus: Path) -> None:
    serial = run_cli("judge", corpus, "--jobs", "1")
    parallel = run_cli("judge", corpus, "--jobs", "2")
    assert serial.stdout == parallel.stdout
    assert serial.returncode == parallel.returncode == 1


def test_the_text_output_lists_failures_per_recording_and_one_summary_table(tmp_path: Path) -> None:
    copy_in(tmp_path / "c", FLAWED, *PASSING)
    done = run_cli("judge", tmp_path / "c")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    flawed = next(i for i, line in enumerate(lines) if line.startswith(str(tmp_path / "c" / f"{FLAWED}.sqlite")))
    assert "CONFIRMED" in lines[flawed + 1] or "FAIL" in lines[flawed + 1]
    assert any(line.startswith("│ total (4 recordings)") for line in lines)
    assert lines[-1] == "4 recordings, 0 not judged; exit code 1"


def test_only_passing_recordings_exit_zero_and_a_glob_selects_them(tmp_path: Path) -> None:
    copy_in(tmp_path, FLAWED, *PASSING)
    done = run_cli("judge", str(tmp_path / "*-toy-fi?ed.sqlite"), str(tmp_path / "*-toy-[s]*"), "--format", "json")
    doc = as_json(done)
    assert sorted(item["name"].rsplit("/", 1)[1] for item in doc["recordings"]) == [
        "mrtr-provenance-toy-fixed.sqlite",
        "mrtr-provenance-toy-strict.sqlite",
    ]
    assert done.returncode == doc["exit_code"] == 0


def test_a_hostile_recording_in_a_corpus_is_named_and_the_rest_still_judged(tmp_path: Path) -> None:
    [good, bad] = copy_in(tmp_path, PASSING[0], PASSING[1])
    conn = sqlite3.connect(bad)
    with conn:
        conn.execute("CREATE TRIGGER t AFTER INSERT ON meta BEGIN SELECT 1; END")
    conn.close()
    (tmp_path / "not-a-recording.sqlite").write_text("plain text", encoding="utf-8")
    done = run_cli("judge", tmp_path, "--format", "json")
    assert done.returncode == 2
    doc = as_json(done)
    by_name = {Path(item["name"]).name: item for item in doc["recordings"]}
    assert "report" in by_name[good.name]
    assert "triggers" in by_name[bad.name]["error"]
    assert "not a SQLite database" in by_name["not-a-recording.sqlite"]["error"]
    assert "Traceback" not in done.stderr


def test_a_path_naming_nothing_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    copy_in(tmp_path, PASSING[0])
    for argument in (str(tmp_path / "missing.sqlite"), str(tmp_path / "nope-*.sqlite")):
        done = run_cli("judge", tmp_path, argument)
        assert done.returncode == 2
        assert done.stdout == ""
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("backchannel: ")


def test_junit_refuses_many_recordings_with_one_line_naming_the_formats_that_take_them(tmp_path: Path) -> None:
    copy_in(tmp_path, *PASSING)
    done = run_cli("judge", tmp_path, "--format", "junit")
    assert done.returncode == 2
    assert "use text, json or sarif" in done.stderr and done.stderr.count("\n") == 1


@pytest.mark.parametrize("fmt", ["json", "text", "sarif"])
@pytest.mark.parametrize("asked", ["plain", "diff-baseline-store"])
def test_a_streamed_corpus_output_is_the_same_text_as_rendered_whole_from_every_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str, asked: str
) -> None:
    # each recording's part spooled as it is judged (here through a spool that moves to disk at once), from the
    # slim shape its worker sends, gives the output rendering every whole report at the end gave
    monkeypatch.setattr(spool, "IN_MEMORY", 64)
    folder = tmp_path / "c"
    copy_in(folder, FLAWED, *PASSING, "elicitation-ui-by-hand-toy")
    (folder / "broken.sqlite").write_text("not a recording", encoding="utf-8")
    rules = tmp_path / "baseline.yaml"
    rules.write_text("expected-failures:\n  - mrtr-provenance\n  - session:not-a-check\n", encoding="utf-8")
    every = asked != "plain"
    if every:  # reports stored as an older oracle judged them (one changed, one unreadable); one cannot be stored
        old = json.loads((REFERENCE / f"{FLAWED}.expected.json").read_text(encoding="utf-8"))
        old["results"][0] = {**old["results"][0], "status": "PASS", "verdict": None}
        store_report(folder / f"{FLAWED}.sqlite", json.dumps(old), "0")
        with sqlite3.connect(folder / f"{PASSING[1]}.sqlite") as conn:  # not through store_report: it refuses this
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '[1]')", [REPORT_KEY])
        conn.close()
        (folder / f"{PASSING[0]}.sqlite-wal").write_bytes(b"\0" * 64)  # a -wal beside it: nothing is stored in it
    pristine = shutil.copytree(
        folder, tmp_path / "pristine"
    )  # --store changes the stored reports: both runs start here
    baseline = rules if every else None
    streamed = command.judge_many([str(folder)], fmt=fmt, jobs=1, baseline=baseline, show_diff=every, store=every)
    assert fmt == "sarif" or (streamed.spooled is not None and not streamed.spooled.empty)
    shutil.rmtree(folder)
    shutil.copytree(pristine, folder)
    expected = baseline_mod.load_baseline(baseline) if baseline is not None else None
    entries = []
    for outcome in judge_all(tasks_for(expand([str(folder)]), read_stored=every, store=every), 1):
        item = corpus.entry(outcome)
        if every:
            item["diff"] = outcome.diff
        entries.append(item)
    whole = command.finish(entries, fmt, expected)
    assert whole.spooled is None
    assert streamed.whole() == whole.text and streamed.exit_code == whole.exit_code == 2
    if every and fmt != "sarif":  # a SARIF log carries no diff
        assert ": PASS -> " in whole.text or '"before": "PASS"' in whole.text
        assert "stored report unreadable" in whole.text or "the stored report is not" in whole.text
        assert "cannot store its report" in whole.text and "baseline" in whole.text
    streamed.close()


def test_a_recording_whose_file_name_is_not_utf_8_is_named_escaped_in_a_document_that_is(tmp_path: Path) -> None:
    [good] = copy_in(tmp_path, PASSING[0])
    bad = os.path.join(os.fsencode(tmp_path), b"bad\xff.sqlite")
    shutil.copyfile(good, bad)
    done = subprocess.run(
        [sys.executable, "-m", "backchannel.proxy.cli", "judge", str(tmp_path), "--format", "json", "--jobs", "1"],
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout.decode("utf-8"))  # strict UTF-8: the name's byte was written raw before
    assert sorted(item["name"] for item in doc["recordings"]) == [os.fsdecode(bad), str(good)]
    text = run_cli("judge", tmp_path, "--jobs", "1")
    assert f"{tmp_path}/bad\\udcff.sqlite" in text.stdout


@pytest.mark.parametrize("many", [False, True])
def test_a_stdout_that_cannot_take_the_output_is_one_line_and_exit_2(corpus: Path, many: bool) -> None:
    """A full disk under the output was a traceback and exit 1, which a CI step reads as "findings", not as a
    report cut short."""
    argv = [str(corpus) if many else str(sorted(corpus.rglob("*.sqlite"))[0]), "--format", "json"]
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "backchannel.proxy.cli", "judge", *argv],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("backchannel: cannot print the output (No space left on device)")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_newline_in_a_file_name_cannot_forge_a_line_of_the_text_output(tmp_path: Path) -> None:
    forged = "fine.sqlite: 25 PASS; exit code 0"
    evil = tmp_path / f"evil\n{forged}\n.sqlite"
    shutil.copyfile(REFERENCE / f"{FLAWED}.sqlite", evil)
    shutil.copyfile(REFERENCE / f"{PASSING[0]}.sqlite", tmp_path / "fine.sqlite")
    done = run_here("judge", tmp_path, "--jobs", "1", "--format", "text")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert not any(line.startswith(forged) for line in lines), done.stdout
    (heading,) = [line for line in lines if line.startswith(str(tmp_path / "evil"))]
    assert heading.startswith(f"{tmp_path / 'evil'}\\n{forged}\\n.sqlite: ")


def test_a_newline_in_a_file_name_cannot_forge_a_baseline_line_either(tmp_path: Path) -> None:
    forged = "baseline: 0 expected failure(s), 0 unexpected"
    shutil.copyfile(REFERENCE / f"{FLAWED}.sqlite", tmp_path / f"evil\n{forged}\n.sqlite")
    baseline = tmp_path / "b.yaml"
    baseline.write_text("expected-failures: [elicitation-url-mode]\n", encoding="utf-8")
    done = run_here("judge", tmp_path, "--jobs", "1", "--baseline", baseline)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert forged not in lines and sum(line.startswith("baseline: ") for line in lines) == 1, done.stdout
