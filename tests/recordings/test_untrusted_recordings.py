"""A recording from a bug report is untrusted: damaged or hostile content gets a clear error, never a crash."""

import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backchannel.oracle import judge
from backchannel.recordings import RecordingError, load

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
