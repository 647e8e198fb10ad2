"""`judge --store` keeps today's report in each recording; `judge --diff` says what changed since it was stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from backchannel.oracle.judge import ORACLE_VERSION
from backchannel.recordings import load
from backchannel.recordings.reports import REPORT_KEY, store_report, stored_report
from tests.proxy.judging.conftest import FLAWED, PASSING, REFERENCE, as_json, copy_in, run_cli, run_here


def test_without_a_stored_report_the_diff_says_so(tmp_path: Path) -> None:
    [path] = copy_in(tmp_path, PASSING[0])
    done = run_here("judge", path, "--diff")
    assert done.returncode == 0
    assert f"{path}: no stored report (write one with --store)" in done.stdout


def test_store_writes_todays_report_and_a_diff_then_shows_nothing_changed(tmp_path: Path) -> None:
    [flawed, fixed] = copy_in(tmp_path, FLAWED, PASSING[0])
    assert run_cli("judge", tmp_path, "--store").returncode == 1
    stored = stored_report(load(flawed))
    assert stored is not None
    assert stored.document == json.loads((REFERENCE / f"{FLAWED}.expected.json").read_text(encoding="utf-8"))
    done = run_cli("judge", tmp_path, "--diff")
    assert f"{flawed}: unchanged since the stored report (stored by oracle {ORACLE_VERSION})" in done.stdout
    assert f"{fixed}: unchanged since the stored report (stored by oracle {ORACLE_VERSION})" in done.stdout


def test_the_diff_names_new_gone_status_and_message_changes_per_check(tmp_path: Path) -> None:
    [path] = copy_in(tmp_path, FLAWED)
    old = json.loads((REFERENCE / f"{FLAWED}.expected.json").read_text(encoding="utf-8"))
    results = old["results"]
    # as an older oracle might have judged it: one status different, one message different, one check it did not
    # have, and one check that no longer exists
    results[0] = {**results[0], "status": "PASS", "verdict": None}
    results[1] = {**results[1], "message": "an older wording"}
    gone = {**results[2], "id": "a-retired-check"}
    del results[2]
    results.append(gone)
    store_report(path, json.dumps(old), "0")
    done = run_here("judge", path, "--diff", "--format", "json")
    [item] = as_json(done)["recordings"]
    assert item["diff"]["stored_oracle_version"] == "0"
    kinds = {(c["kind"], c["check"].split(":")[1]) for c in item["diff"]["changes"]}
    today = json.loads((REFERENCE / f"{FLAWED}.expected.json").read_text(encoding="utf-8"))["results"]
    assert kinds == {
        ("status", today[0]["id"]),
        ("message", today[1]["id"]),
        ("new", today[2]["id"]),
        ("gone", "a-retired-check"),
    }
    text = run_here("judge", path, "--diff").stdout
    assert f"{path}: 4 change(s) since the stored report (stored by oracle 0)" in text
    assert (
        f"  status   mrtr-provenance:{today[0]['id']}: PASS -> {today[0].get('verdict') or today[0]['status']}" in text
    )


def test_a_damaged_stored_report_is_said_for_that_recording_without_a_traceback(tmp_path: Path) -> None:
    import sqlite3

    [path] = copy_in(tmp_path, PASSING[0])
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("INSERT INTO meta(key, value) VALUES ('stored_report', '{\"results\": 5}')")
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.close()
    done = run_here("judge", path, "--diff")
    assert done.returncode == 0
    assert "stored report unreadable" in done.stdout and "Traceback" not in done.stderr


def test_a_stored_report_that_cannot_be_read_is_said_even_when_todays_cannot_be_stored(tmp_path: Path) -> None:
    # the diff is made where the whole report is; a failed --store no longer hides why the stored one was unreadable
    [path, other] = copy_in(tmp_path, PASSING[0], PASSING[1])
    with sqlite3.connect(path) as conn:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '[1]')", [REPORT_KEY])
    conn.close()
    path.with_name(path.name + "-wal").write_bytes(b"\0" * 64)  # another writer, it seems: nothing is stored
    done = run_here("judge", tmp_path, "--diff", "--store", "--jobs", "1")
    assert done.returncode == 2
    assert f"{path}: stored report unreadable: {path}: the stored report is not a report" in done.stdout
    assert f"{other}: no stored report (write one with --store)" in done.stdout
