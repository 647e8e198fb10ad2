"""A recording from a bug report is untrusted: damaged or hostile content gets a clear error, never a crash."""

import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backchannel.oracle import judge
from backchannel.recordings import RecordingError, RecordingFormatError, load
from backchannel.recordings.guard import ReadLimits

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
SOURCES = ["mrtr-provenance-toy-flawed", "elicitation-url-mode-ts-sdk"]

HOSTILE = [
    "UPDATE messages SET text = 'not json {' WHERE seq % 3 = 0",
    "UPDATE messages SET text = '[1,2,3]', method = NULL",
    "UPDATE messages SET jsonrpc_id = '{'",
    "UPDATE runs SET detail = '[1]'",
    "UPDATE runs SET plan = '\"a string\"'",
    "UPDATE runs SET client_argv = '7'",
    "UPDATE exchanges SET mutations = '{\"kind\": 1}'",
    'UPDATE exchanges SET mutations = \'[1, "x", {"kind": "drop-result-type", "start": "a"}]\'',
    "UPDATE exchanges SET request_headers = '[[1]]'",
    "UPDATE terminal SET data = x''",
    "UPDATE terminal SET offset = -5",
    "UPDATE files SET data = x'ff00fe'",
    "UPDATE meta SET value = '{' WHERE key IN ('discovery', 'probe_options')",
    "UPDATE meta SET value = '' WHERE key = 'nonce'",
    "DELETE FROM runs WHERE name = 'control'",
    "DELETE FROM messages",
    "UPDATE url_hits SET headers = 'x'",
    "UPDATE sse_events SET idx = 'abc'",
]


def _copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / f"{name}.sqlite"
    shutil.copyfile(REFERENCE / f"{name}.sqlite", target)
    return target


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("statement", HOSTILE)
def test_hostile_content_is_judged_or_refused_with_a_recording_error(tmp_path, source, statement):
    path = _copy(tmp_path, source)
    with sqlite3.connect(path) as conn:
        conn.execute(statement)
    conn.close()
    try:
        rec = load(path)
    except RecordingError as exc:
        assert str(path) in str(exc) or "row" in str(exc)
        return
    report = judge(rec)  # may hold ERROR or SKIP findings; must not raise
    assert all(r.status in ("PASS", "FAIL", "WARN", "SKIP", "ERROR") for r in report.results)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_damaged_bytes_never_crash_the_reader(tmp_path, data):
    path = _copy(tmp_path, data.draw(st.sampled_from(SOURCES)))
    raw = bytearray(path.read_bytes())
    seed = data.draw(st.integers(min_value=0, max_value=2**32 - 1))
    rng = random.Random(seed)
    for _ in range(data.draw(st.integers(min_value=1, max_value=64))):
        raw[rng.randrange(len(raw))] = rng.randrange(256)
    if data.draw(st.booleans()):
        raw = raw[: rng.randrange(len(raw))]
    path.write_bytes(bytes(raw))
    try:
        rec = load(path)
    except RecordingError:
        return
    judge(rec)


def _hostile(tmp_path: Path, *statements: str, source: str = SOURCES[0]) -> Path:
    path = _copy(tmp_path, source)
    conn = sqlite3.connect(path)
    with conn:
        for statement in statements:
            conn.execute(statement)
    conn.close()
    return path


def _beside(path: Path) -> set[str]:
    return {p.name for p in path.parent.iterdir()}


def test_an_endless_view_in_place_of_a_table_is_refused_without_reading_it(tmp_path):
    path = _hostile(
        tmp_path,
        "DROP TABLE terminal",
        "CREATE VIEW terminal AS WITH RECURSIVE n(seq) AS (SELECT 1 UNION ALL SELECT seq + 1 FROM n) "
        "SELECT seq, 'r' AS run_id, 'stdout' AS stream, seq AS offset, randomblob(1000) AS data, 0.0 AS t FROM n",
    )
    with pytest.raises(RecordingFormatError, match="terminal is a view, not a table"):
        load(path)
    assert _beside(path) == {path.name}


def test_a_recording_that_carries_triggers_is_refused(tmp_path):
    path = _hostile(tmp_path, "CREATE TRIGGER boom AFTER INSERT ON meta BEGIN DELETE FROM runs; END")
    with pytest.raises(RecordingFormatError, match=r"carries triggers \(boom\)"):
        load(path)


def test_a_computed_column_under_a_known_table_is_refused(tmp_path):
    path = _hostile(
        tmp_path,
        "DROP TABLE anomalies",
        "CREATE TABLE anomalies (seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT, kind TEXT NOT NULL, "
        "detail TEXT GENERATED ALWAYS AS (zeroblob(100000000)) VIRTUAL, t REAL)",
    )
    with pytest.raises(RecordingFormatError, match=r"anomalies has computed columns \(detail\)"):
        load(path)


def test_a_recording_left_in_wal_mode_opens_without_leaving_files_beside_it(tmp_path):
    path = _hostile(tmp_path, "PRAGMA journal_mode=WAL")  # the mode sticks in the header; no -wal is left
    assert _beside(path) == {path.name}
    before = path.read_bytes()
    load(path)
    assert _beside(path) == {path.name}
    assert path.read_bytes() == before


def test_rows_still_in_the_wal_of_a_dead_writer_are_read_from_a_private_copy(tmp_path):
    source = _copy(tmp_path, SOURCES[0])
    writer = sqlite3.connect(source)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with writer:
        writer.execute("INSERT INTO anomalies(kind, detail) VALUES ('late', 'only in the wal')")
    dead = tmp_path / "dead"
    dead.mkdir()
    for suffix in ("", "-wal"):  # what a killed writer leaves: the file and its WAL, no one holding them
        shutil.copyfile(f"{source}{suffix}", dead / f"r.sqlite{suffix}")
    writer.close()
    path = dead / "r.sqlite"
    before = {name: (dead / name).read_bytes() for name in _beside(path)}
    rec = load(path)
    assert any(a.kind == "late" for a in rec.anomalies)
    assert {name: (dead / name).read_bytes() for name in _beside(path)} == before


@pytest.mark.parametrize(
    ("statement", "limits", "named"),
    [
        ("UPDATE terminal SET data = zeroblob(5000)", ReadLimits(max_value_bytes=4096), "terminal.data"),
        ("UPDATE messages SET text = printf('%.5000c', 'x')", ReadLimits(max_value_bytes=4096), "messages.text"),
        ("UPDATE files SET data = zeroblob(3000)", ReadLimits(max_total_bytes=10_000), "holds"),
        ("SELECT 1", ReadLimits(max_rows=3), "has more than 3 rows"),
    ],
)
def test_a_recording_over_a_read_limit_is_refused_naming_the_table_and_column(tmp_path, statement, limits, named):
    path = _hostile(tmp_path, statement)
    with pytest.raises(RecordingFormatError, match=re.escape(named)):
        load(path, limits)


def test_a_small_file_whose_rows_all_read_a_big_column_default_is_still_measured_and_refused(tmp_path):
    # 11,000 rows that each read a 100 KB default: 1.1 GB of cells from a file of a few hundred KB (a column added
    # after the rows were stored gives each its default without storing it)
    big = "x" * 100_000
    path = _hostile(
        tmp_path,
        "DROP TABLE anomalies",
        "CREATE TABLE anomalies (seq INTEGER PRIMARY KEY, run_id TEXT, flow_id TEXT, kind TEXT NOT NULL, t REAL)",
        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r LIMIT 11000)"
        " INSERT INTO anomalies(kind) SELECT 'k' FROM r",
        f"ALTER TABLE anomalies ADD COLUMN detail TEXT NOT NULL DEFAULT '{big}'",
    )
    assert path.stat().st_size < 2_000_000
    with pytest.raises(RecordingFormatError, match="bytes of cells"):
        load(path)


def test_json_nested_past_the_limit_is_refused_naming_the_column_not_a_recursion_error(tmp_path):
    deep = "[" * 100_000 + "]" * 100_000
    path = _hostile(tmp_path, f"UPDATE messages SET text = '{deep}' WHERE seq = (SELECT min(seq) FROM messages)")
    with pytest.raises(RecordingFormatError, match=r"column text, is malformed: JSON nested deeper than .* 64"):
        load(path)


def test_json_at_the_depth_limit_is_read_and_judged(tmp_path):
    deep = '{"a":' * 60 + "1" + "}" * 60
    path = _hostile(tmp_path, f"UPDATE messages SET text = '{deep}'")
    rec = load(path)
    assert rec.messages[0].payload is not None
    judge(rec)


@pytest.mark.parametrize(
    ("statement", "column"),
    [
        ("UPDATE terminal SET offset = 1e300", "offset"),
        ("UPDATE messages SET t = 9e999", "column t"),
        ("UPDATE messages SET t = 'soon'", "column t"),
        ("UPDATE runs SET ordinal = x'00'", "ordinal"),
        ("UPDATE files SET size = 2.5", "size"),
        ('UPDATE exchanges SET request_headers = \'{"a": "b"}\'', "request_headers"),
        ("UPDATE exchanges SET request_headers = '[[\"a\", 1]]'", "request_headers"),
        ("UPDATE runs SET exit_code = 'zero'", "exit_code"),
    ],
)
def test_a_value_of_the_wrong_type_or_out_of_range_is_named_by_its_column(tmp_path, statement, column):
    path = _hostile(tmp_path, statement)
    with pytest.raises(RecordingFormatError, match=re.escape(column)):
        load(path)


def _left_open(tmp_path: Path) -> Path:
    """A recording and the -wal a killed writer left beside it."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    source = _copy(tmp_path, SOURCES[0])
    writer = sqlite3.connect(source)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    with writer:
        writer.execute("INSERT INTO anomalies(kind, detail) VALUES ('late', 'only in the wal')")
    dead = tmp_path / "dead"
    dead.mkdir()
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{source}{suffix}", dead / f"r.sqlite{suffix}")
    writer.close()
    return dead / "r.sqlite"


def test_a_wal_larger_than_the_read_limit_is_refused_before_it_is_copied(tmp_path, monkeypatch):
    """A sparse -wal says it holds a terabyte in a few KB of disk: copying it whole filled the temp folder."""
    path = _left_open(tmp_path)
    os.truncate(f"{path}-wal", 2 * 1024**3)  # over the 1 GiB limit; a regression writes 2 GiB, not a terabyte
    private = tmp_path / "tmp"
    private.mkdir()
    monkeypatch.setenv("TMPDIR", str(private))
    monkeypatch.setattr(tempfile, "tempdir", None)  # TMPDIR read again
    with pytest.raises(RecordingFormatError, match="and its -wal hold more than"):
        load(path)
    assert list(private.iterdir()) == [], "the copy is gone"
    with pytest.raises(RecordingFormatError, match="and its -wal hold more than 100000 bytes"):
        load(_left_open(tmp_path / "small"), ReadLimits(max_total_bytes=100_000))


def test_a_wal_that_is_a_link_is_refused(tmp_path):
    path = _left_open(tmp_path)
    elsewhere = tmp_path / "elsewhere-wal"
    Path(f"{path}-wal").rename(elsewhere)
    Path(f"{path}-wal").symlink_to(elsewhere)
    with pytest.raises(RecordingFormatError, match="its -wal is a link"):
        load(path)


@pytest.mark.skipif(os.geteuid() == 0 and not shutil.which("setpriv"), reason="root reads any file")
def test_a_recording_it_may_not_read_says_so(tmp_path):
    path = _copy(tmp_path, SOURCES[0])
    path.chmod(0)
    code = f"from backchannel.recordings import load\nload({str(path)!r})"
    argv = [sys.executable, "-c", code]
    if os.geteuid() == 0:  # root reads any file: the test drops the capability that lets it
        argv = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", *argv]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert "cannot read it (Permission denied)" in done.stderr, done.stderr
