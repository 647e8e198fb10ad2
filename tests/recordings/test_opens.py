"""The `opens` table (m005_opens): calls of the URL-opener stand-ins round-trip, bad rows are refused by name, and a
recording made before it reads as it is (keeping its format name) or upgrades in place."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from backchannel.oracle import judge
from backchannel.recordings import RecordingFormatError, load, store
from backchannel.recordings.descriptions import rows as description_rows
from backchannel.recordings.migrations import READ_AS_IS, latest
from backchannel.recordings.model import UrlOpen
from backchannel.recordings.trim import trim_copy
from tests.factories import new_recording

REFERENCE = Path(__file__).resolve().parents[2] / "recordings" / "reference"
M004 = REFERENCE / "mrtr-provenance-toy-interactive-tty.sqlite"
M003 = REFERENCE / "mrtr-provenance-toy-flawed.sqlite"
OPEN = {"run_id": "a", "opener": "xdg-open", "argv": ["https://example.com/cb?x=1&y=2"], "t": 5.5}


# a file from elsewhere need not keep our constraints: the table rebuilt without them (NOT NULL, the key)
LOOSE = "CREATE TABLE loose AS SELECT * FROM opens; DROP TABLE opens; ALTER TABLE loose RENAME TO opens; "


def _broken(path: Path, sql: str) -> Path:
    conn = sqlite3.connect(path)
    conn.executescript(sql)
    conn.close()
    return path


def test_a_call_of_an_opener_comes_back_as_it_was_written_with_what_it_was_asked_to_open(tmp_path):
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}, {"id": "b"}],
        opens=[
            OPEN,
            {"run_id": "b", "opener": "gio", "argv": ["open", "--", "https://g.example/"], "truncated": True},
        ],
    )
    rec = load(path)
    assert rec.format_version == latest()
    first, second = rec.opens
    assert first == UrlOpen(seq=first.seq, run_id="a", opener="xdg-open", argv=(OPEN["argv"][0],), t=5.5)
    assert first.targets == ("https://example.com/cb?x=1&y=2",)
    assert (second.opener, second.argv, second.truncated, second.t) == ("gio", ("open", "--", "https://g.example/"),
                                                                        True, None)  # fmt: skip
    assert second.targets == ("https://g.example/",)
    assert list(rec.opens_in("b")) == [second] and list(rec.opens_in("zzz")) == []


@pytest.mark.parametrize(
    ("opener", "argv", "targets"),
    [
        ("open", ["-a", "Safari", "https://x/"], ("Safari", "https://x/")),  # options are left out, not their values
        ("xdg-open", ["--", "-weird"], ("-weird",)),
        ("gio", ["mount", "smb://h/"], ()),  # another subcommand of gio opens nothing
        ("gio", [], ()),
        ("wslview", [], ()),
    ],
)
def test_targets_are_the_arguments_that_are_not_options(opener, argv, targets):
    assert UrlOpen(seq=1, run_id="a", opener=opener, argv=tuple(argv)).targets == targets


def test_a_key_like_secret_in_an_openers_arguments_is_masked_as_it_is_written(tmp_path):
    secret = "sk-ant-api03-" + "a" * 40
    path = new_recording(
        tmp_path / "r.sqlite",
        runs=[{"id": "a"}],
        opens=[{**OPEN, "argv": [f"https://x/?k={secret}", "--api-key", "hunter2"]}],
    )
    (found,) = load(path).opens
    assert secret not in " ".join(found.argv) and "hunter2" not in found.argv
    assert found.argv[0].startswith("https://x/?k=")


@pytest.mark.parametrize(
    ("sql", "said"),
    [
        ("UPDATE opens SET opener = 'rm -rf /'", "column opener, is malformed: opener 'rm -rf /' is not a program"),
        ("UPDATE opens SET opener = ''", "column opener, is malformed"),
        (LOOSE + "UPDATE opens SET opener = NULL", "column opener, is malformed: expected text, found NULL"),
        ("UPDATE opens SET argv = '{\"a\": 1}'", "column argv, is malformed: argv must be a JSON list of strings"),
        ("UPDATE opens SET argv = '[1, 2]'", "column argv, is malformed: argv must be a JSON list of strings"),
        ("UPDATE opens SET argv = 'not json'", "column argv, is malformed"),
        (LOOSE + "UPDATE opens SET argv = NULL", "column argv, is malformed: argv must be a JSON list of strings"),
        ("UPDATE opens SET argv = printf('%.100c', '[')", "column argv, is malformed: JSON nested deeper"),
        ("UPDATE opens SET truncated = 2", "column truncated, is malformed: truncated 2 is neither 0 nor 1"),
        ("UPDATE opens SET t = 'soon'", "column t, is malformed: expected a finite number"),
        (LOOSE + "UPDATE opens SET run_id = NULL", "column run_id, is malformed: expected text, found NULL"),
    ],
    ids=[
        "opener",
        "empty-opener",
        "null-opener",
        "object",
        "numbers",
        "not-json",
        "null-argv",
        "deep",
        "truncated",
        "t",
        "run",
    ],  # fmt: skip
)
def test_a_malformed_call_is_refused_naming_its_row_table_and_column(tmp_path, sql, said):
    path = _broken(new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}], opens=[OPEN]), sql)
    with pytest.raises(RecordingFormatError, match=f"row 1 of table opens, {said}"):
        load(path)


def test_an_opens_view_in_place_of_the_table_is_refused(tmp_path):
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}])
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("DROP TABLE opens")
        conn.execute("CREATE VIEW opens AS SELECT 1 AS seq")
    conn.close()
    with pytest.raises(RecordingFormatError, match="opens is a view, not a table"):
        load(path)


def test_the_new_table_only_adds_so_older_recordings_need_no_upgrade():
    assert {"m004_screens", "m005_opens"} <= READ_AS_IS


@pytest.mark.parametrize(
    ("source", "name"), [(M004, "m004_screens"), (M003, "m003_descriptions")], ids=["m004", "m003"]
)
def test_a_recording_made_before_opens_reads_as_it_is_and_keeps_its_format_name(tmp_path, source, name):
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(source, copy)
    before = copy.read_bytes()
    rec = load(copy)
    assert rec.format_version == name  # reports of it say so, as their committed copies do
    assert rec.opens == ()
    assert copy.read_bytes() == before


def test_upgrading_a_recording_made_before_opens_adds_the_table_and_its_words_and_judges_the_same(tmp_path):
    copy = tmp_path / "old.sqlite"
    shutil.copyfile(M004, copy)
    assert load(copy).format_version == "m004_screens"
    verdicts_before = [r.as_dict() for r in judge(load(copy)).results]
    assert store.upgrade(copy) == ["m005_opens", "m006_model_exchanges", "m007_attestations"]
    rec = load(copy)
    assert rec.format_version == latest() and rec.meta["format_version"] == latest()
    assert rec.opens == ()
    assert [r.as_dict() for r in judge(rec).results] == verdicts_before
    with sqlite3.connect(copy) as conn:
        stored = set(conn.execute("SELECT table_name, column_name, description FROM descriptions"))
    conn.close()
    assert {row for row in description_rows() if row[0] == "opens"} <= stored
    assert store.upgrade(copy) == []


def test_a_trimmed_copy_keeps_a_runs_opens_with_it_and_drops_the_others(tmp_path):
    path = new_recording(tmp_path / "r.sqlite", runs=[{"id": "a"}, {"id": "b"}], opens=[OPEN, {**OPEN, "run_id": "b"}])
    out = tmp_path / "trimmed.sqlite"
    trim_copy(path, out, ["b"])
    (kept,) = load(out).opens
    assert (kept.run_id, kept.argv) == ("b", tuple(OPEN["argv"]))
