"""Property: whatever is done to a recording's bytes or rows, `load` either reads it or raises RecordingError.

A recording that loads is then judged, rendered in every format and shown as a timeline without an exception and
without one raw control, escape or bidi character; nothing is ever written beside the file. Hostile edits: byte
flips, truncations, a value of another type in any known column, views and triggers in place of tables, values
over the size limit and JSON nested past the depth limit. The suite profile runs 50 examples per test;
HYPOTHESIS_PROFILE=thorough runs 2000.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backchannel.oracle import judge
from backchannel.oracle.render import FORMATS, render
from backchannel.proxy.timeline import timeline
from backchannel.recordings import RecordingError, load
from backchannel.recordings.guard import KNOWN_COLUMNS, ReadLimits

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
SOURCES = ("mrtr-provenance-toy-flawed", "elicitation-url-mode-ts-sdk")
LIMITS = ReadLimits(max_value_bytes=256 * 1024, max_total_bytes=8 * 1024 * 1024, max_rows=10_000)
UNSAFE_RAW = "\x1b\x07\x9b\x85\u202e\u2066\u200f"
SETTINGS = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
TABLES = sorted(KNOWN_COLUMNS)

hostile_text = st.text(alphabet=st.sampled_from('ab{}[]",:\\ \n\x1b\x07\x9b\x85\u202e\u2066\u200f\x00é'), max_size=40)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | hostile_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(hostile_text, inner, max_size=4),
    max_leaves=12,
)
cell_values = st.one_of(
    st.none(),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(allow_nan=False),  # ±inf included: SQLite stores it as REAL
    hostile_text,
    st.binary(max_size=40),
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.integers(min_value=65, max_value=5000).map(lambda n: "[" * n + "]" * n),  # deep JSON
    st.integers(min_value=65, max_value=5000).map(lambda n: '{"a":' * n + "1" + "}" * n),
)


def _edit(path: Path, statements: list[tuple[str, tuple[object, ...]]]) -> None:
    conn = sqlite3.connect(path)
    try:
        for sql, params in statements:
            try:
                with conn:
                    conn.execute(sql, params)
            except sqlite3.Error:
                pass  # a constraint the schema keeps (NOT NULL, UNIQUE): the edit does not apply
    finally:
        conn.close()


def _judged_and_rendered_safely(path: Path) -> None:
    before = sorted(p.name for p in path.parent.iterdir())
    try:
        rec = load(path, LIMITS)
    except RecordingError:
        assert sorted(p.name for p in path.parent.iterdir()) == before
        return
    assert sorted(p.name for p in path.parent.iterdir()) == before  # no -wal, -shm or journal beside it
    report = judge(rec)
    for fmt in FORMATS:
        out = render(report, fmt)
        assert not [c for c in UNSAFE_RAW if c in out], fmt
    shown = "\n".join(text for _, text in timeline(rec))
    assert not [c for c in UNSAFE_RAW if c in shown]


@pytest.fixture(scope="module")
def originals() -> dict[str, bytes]:
    return {name: (REFERENCE / f"{name}.sqlite").read_bytes() for name in SOURCES}


@SETTINGS
@given(data=st.data())
def test_byte_flips_and_truncations_are_read_or_refused(tmp_path_factory, originals, data):
    raw = bytearray(originals[data.draw(st.sampled_from(SOURCES))])
    for position, value in data.draw(
        st.lists(st.tuples(st.integers(0, len(raw) - 1), st.integers(0, 255)), min_size=1, max_size=48)
    ):
        raw[position] = value
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    path = tmp_path_factory.mktemp("fuzz") / "r.sqlite"
    path.write_bytes(bytes(raw))
    _judged_and_rendered_safely(path)


@SETTINGS
@given(data=st.data())
def test_values_of_any_type_in_any_column_are_read_or_refused(tmp_path_factory, originals, data):
    path = tmp_path_factory.mktemp("fuzz") / "r.sqlite"
    path.write_bytes(originals[data.draw(st.sampled_from(SOURCES))])
    edits = []
    for _ in range(data.draw(st.integers(1, 4))):
        table = data.draw(st.sampled_from(TABLES))
        column = data.draw(st.sampled_from(KNOWN_COLUMNS[table]))
        row = data.draw(st.none() | st.integers(0, 30))  # every row, or the row at that offset
        where = (
            "" if row is None else f" WHERE rowid IN (SELECT rowid FROM {table} ORDER BY rowid LIMIT 1 OFFSET {row})"
        )
        edits.append((f"UPDATE {table} SET {column} = ?{where}", (data.draw(cell_values),)))
    _edit(path, edits)
    _judged_and_rendered_safely(path)


SCHEMA_EDITS = st.sampled_from(
    [
        "DROP TABLE {t}; CREATE VIEW {t} AS WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n) "
        "SELECT x AS seq FROM n",
        "ALTER TABLE {t} RENAME TO old_{t}; CREATE VIEW {t} AS SELECT * FROM old_{t}",
        "CREATE TRIGGER t_{t} AFTER INSERT ON {t} BEGIN SELECT 1; END",
        "CREATE VIEW extra_{t} AS SELECT * FROM {t}",
        "ALTER TABLE {t} RENAME TO old_{t}",
        "UPDATE {t} SET rowid = rowid",
    ]
)
HUGE_EDITS = st.sampled_from(
    [
        "UPDATE terminal SET data = zeroblob(300000)",
        "UPDATE messages SET text = printf('%.300000c', '[') WHERE seq IN (SELECT seq FROM messages LIMIT 1)",
        "UPDATE files SET data = zeroblob(200000)",
        "INSERT INTO anomalies(kind, detail) SELECT 'k', 'd' FROM messages, messages AS m2, messages AS m3 LIMIT 20000",
    ]
)


@SETTINGS
@given(data=st.data())
def test_views_triggers_and_huge_values_are_refused_without_running_or_growing(tmp_path_factory, originals, data):
    path = tmp_path_factory.mktemp("fuzz") / "r.sqlite"
    path.write_bytes(originals[data.draw(st.sampled_from(SOURCES))])
    table = data.draw(st.sampled_from([t for t in TABLES if t != "_sqlite_migrations"]))
    script = data.draw(SCHEMA_EDITS).format(t=table) if data.draw(st.booleans()) else data.draw(HUGE_EDITS)
    _edit(path, [(statement, ()) for statement in script.split("; ")])
    _judged_and_rendered_safely(path)
