"""Opening an untrusted recording: the depth scan and the paths the opener refuses before SQLite sees them."""

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.recordings import RecordingError, load
from backchannel.recordings.errors import RecordingFormatError
from backchannel.recordings.guard import ReadLimits, json_depth_over, open_untrusted

REFERENCE_FLAWED = (
    Path(__file__).resolve().parents[2] / "recordings" / "reference" / "mrtr-provenance-toy-flawed.sqlite"
)


@pytest.mark.parametrize(
    ("text", "limit", "over"),
    [
        ("[" * 10 + "]" * 10, 10, False),
        ("[" * 11 + "]" * 11, 10, True),
        ('{"a": "[[[[[[[[[[[[[[[["}', 3, False),  # brackets inside strings do not nest
        ('["\\"[[[[[[["]', 3, False),  # nor after an escaped quote
        ("[" * 1_000_000, 64, True),  # unterminated: still linear, still refused
        ("not json at all", 0, False),
    ],
)
def test_json_depth_is_measured_outside_strings(text: str, limit: int, over: bool) -> None:
    assert json_depth_over(text, limit) is over


def test_a_directory_or_a_fifo_is_refused_without_being_opened(tmp_path) -> None:
    os.mkfifo(tmp_path / "fifo")
    for name in ("fifo", "."):
        with pytest.raises(RecordingError, match="not a regular file"), open_untrusted(tmp_path / name, ReadLimits()):
            pass


def test_a_missing_file_is_named(tmp_path) -> None:
    with pytest.raises(RecordingError, match="no such recording"), open_untrusted(tmp_path / "gone.sqlite"):
        pass


def test_a_view_whose_name_differs_from_a_known_table_only_in_case_is_refused(tmp_path):
    path = tmp_path / "case.sqlite"
    shutil.copyfile(REFERENCE_FLAWED, path)
    with sqlite3.connect(path) as conn:  # SQLite resolves `FROM anomalies` to this endless view
        conn.execute("DROP TABLE anomalies")
        conn.execute(
            "CREATE VIEW Anomalies AS WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) "
            "SELECT x AS seq, 'r' AS run_id, NULL AS flow_id, 'k' AS kind, 'd' AS detail, 0.0 AS t FROM r"
        )
    with pytest.raises(RecordingFormatError, match="not a table"):
        load(path)


def _run_row(name: str):
    from backchannel.recordings.rows import RunRow

    return RunRow(id=name, ordinal=1, name=name, upstream="http://127.0.0.1:1/mcp", plan={})


def _live_with_another_process(tmp_path, live: bool) -> list[str]:
    """A writer here and a connection in another process (as a capture and its mitmdump); this process reads the
    recording mid-write; the other process then closes its connection first (mitmdump dying mid-capture); the
    writer here writes one more run, and this process reads again, still mid-capture. Returns the runs it sees."""
    import subprocess
    import sys

    from backchannel.recordings import load, store

    path = store.create(tmp_path / "live.sqlite")
    writer = store.RecordingWriter(path)
    try:
        writer.insert(_run_row("before"))
        writer.flush()
        other = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM runs');"
                " print('ready', flush=True); sys.stdin.readline(); c.close()",
                str(path),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert other.stdout is not None and other.stdout.readline().strip() == "ready"
            load(path, live=live)  # the read under test, in this process, while both connections are open
            other.communicate("close\n", timeout=20)
        finally:
            if other.poll() is None:
                other.kill()
        writer.insert(_run_row("after"))
        writer.flush()
        return [run.name for run in load(path, live=live).runs]
    finally:
        writer.close()


def test_a_capture_reading_its_own_live_recording_sees_rows_written_after_another_process_closed(tmp_path):
    # a copy made by this process (load without live) drops this process's locks on the file: the other process's
    # close then folds the WAL in and deletes it under the writer, and later rows stay invisible until the end
    assert _live_with_another_process(tmp_path, live=True) == ["before", "after"]


# A crafted file whose pages are referenced twice: SQLite reads each reference again without noticing, so a small
# file could make the reader take gigabytes of cells or billions of rows. These helpers write such files by hand
# from a real recording, the way an attacker would: by editing the page bytes.

PAGE = 512  # small pages: many cells per file, and each long cell's overflow chain pointer easy to reach


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = 0
    for i in range(9):
        byte = data[at + i]
        if i == 8:
            return (value << 8) | byte, at + 9
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    raise AssertionError("unreachable")


def _page_header(page: int) -> int:
    return (page - 1) * PAGE + (100 if page == 1 else 0)


def _cell_offsets(data: bytearray, page: int) -> list[int]:
    header = _page_header(page)
    count = int.from_bytes(data[header + 3 : header + 5], "big")
    pointers = header + (8 if data[header] == 0x0D else 12)
    base = (page - 1) * PAGE
    return [base + int.from_bytes(data[pointers + 2 * i : pointers + 2 * i + 2], "big") for i in range(count)]


def _leaves(data: bytearray, page: int) -> list[int]:
    header = _page_header(page)
    if data[header] == 0x0D:  # a table leaf
        return [page]
    children = [int.from_bytes(data[at : at + 4], "big") for at in _cell_offsets(data, page)]
    children.append(int.from_bytes(data[header + 8 : header + 12], "big"))  # the right-most child
    return [leaf for child in children for leaf in _leaves(data, child)]


def _recording_with_long_anomalies(tmp_path: Path, rows: int) -> tuple[Path, int]:
    """A real recording, repaged small, with `rows` anomalies whose detail overflows its page; and that table's root."""
    path = tmp_path / "crafted.sqlite"
    shutil.copyfile(REFERENCE_FLAWED, path)
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute(f"PRAGMA page_size={PAGE}")
    conn.execute("VACUUM")
    with conn:
        conn.executemany(
            "INSERT INTO anomalies (kind, detail) VALUES ('crafted', ?)", [("x" * 3000,) for _ in range(rows)]
        )
    [root] = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'anomalies'").fetchone()
    conn.close()
    return path, int(root)


def _point_every_long_cell_at_one_overflow_chain(path: Path, root: int) -> None:
    data = bytearray(path.read_bytes())
    usable = PAGE
    most_local = usable - 35
    least_local = (usable - 12) * 32 // 255 - 23
    chains: list[int] = []
    for leaf in _leaves(data, root):
        for cell in _cell_offsets(data, leaf):
            size, at = _varint(data, cell)
            _, at = _varint(data, at)  # the rowid
            if size <= most_local:
                continue
            local = least_local + (size - least_local) % (usable - 4)
            at += local if local <= most_local else least_local
            chains.append(at)
    assert len(chains) > 10
    first = data[chains[0] : chains[0] + 4]
    for at in chains[1:]:
        data[at : at + 4] = first
    path.write_bytes(bytes(data))


def test_a_file_whose_rows_share_one_overflow_chain_is_refused_before_it_is_read(tmp_path):
    path, root = _recording_with_long_anomalies(tmp_path, rows=200)
    load(path)  # the file as SQLite wrote it reads
    _point_every_long_cell_at_one_overflow_chain(path, root)
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as plain:  # SQLite reads it without a word
        assert plain.execute("SELECT count(*) FROM anomalies WHERE kind = 'crafted'").fetchone()[0] == 200
    with pytest.raises(RecordingFormatError, match=r"crafted\.sqlite is damaged: its SQLite pages are not well-formed"):
        load(path)


def test_a_file_whose_interior_page_points_every_child_at_one_subtree_is_refused(tmp_path):
    path, root = _recording_with_long_anomalies(tmp_path, rows=200)
    data = bytearray(path.read_bytes())
    header = _page_header(root)
    assert data[header] == 0x05  # an interior page: its children can be aliased
    cells = _cell_offsets(data, root)
    first_child = data[cells[0] : cells[0] + 4]
    for at in cells[1:]:
        data[at : at + 4] = first_child
    data[header + 8 : header + 12] = first_child
    path.write_bytes(bytes(data))
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as plain:  # one leaf read many times over
        leaf_rows = plain.execute("SELECT count(*) FROM anomalies").fetchone()[0]
        assert leaf_rows % (len(cells) + 1) == 0
    with pytest.raises(RecordingFormatError, match=r"crafted\.sqlite is damaged: its SQLite pages are not well-formed"):
        load(path)
