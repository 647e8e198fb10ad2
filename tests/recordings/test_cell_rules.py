"""Every column of every table is redacted by its declared rule, as it is written and again as it is shared.

A secret is planted in every column (through the writer: in every field of every row record; in a file: raw, in any
column, whatever its kind) and must be gone from every cell of what is written or shared.
"""

import dataclasses
import json
import sqlite3
import types
import typing
from pathlib import Path

import msgpack
import pytest

from backchannel.recordings import cell_rules, redact, rows, store, tables, trim
from backchannel.recordings.meta import RecordingInfo
from backchannel.recordings.shapes import RunDetail
from backchannel.recordings.table_kinds import Cell

KEY = "sk-A1b2C3d4E5f6G7h8J9k0"  # a key-like value: found by its shape wherever it is
QUERY_VALUE = "Qz9Qz9"  # a short value, found only because its query parameter's name is secret
PLANTED = f"http://127.0.0.1:9/cb?page=2&token={QUERY_VALUE}&note={KEY}"


def _leaks(path: Path) -> list[str]:
    """Every table.column of the file whose cells still hold either part of the secret (msgpack included)."""
    found = []
    conn = sqlite3.connect(path)
    try:
        names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for name in names:
            columns = [r[1] for r in conn.execute(f'PRAGMA table_info("{name}")')]
            for row in conn.execute(f'SELECT * FROM "{name}"'):
                for column, value in zip(columns, row, strict=True):
                    data = value if isinstance(value, bytes) else str(value).encode("utf-8", "surrogateescape")
                    if KEY.encode() in data or QUERY_VALUE.encode() in data:
                        found.append(f"{name}.{column}")
    finally:
        conn.close()
    return sorted(set(found))


# ---------------------------------------------------------------------------------------------- as written


def _planted(hint: object) -> object:
    """A value of a row field's declared type holding the secret, wherever that type can hold text."""
    if typing.get_origin(hint) is typing.Literal:  # a direction: backchannel's own words
        return typing.get_args(hint)[0]
    args = typing.get_args(hint) if isinstance(hint, types.UnionType) else ()  # `X | None`
    if hint is str or str in args:
        return PLANTED
    if hint is bytes or bytes in args:
        return json.dumps({"note": PLANTED}).encode()
    if hint is RunDetail:
        return RunDetail(url=PLANTED, note=PLANTED, facts={"lab_env": PLANTED})
    if hint is bool:
        return True
    if hint is int or int in args:
        return 1
    if hint is float or float in args:
        return 1.0
    text = str(hint)
    if "tuple[str, str]" in text or "tuple[bytes, bytes]" in text:  # a header list
        return [("X-Note", PLANTED)]
    if "Mapping" in text:  # a plan
        return {"note": PLANTED}
    if "dict[str" in text:  # mutation entries
        return [{"note": PLANTED}]
    if "Sequence[str]" in text:  # a command line
        return ["client", PLANTED]
    raise AssertionError(f"no planted value for a field of type {hint}")


def _record(cls: type) -> object:
    hints = typing.get_type_hints(cls)
    return cls(**{f.name: _planted(hints[f.name]) for f in dataclasses.fields(cls)})


ROW_RECORDS = [*typing.get_args(rows.Row)]
OUTCOMES = [*typing.get_args(rows.ExchangeOutcome)]
RUN_CHANGES = [*typing.get_args(rows.RunChange)]


def test_every_row_record_of_the_writer_is_planted_here():
    planted = {*ROW_RECORDS, rows.ExchangeRequest, *OUTCOMES, *RUN_CHANGES}
    declared = {
        value
        for value in vars(rows).values()
        if isinstance(value, type) and value.__module__ == rows.__name__ and hasattr(value, "TABLE")
    }
    assert declared == planted


def test_a_secret_in_every_field_of_every_row_record_is_redacted_as_it_is_written(tmp_path):
    path = store.create(tmp_path / "planted.sqlite", RecordingInfo(nonce="n", tool_version="t", scenario=PLANTED))
    writer = store.RecordingWriter(path)
    for cls in ROW_RECORDS:
        writer.insert(_record(cls))  # type: ignore[arg-type]
    for i, outcome in enumerate(OUTCOMES):
        request = dataclasses.replace(_record(rows.ExchangeRequest), flow_id=f"f{i}")  # type: ignore[type-var]
        writer.insert_exchange(request, _record(outcome))  # type: ignore[arg-type]
        writer.update_exchange(f"f{i}", _record(outcome))  # type: ignore[arg-type]
    for change in RUN_CHANGES:
        writer.update_run(PLANTED, _record(change))  # type: ignore[arg-type]
    writer.flush()
    writer.close()
    assert _leaks(path) == []
    with sqlite3.connect(path) as conn:  # the rows are there, and an update found the run the insert named
        assert conn.execute("SELECT count(*) FROM exchanges").fetchone()[0] == len(OUTCOMES)
        ended = conn.execute("SELECT outcome, exit_code FROM runs").fetchall()
        assert len(ended) == 1 and ended[0][1] == 1 and ended[0][0].startswith("http://127.0.0.1:9/cb?page=2&token=")
    conn.close()


def test_a_secret_in_mitmproxys_flow_state_is_redacted_wherever_in_it_it_sits(tmp_path):
    from mitmproxy.test import tflow

    flow = tflow.tflow(resp=True)
    flow.request.path = f"/r/1/mcp?access_token={QUERY_VALUE}&page=1"
    flow.request.headers["X-Api-Key"] = QUERY_VALUE
    flow.response.headers["Set-Cookie"] = f"sid={QUERY_VALUE}"
    flow.comment = f"seen {KEY}"
    flow.metadata["note"] = PLANTED
    state = flow.get_state()
    state["request"]["content"] = json.dumps({"password": QUERY_VALUE}).encode()
    packed = msgpack.packb(state, use_bin_type=True)
    assert QUERY_VALUE.encode() in packed and KEY.encode() in packed
    (kept,) = [v for v in cell_rules.redacted(cell_rules.written("exchanges", ("flow_state",)), [packed])]
    assert isinstance(kept, bytes) and QUERY_VALUE.encode() not in kept and KEY.encode() not in kept
    back = msgpack.unpackb(kept, raw=False)
    assert back["request"]["path"] == b"/r/1/mcp?access_token=[redacted]&page=1"
    assert back["request"]["host"] == state["request"]["host"]  # what holds no secret is kept as it was


def test_a_flow_state_that_cannot_be_read_is_dropped_rather_than_kept_raw():
    rule = cell_rules.WRITTEN["exchanges"]["flow_state"]
    assert rule(b"\xc1 not msgpack " + KEY.encode()) is None
    assert rule(msgpack.packb([KEY])) is None  # msgpack, but not a flow's state


def test_a_header_list_that_is_not_a_list_of_pairs_is_written_as_an_empty_list():
    rule = cell_rules.WRITTEN["exchanges"]["request_headers"]
    assert rule(f'[["a", "b", "{KEY}"]]') == "[]"
    assert rule("not json") == "[]"
    assert json.loads(str(rule([("Authorization", "Bearer abc")]))) == [["Authorization", redact.REDACTED]]


def test_a_number_is_kept_and_text_in_a_numbers_column_is_free_text():
    rule = cell_rules.WRITTEN["exchanges"]["status"]
    assert rule(200) == 200 and rule(1.5) == 1.5 and rule(None) is None
    assert KEY not in str(rule(PLANTED)) and QUERY_VALUE not in str(rule(PLANTED))


def test_no_column_is_kept_as_it_is():
    for table in tables.TABLES:
        for column in table.columns:
            assert column.written_as is not None and column.shared_as is not None, (table.name, column.name)
            assert cell_rules.WRITTEN[table.name][column.name] is not None


# ---------------------------------------------------------------------------------------------- as shared


def _raw_cell(column_type: str, cell: Cell) -> object:
    if cell is Cell.BLOB:
        return PLANTED.encode()
    if cell in (Cell.JSON, Cell.JSON_OBJECT, Cell.DETAIL):
        return json.dumps({"note": PLANTED})
    if cell in (Cell.JSON_OBJECTS,):
        return json.dumps([{"note": PLANTED}])
    if cell is Cell.JSON_ID:
        return json.dumps(PLANTED)
    if cell is Cell.HEADERS:
        return json.dumps([["X-Note", PLANTED]])
    if cell is Cell.ARGV:
        return json.dumps(["client", PLANTED])
    return PLANTED  # text, and text where a number belongs: a hostile file's


def _plant_everywhere(path: Path) -> list[str]:
    """One row in every table with the secret in every column SQLite lets hold text; returns the rest."""
    numbered = []
    conn = sqlite3.connect(path)
    with conn:
        for table in tables.TABLES:
            info = {r[1]: (r[2], r[5]) for r in conn.execute(f'PRAGMA table_info("{table.name}")')}
            values = {}
            for column in table.columns:
                sql_type, primary = info[column.name]
                if primary and sql_type.upper() == "INTEGER":  # the rowid itself: SQLite keeps only integers there
                    numbered.append(f"{table.name}.{column.name}")
                    continue
                values[column.name] = _raw_cell(sql_type, column.cell)
            names = ", ".join(values)
            marks = ", ".join("?" for _ in values)
            conn.execute(f'INSERT INTO "{table.name}" ({names}) VALUES ({marks})', list(values.values()))
    conn.close()
    return numbered


@pytest.mark.parametrize("runs", [None, [PLANTED]], ids=["every-run", "the-planted-run"])
def test_a_secret_planted_in_every_column_of_every_table_is_gone_from_the_shared_copy(tmp_path, runs):
    source = store.create(tmp_path / "planted.sqlite", RecordingInfo(nonce="n", tool_version="t"))
    numbered = _plant_everywhere(source)
    assert set(numbered) == {f"{t.name}.seq" for t in tables.TABLES if "seq" in t.read_columns} | {
        "_sqlite_migrations.id"
    }
    assert len(_leaks(source)) > 60  # planted in every other column
    out = tmp_path / "shared.sqlite"
    summary = trim.trim_copy(source, out, run_ids=runs)
    assert _leaks(out) == []
    assert summary.counts  # and the copy says what went, by name
    if runs is None:  # every planted row is still there, only its secrets gone
        with sqlite3.connect(out) as conn:
            assert conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 1
        conn.close()


def test_a_screenshot_is_kept_whole_or_left_out_never_masked_into_a_broken_image():
    from backchannel.recordings import redact

    rule = cell_rules.SHARED["attestations"]["screenshot"]
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    token = b"ghp_" + b"A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"  # a key-like value, as text inside the image's bytes
    with redact.applying(redact.Redactor(redact.DEFAULT_POLICY)):
        assert rule(png) == png
        assert rule(png + b"tEXtComment\x00 " + token + b" ") is None
        assert rule("<script>not an image</script>") is None
        assert rule(None) is None


def test_a_header_list_found_clean_is_stored_alike_again_and_a_secret_one_is_redacted_and_counted_every_time():
    """The writer keeps header lists found free of secrets (the same few come with every exchange), per redactor."""
    [rule] = cell_rules.written("exchanges", ("request_headers",))
    clean = [("content-type", "application/json"), ("x-team", "s-1")]
    secret = [("authorization", "Bearer abcdefghijklmnopqrstuvwxyz0123")]
    with redact.applying(redact.Redactor()) as redactor:
        first = [rule(list(clean)) for _ in range(3)]
        hidden = [rule(list(secret)) for _ in range(3)]
    assert len(set(first)) == 1 and json.loads(first[0]) == [list(pair) for pair in clean]
    assert all(redact.REDACTED in text and "abcdefghij" not in text for text in hidden)
    assert redactor.tally()["header"] == {"authorization": 3}
    stricter = redact.Policy(["x-team"])  # another recording's policy (--redact): the list is not clean there
    with redact.applying(redact.Redactor(stricter)) as other:
        assert "s-1" not in str(rule(list(clean)))
    assert other.tally()["header"] == {"x-team": 1}
