import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from backchannel.recordings import RecordingError, RecordingFormatError, load, store
from backchannel.recordings.migrations import latest
from backchannel.recordings.rows import AnomalyRow, MessageRow, UrlHitRow
from tests.factories import new_recording

BOUND_S = 30.0
FROZEN_M001 = Path(__file__).resolve().parent.parent / "fixtures" / "format-m001.sqlite"


def test_a_new_recording_is_marked_as_ours_and_versioned(tmp_path):
    path = new_recording(tmp_path / "r.sqlite")
    rec = load(path)
    assert rec.meta["format"] == "backchannel-recording"
    assert rec.format_version == latest()
    assert rec.meta["nonce"] == "test-nonce"


def test_creating_over_an_existing_file_is_refused(tmp_path):
    path = new_recording(tmp_path / "r.sqlite")
    with pytest.raises(RecordingError, match="already exists"):
        store.create(path)


def test_rows_written_by_the_batched_writer_come_back_in_order(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    for i in range(120):
        writer.insert(
            MessageRow(
                run_id="a", direction="to-server", kind="request", jsonrpc_id=str(i), method="tools/call",
                text=f'{{"id":{i}}}',
            )
        )  # fmt: skip
    writer.flush()
    writer.close()
    store.finalize(path)
    rec = load(path)
    assert [m.rpc_id for m in rec.messages] == list(range(120))
    assert [m.seq for m in rec.messages] == list(range(1, 121))


def test_writes_from_several_threads_all_land(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)

    def work(n: int) -> None:
        for i in range(50):
            writer.insert(AnomalyRow(kind=f"k{n}", detail=str(i)))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    writer.flush()
    writer.close()
    assert len(load(path).anomalies) == 200


def test_finalised_recording_uses_a_rollback_journal_so_read_only_copies_open(tmp_path):
    path = new_recording(tmp_path / "r.sqlite")
    mode = sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "delete"
    path.chmod(0o444)
    assert load(path).meta["format"] == "backchannel-recording"


def test_committed_rows_are_readable_while_the_writer_is_still_open(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(AnomalyRow(kind="x", detail="y"))
    writer.flush()
    assert [a.kind for a in load(path).anomalies] == ["x"]
    writer.close()


def test_rows_queued_without_a_flush_are_committed_on_the_writers_own_clock(tmp_path):
    """No producer wakes the writer (that cost the proxy a thread switch per exchange): it commits every batch
    within BATCH_SECONDS by itself, so a kill -9 loses no more than before and a reader sees rows without a flush."""
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    for i in range(3):
        writer.insert(AnomalyRow(kind=f"k{i}", detail="y"))
    deadline = time.monotonic() + 10
    while len(load(path, live=True).anomalies) < 3:  # polls the file: a commit in another thread sends no event
        assert time.monotonic() < deadline, "the writer did not commit queued rows by itself"
        time.sleep(store.BATCH_SECONDS)
    assert [a.kind for a in load(path, live=True).anomalies] == ["k0", "k1", "k2"]
    writer.close()


def test_a_burst_larger_than_the_backlog_is_written_whole_in_order(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    n = store.BACKLOG * 2 + 7
    for i in range(n):
        writer.insert(AnomalyRow(kind="burst", detail=str(i)))
    writer.close()
    assert [a.detail for a in load(path).anomalies] == [str(i) for i in range(n)]


def test_a_row_the_recording_has_no_table_for_is_a_programming_error(tmp_path):
    copy = tmp_path / "old.sqlite"
    copy.write_bytes(FROZEN_M001.read_bytes())  # format m001: no url_hits table yet
    writer = store.RecordingWriter(copy)
    with pytest.raises(ValueError, match="unknown table or columns for url_hits"):
        writer.insert(UrlHitRow(server="declined", method="GET", path="/"))
    writer.close()


def test_a_writer_that_fails_refuses_further_writes_loudly(tmp_path, capsys):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(MessageRow(direction="to-server", kind="request", text=None))  # type: ignore[arg-type]  # NOT NULL
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.flush()
    with pytest.raises(RecordingError):
        writer.insert(AnomalyRow(kind="x", detail="y"))
    with pytest.raises(RecordingError, match="stopped accepting writes: NOT NULL"):
        writer.close()  # the caller closing it is told too: what it queued is not all in the file
    assert "recording writer" in capsys.readouterr().err


def test_a_flush_after_the_writer_failed_is_answered_at_once_not_at_its_timeout(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(MessageRow(direction="to-server", kind="request", text=None))  # type: ignore[arg-type]  # NOT NULL
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.flush()
    began = time.monotonic()
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.flush(timeout=30)
    assert time.monotonic() - began < 5
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.close()


def test_a_commit_that_finds_no_room_fails_the_flush_waiting_on_it_at_once(tmp_path):
    # a real file size limit in a child process: the row fits SQLite's page cache, its commit cannot reach the disk
    path = tmp_path / "r.sqlite"
    store.create(path)
    script = (
        "import resource, signal, sys, time\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "from backchannel.recordings import RecordingError, store\n"
        "from backchannel.recordings.rows import AnomalyRow\n"
        f"writer = store.RecordingWriter({str(path)!r})\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (65536, 65536))\n"
        "writer.insert(AnomalyRow(kind='big', detail='x' * 300_000))\n"
        "began = time.monotonic()\n"
        "try:\n"
        "    writer.flush(timeout=30)\n"
        "except RecordingError as exc:\n"
        "    print(f'{time.monotonic() - began:.1f}', exc)\n"
        "try:\n"
        "    writer.close()\n"
        "except RecordingError:\n"
        "    pass\n"
    )
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # -B as well: a .pyc cut short would break later imports
    done = subprocess.run([sys.executable, "-B", "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    seconds, _, message = done.stdout.partition(" ")
    assert "stopped accepting writes: disk I/O error" in message
    assert float(seconds) < 5, done.stdout


def test_a_row_put_after_close_is_refused_and_a_flush_after_close_returns_at_once(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(AnomalyRow(kind="before", detail="kept"))
    writer.close()
    began = time.monotonic()
    writer.flush(timeout=30)  # nothing is queued: everything put before the close is committed
    assert time.monotonic() - began < 5
    with pytest.raises(RecordingError, match="was closed: nothing more can be written"):
        writer.insert(AnomalyRow(kind="after", detail="refused, not dropped in silence"))
    with pytest.raises(RecordingError, match="was closed"):
        writer.later(lambda: None)
    writer.close()  # a second close is harmless
    assert [a.kind for a in load(path).anomalies] == ["before"]


def test_rows_put_by_other_threads_while_closing_are_written_or_refused_never_lost(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    accepted: list[str] = []
    refused: list[str] = []
    start = threading.Barrier(5)

    def put(name: str) -> None:
        start.wait(BOUND_S)
        for i in range(400):
            detail = f"{name}-{i}"
            try:
                writer.insert(AnomalyRow(kind="race", detail=detail))
            except RecordingError:
                refused.append(detail)
            else:
                accepted.append(detail)

    threads = [threading.Thread(target=put, args=(f"t{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    start.wait(BOUND_S)
    writer.close()
    for thread in threads:
        thread.join(BOUND_S)
    assert sorted(a.detail for a in load(path).anomalies) == sorted(accepted)
    assert len(accepted) + len(refused) == 1600


def test_a_value_holding_a_lone_surrogate_is_stored_escaped_and_the_recording_goes_on(tmp_path):
    # a client's JSON may say "\ud800": valid JSON, decoded to text SQLite cannot store as UTF-8
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.insert(MessageRow(direction="to-server", kind="request", method="tools/\ud800", text='{"method":"x"}'))
    writer.insert(AnomalyRow(kind="after", detail="still recorded"))
    writer.close()
    rec = load(path)
    assert [m.method for m in rec.messages] == ["tools/\\ud800"]
    assert [a.kind for a in rec.anomalies] == ["after"]


def test_a_writer_thread_that_cannot_open_its_file_fails_loudly_and_answers_at_once(tmp_path, monkeypatch, capsys):
    path = tmp_path / "r.sqlite"
    store.create(path)
    opened: list[int] = []
    connect = store.RecordingWriter._connect

    def only_the_first(self):  # the check at construction opens the file; the writer thread's own open fails
        opened.append(1)
        if len(opened) > 1:
            raise sqlite3.OperationalError("unable to open database file")
        return connect(self)

    monkeypatch.setattr(store.RecordingWriter, "_connect", only_the_first)
    writer = store.RecordingWriter(path)
    began = time.monotonic()
    with pytest.raises(RecordingError, match="stopped accepting writes: unable to open database file"):
        writer.flush(timeout=30)
    assert time.monotonic() - began < 5
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.insert(AnomalyRow(kind="x", detail="y"))
    with pytest.raises(RecordingError, match="stopped accepting writes"):
        writer.close()
    assert "unable to open database file" in capsys.readouterr().err


def test_a_recording_frozen_at_the_first_format_upgrades_and_keeps_its_rows(tmp_path):
    copy = tmp_path / "old.sqlite"
    copy.write_bytes(FROZEN_M001.read_bytes())
    with pytest.raises(
        RecordingFormatError, match=f"uses recording format m001_initial.*Run: backchannel upgrade {copy}"
    ):
        load(copy)
    assert store.upgrade(copy) == [
        "m002_url_hits",
        "m003_descriptions",
        "m004_screens",
        "m005_opens",
        "m006_model_exchanges",
        "m007_attestations",
    ]
    rec = load(copy)
    assert rec.format_version == "m007_attestations" and rec.meta["format_version"] == "m007_attestations"
    assert [m.method for m in rec.messages] == ["tools/call"] and rec.url_hits == ()
    assert store.upgrade(copy) == []


def _old_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "old.sqlite"
    copy.write_bytes(FROZEN_M001.read_bytes())
    return copy


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_bytes(b""), "is empty"),
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: os.mkfifo(p), "is a FIFO"),
        (lambda p: p.write_bytes(b"hello, not a database\n" * 10), "is not a SQLite database"),
    ],
    ids=["missing", "empty", "directory", "fifo", "junk"],
)
def test_upgrade_refuses_a_path_that_is_not_a_recording_and_creates_nothing(tmp_path, make, said):
    path = tmp_path / "target.sqlite"
    make(path)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(RecordingError, match=said):
        store.upgrade(path)  # a FIFO is never opened for a blocking read: this returns
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_upgrade_refuses_an_unrelated_sqlite_database_and_leaves_it_byte_for_byte(tmp_path):
    path = tmp_path / "other.sqlite"
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("CREATE TABLE notes (body TEXT)")
    conn.close()
    before = path.read_bytes()
    with pytest.raises(RecordingFormatError, match="not a backchannel recording"):
        store.upgrade(path)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite"]


def test_upgrade_never_fires_the_triggers_a_file_carries(tmp_path):
    copy = _old_copy(tmp_path)
    conn = sqlite3.connect(copy)
    with conn:
        conn.execute("CREATE TABLE fired (n INTEGER)")
        for event in ("INSERT", "UPDATE", "DELETE"):
            conn.execute(
                f"CREATE TRIGGER on_{event.lower()} AFTER {event} ON meta BEGIN INSERT INTO fired VALUES (1); END"
            )
        conn.execute("CREATE TRIGGER on_migrations AFTER INSERT ON _sqlite_migrations BEGIN DELETE FROM runs; END")
    conn.close()
    before = copy.read_bytes()
    with pytest.raises(RecordingFormatError, match="carries triggers"):
        store.upgrade(copy)
    assert copy.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite"]


def test_upgrade_swaps_in_a_migrated_copy_and_keeps_the_file_mode(tmp_path):
    copy = _old_copy(tmp_path)
    copy.chmod(0o600)
    inode = copy.stat().st_ino
    assert store.upgrade(copy) == [
        "m002_url_hits",
        "m003_descriptions",
        "m004_screens",
        "m005_opens",
        "m006_model_exchanges",
        "m007_attestations",
    ]
    assert copy.stat().st_ino != inode  # a new file took its place: never half-migrated in place
    assert copy.stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite"]
    assert load(copy).format_version == "m007_attestations"


def test_a_new_recording_and_its_wal_and_shm_files_are_owner_only_whatever_the_umask(tmp_path):
    path = tmp_path / "private.sqlite"
    previous = os.umask(0o022)
    try:
        store.create(path)
        writer = store.RecordingWriter(path)
        writer.insert(AnomalyRow(kind="x", detail="y"))
        writer.flush()
        modes = {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()}
        writer.close()
    finally:
        os.umask(previous)
    assert modes == {"private.sqlite": 0o600, "private.sqlite-wal": 0o600, "private.sqlite-shm": 0o600}


def test_work_on_the_writer_thread_that_makes_no_rows_does_not_stop_the_writer(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)
    writer.later(lambda: None)  # a batch of zero rows
    writer.insert(AnomalyRow(kind="after-empty", detail="still written"))
    writer.flush()
    writer.close()
    store.finalize(path)
    assert [a.kind for a in load(path).anomalies] == ["after-empty"]


def test_work_on_the_writer_thread_that_raises_becomes_an_anomaly_and_the_writer_goes_on(tmp_path):
    path = tmp_path / "r.sqlite"
    store.create(path)
    writer = store.RecordingWriter(path)

    def broken() -> None:
        raise ValueError("hostile body")

    writer.later(broken)
    writer.insert(AnomalyRow(kind="after-failure", detail="still written"))
    writer.flush()
    writer.close()
    store.finalize(path)
    kinds = [(a.kind, a.detail) for a in load(path).anomalies]
    assert kinds[0][0] == "recorder-failed" and "ValueError: hostile body" in kinds[0][1]
    assert kinds[1] == ("after-failure", "still written")
