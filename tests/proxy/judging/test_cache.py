"""`judge --cache`: an unchanged recording's report comes from the cache, byte for byte what judging it prints;
a change to the recording, its path or the oracle's code is judged again; an entry that does not decode is a miss."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from backchannel.proxy.judging import cache as cache_mod
from backchannel.proxy.judging import parallel
from backchannel.proxy.judging.cache import JudgeCache, recording_key
from backchannel.proxy.judging.inputs import expand
from backchannel.proxy.judging.parallel import judge_all, tasks_for

REFERENCE = Path(__file__).resolve().parents[3] / "recordings" / "reference"
CLI = [sys.executable, "-m", "backchannel.proxy.cli", "judge"]


def corpus(folder: Path) -> Path:
    folder.mkdir()
    for source in sorted(REFERENCE.glob("elicitation-url-mode-*.sqlite"))[:6]:
        shutil.copyfile(source, folder / source.name)
    return folder


def entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json.z"))


def test_a_warm_cache_prints_the_same_bytes_as_judging_in_every_corpus_format_and_a_cold_one_fills_it(tmp_path: Path):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    cold = subprocess.run([*CLI, str(recordings), "--format", "json", "--cache", str(kept)], capture_output=True)
    assert len(entries(kept)) == 6, "each judged recording is kept"
    for fmt in ("json", "text", "sarif"):
        plain = subprocess.run([*CLI, str(recordings), "--format", fmt], capture_output=True, timeout=120)
        warm = subprocess.run([*CLI, str(recordings), "--format", fmt, "--cache", str(kept)], capture_output=True)
        assert plain.returncode == warm.returncode == cold.returncode and plain.returncode in (0, 1), fmt
        assert plain.stdout == warm.stdout, fmt
        if fmt == "json":
            assert cold.stdout == plain.stdout


def test_a_hit_is_not_judged_and_a_changed_recording_a_moved_one_or_another_oracle_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    first = list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    judged: list[str] = []
    real = parallel.load
    monkeypatch.setattr(parallel, "load", lambda path: judged.append(str(path)) or real(path))
    again = list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert again == first and judged == [], "every report came from the cache"

    changed = sorted(recordings.glob("*.sqlite"))[0]
    conn = sqlite3.connect(changed)
    with conn:
        conn.execute("UPDATE meta SET value = 'another' WHERE key = 'nonce'")
    conn.close()
    moved = recordings / "moved"
    moved.mkdir()
    shutil.move(sorted(recordings.glob("*.sqlite"))[-1], moved / "same-bytes.sqlite")
    list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert sorted(Path(p).name for p in judged) == [changed.name, "same-bytes.sqlite"]

    judged.clear()
    monkeypatch.setattr(cache_mod, "oracle_fingerprint", lambda: "f" * 64)
    monkeypatch.setattr(parallel, "oracle_fingerprint", lambda: "f" * 64)
    list(judge_all(tasks_for(expand([str(recordings)]), cache=kept), 1))
    assert len(judged) == 6, "another oracle judges every recording again"
    assert [p.name for p in kept.iterdir()] == ["f" * 16], "the other oracle's entries are gone"


def test_diff_store_and_a_recording_left_open_never_use_the_cache(tmp_path: Path):
    recordings, kept = corpus(tmp_path / "corpus"), tmp_path / "cache"
    list(judge_all(tasks_for(expand([str(recordings)]), read_stored=True, cache=kept), 1))
    list(judge_all(tasks_for(expand([str(recordings)]), store=True, cache=kept), 1))
    assert entries(kept) == []
    one = sorted(recordings.glob("*.sqlite"))[0]
    one.with_name(one.name + "-wal").write_bytes(b"x")
    assert recording_key(str(one)) is None


def test_an_entry_that_does_not_decode_or_names_another_oracle_is_a_miss(tmp_path: Path):
    kept = JudgeCache.open(tmp_path / "cache")
    key = "ab" * 32
    kept.put(key, {"exit_code": 0})
    assert kept.get(key) == {"exit_code": 0}
    entry = entries(tmp_path / "cache")[0]
    entry.write_bytes(b"not zlib")
    assert kept.get(key) is None
    entry.write_bytes(zlib.compress(b'{"fingerprint": "other", "report": {"exit_code": 0}}'))
    assert kept.get(key) is None
    assert kept.get("cd" * 32) is None


def test_the_fingerprint_changes_with_any_source_file_of_the_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    package = tmp_path / "backchannel"
    (package / "oracle").mkdir(parents=True)
    (package / "oracle" / "check.py").write_text("A = 1\n")
    (package / "oracle" / "schema.json").write_text("{}")
    monkeypatch.setattr(cache_mod.backchannel, "__path__", [str(package)])
    said = []
    for change in (None, ("oracle/check.py", "A = 2\n"), ("oracle/schema.json", "[]")):
        if change is not None:
            (package / change[0]).write_text(change[1])
        cache_mod.oracle_fingerprint.cache_clear()
        said.append(cache_mod.oracle_fingerprint())
    cache_mod.oracle_fingerprint.cache_clear()
    assert len(set(said)) == 3
